// SPDX-License-Identifier: Apache-2.0
#include "ui/session/breakpoints.h"

#include <QStringList>
#include <QVariantList>

#include <cmath>
#include <utility>

#include "engine/model/opcodes.h"

namespace trainscope {
namespace {

QString OpText(const Graph* graph, uint32_t op) {
  if (op == kNoOp) return QStringLiteral("the optimizer");
  QString text = QStringLiteral("op #%1").arg(op);
  if (graph != nullptr && !graph->subgraphs.empty() && op < graph->main().operators.size()) {
    const char* name = OpcodeName(graph->main().operators[op].opcode);
    if (name != nullptr) text += QLatin1Char(' ') + QLatin1String(name);
  }
  return text;
}

QString TensorText(const Graph* graph, int32_t tensor) {
  QString text = QStringLiteral("tensor %1").arg(tensor);
  if (graph != nullptr && !graph->subgraphs.empty() && tensor >= 0 &&
      static_cast<size_t>(tensor) < graph->main().tensors.size()) {
    const std::string& name = graph->main().tensors[static_cast<size_t>(tensor)].name;
    if (!name.empty()) text += QStringLiteral(" '%1'").arg(QString::fromStdString(name));
  }
  return text;
}

QString MeasureName(GradientMeasure measure) {
  return measure == GradientMeasure::kMaxAbs ? QStringLiteral("max |g|")
                                             : QStringLiteral("L2 norm");
}

}  // namespace

void BreakpointSet::toggleOp(uint32_t op) {
  if (!ops.erase(op)) ops.insert(op);
}

QVariantMap BreakpointSet::toVariantMap() const {
  QVariantList op_list;
  for (uint32_t op : ops) op_list.append(op);
  return {{QStringLiteral("ops"), op_list},
          {QStringLiteral("nanInf"), nan_inf},
          {QStringLiteral("budget"), budget_enabled},
          {QStringLiteral("gradient"), gradient_enabled},
          {QStringLiteral("threshold"), static_cast<double>(gradient_threshold)},
          {QStringLiteral("measure"), static_cast<int>(gradient_measure)}};
}

BreakpointSet BreakpointSet::FromVariantMap(const QVariantMap& map) {
  BreakpointSet set;
  for (const QVariant& op : map.value(QStringLiteral("ops")).toList()) {
    bool ok = false;
    const uint32_t index = op.toUInt(&ok);
    if (ok) set.ops.insert(index);
  }
  set.nan_inf = map.value(QStringLiteral("nanInf")).toBool();
  set.budget_enabled = map.value(QStringLiteral("budget")).toBool();
  set.gradient_enabled = map.value(QStringLiteral("gradient")).toBool();
  const double threshold =
      map.value(QStringLiteral("threshold"), static_cast<double>(set.gradient_threshold))
          .toDouble();
  if (std::isfinite(threshold) && threshold >= 0.0) {
    set.gradient_threshold = static_cast<float>(threshold);
  }
  if (map.value(QStringLiteral("measure")).toInt() == static_cast<int>(GradientMeasure::kMaxAbs)) {
    set.gradient_measure = GradientMeasure::kMaxAbs;
  }
  return set;
}

bool BreakpointSet::operator==(const BreakpointSet& other) const {
  return ops == other.ops && nan_inf == other.nan_inf && budget_enabled == other.budget_enabled &&
         budget_bytes == other.budget_bytes && gradient_enabled == other.gradient_enabled &&
         gradient_threshold == other.gradient_threshold &&
         gradient_measure == other.gradient_measure;
}

std::optional<BreakpointHit> CheckBeforeBackwardStep(const BreakpointSet& set,
                                                     const BackwardStepEvent& event) {
  if (!set.hasOp(event.op_index)) return std::nullopt;
  BreakpointHit hit;
  hit.kind = BreakpointKind::kOpIndex;
  hit.op_index = event.op_index;
  hit.backward_step = event.step;
  return hit;
}

std::optional<BreakpointHit> CheckGradientStats(const BreakpointSet& set,
                                                const GradientStatsEvent& event) {
  BreakpointHit hit;
  hit.op_index = event.op_index;
  hit.optimizer_step = event.optimizer_step;
  hit.tensor = event.tensor;
  hit.nan_count = event.nan_count;
  hit.inf_count = event.inf_count;
  if (set.nan_inf && event.nan_count + event.inf_count > 0) {
    hit.kind = BreakpointKind::kNanInf;
    return hit;
  }
  if (!set.gradient_enabled) return std::nullopt;
  const float value = set.gradient_measure == GradientMeasure::kMaxAbs ? event.max_abs : event.l2;
  // A NaN norm compares false and so never passes a threshold; that is the NaN breakpoint's job.
  if (!(value > set.gradient_threshold)) return std::nullopt;
  hit.kind = BreakpointKind::kGradientAbove;
  hit.value = static_cast<double>(value);
  hit.threshold = static_cast<double>(set.gradient_threshold);
  hit.measure = set.gradient_measure;
  return hit;
}

std::optional<BreakpointHit> CheckMemorySummary(const BreakpointSet& set,
                                                const MemorySummaryEvent& event, uint32_t op_count,
                                                bool* was_above) {
  const bool above = set.budget_bytes > 0 && event.current_bytes > set.budget_bytes;
  const bool crossed = above && !*was_above;
  *was_above = above;
  if (!set.budget_enabled || !crossed) return std::nullopt;
  BreakpointHit hit;
  hit.kind = BreakpointKind::kArenaAbove;
  hit.phase = event.phase;
  hit.bytes = event.current_bytes;
  hit.budget = set.budget_bytes;
  switch (event.phase) {
    case Phase::kForward:
      hit.op_index = event.step;
      break;
    case Phase::kBackward:
      hit.backward_step = event.step;
      hit.op_index = event.step < op_count ? op_count - 1 - event.step : kNoOp;
      break;
    case Phase::kOptimizer:
      hit.op_index = kNoOp;
      break;
  }
  return hit;
}

QString BreakpointKindName(BreakpointKind kind) {
  switch (kind) {
    case BreakpointKind::kOpIndex:
      return QStringLiteral("op");
    case BreakpointKind::kNanInf:
      return QStringLiteral("NaN/Inf");
    case BreakpointKind::kArenaAbove:
      return QStringLiteral("RAM budget");
    case BreakpointKind::kGradientAbove:
      return QStringLiteral("gradient");
  }
  return QStringLiteral("unknown");
}

QString DescribeHit(const BreakpointHit& hit, const Graph* graph) {
  switch (hit.kind) {
    case BreakpointKind::kOpIndex:
      return QStringLiteral("breakpoint: before the backward step of %1 (backward step %2)")
          .arg(OpText(graph, hit.op_index))
          .arg(hit.backward_step);
    case BreakpointKind::kNanInf:
      return QStringLiteral(
                 "breakpoint: the gradient of %1 (%2) holds %3 NaN and %4 Inf values at "
                 "optimizer step %5")
          .arg(TensorText(graph, hit.tensor), OpText(graph, hit.op_index))
          .arg(hit.nan_count)
          .arg(hit.inf_count)
          .arg(hit.optimizer_step);
    case BreakpointKind::kGradientAbove:
      return QStringLiteral(
                 "breakpoint: the gradient %1 of %2 (%3) is %4, above the threshold %5 at "
                 "optimizer step %6")
          .arg(MeasureName(hit.measure), TensorText(graph, hit.tensor), OpText(graph, hit.op_index))
          .arg(hit.value, 0, 'g', 4)
          .arg(hit.threshold, 0, 'g', 4)
          .arg(hit.optimizer_step);
    case BreakpointKind::kArenaAbove: {
      QString where = QStringLiteral("in the %1 phase").arg(QLatin1String(PhaseName(hit.phase)));
      if (hit.op_index != kNoOp) where += QStringLiteral(" at %1").arg(OpText(graph, hit.op_index));
      return QStringLiteral("breakpoint: %1 B live exceed the RAM budget of %2 B %3")
          .arg(hit.bytes)
          .arg(hit.budget)
          .arg(where);
    }
  }
  return QStringLiteral("breakpoint");
}

BreakpointMonitor::BreakpointMonitor(BreakpointSet set, uint32_t op_count)
    : set_(std::move(set)), op_count_(op_count) {}

void BreakpointMonitor::setBreakpoints(const BreakpointSet& set) {
  set_ = set;
  above_budget_ = false;
}

std::optional<BreakpointHit> BreakpointMonitor::beforeBackwardStep(const BackwardStepEvent& event) {
  gradient_hit_in_step_ = false;
  return CheckBeforeBackwardStep(set_, event);
}

std::optional<BreakpointHit> BreakpointMonitor::onGradientStats(const GradientStatsEvent& event) {
  if (gradient_hit_in_step_) return std::nullopt;
  std::optional<BreakpointHit> hit = CheckGradientStats(set_, event);
  gradient_hit_in_step_ = hit.has_value();
  return hit;
}

std::optional<BreakpointHit> BreakpointMonitor::onMemorySummary(const MemorySummaryEvent& event) {
  return CheckMemorySummary(set_, event, op_count_, &above_budget_);
}

}  // namespace trainscope
