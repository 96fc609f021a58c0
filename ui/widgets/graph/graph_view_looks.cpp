// SPDX-License-Identifier: Apache-2.0
//
// GraphView: what each node looks like for the current snapshot and overlay, and the legend.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/model/opcodes.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/common/theme.h"
#include "ui/widgets/graph/graph_view.h"

namespace trainscope {
namespace {

constexpr double kNoValue = -1.0;

QString OpName(int32_t opcode) {
  const char* name = OpcodeName(opcode);
  return name ? QLatin1String(name) : QStringLiteral("OP %1").arg(opcode);
}

QColor ReadableTextOn(const QColor& fill) {
  return fill.lightnessF() > 0.55 ? QColor(20, 20, 24) : QColor(245, 245, 248);
}

}  // namespace

double GraphView::metricOfOp(const SessionSnapshot* snapshot, int op) const {
  if (!snapshot || op < 0) return kNoValue;
  double value = kNoValue;
  auto take = [&value](double candidate) {
    if (std::isnan(value)) return;
    value = std::isnan(candidate) ? candidate : std::max(value, candidate);
  };
  switch (overlay_) {
    case Overlay::kTrainability:
      return kNoValue;
    case Overlay::kBytesHeld:
      if (static_cast<size_t>(op) < bytes_of_op_.size() &&
          bytes_of_op_[static_cast<size_t>(op)] > 0) {
        return bytes_of_op_[static_cast<size_t>(op)];
      }
      return kNoValue;
    case Overlay::kGradientNorm:
      for (const TensorGradient& tensor : snapshot->tensors) {
        if (tensor.has_stats && !tensor.frozen && tensor.op_index == static_cast<uint32_t>(op))
          take(tensor.stats.l2);
      }
      return value;
    case Overlay::kUpdateRatio:
      for (const TensorGradient& tensor : snapshot->tensors) {
        if (tensor.has_ratio && !tensor.frozen && tensor.op_index == static_cast<uint32_t>(op))
          take(tensor.ratio.ratio);
      }
      return value;
  }
  return kNoValue;
}

void GraphView::updateLooks() {
  const std::shared_ptr<const SessionSnapshot>& latest = follower_->latest();
  const SessionSnapshot* snapshot = latest.get();
  const size_t n = graph_.subgraphs.empty() ? 0 : graph_.main().operators.size();
  current_op_ = -1;
  done_ops_.clear();
  bytes_of_op_.assign(n, 0.0);
  if (snapshot) {
    const BackwardProgress& progress = snapshot->progress;
    if (progress.has_backward_step && progress.op_index < n) {
      current_op_ = static_cast<int>(progress.op_index);
    }
    for (uint32_t op : progress.done_ops) {
      if (op < n) done_ops_.push_back(static_cast<int>(op));
    }
    for (const BufferLifetime& buffer : snapshot->memory->buffers()) {
      size_t op = n;
      if (buffer.alloc_phase == Phase::kForward) op = buffer.alloc_step;
      if (buffer.alloc_phase == Phase::kBackward && buffer.alloc_step < n) {
        op = n - 1 - buffer.alloc_step;
      }
      if (op < n) bytes_of_op_[op] += static_cast<double>(buffer.bytes);
    }
  }
  double low = std::numeric_limits<double>::infinity();
  double high = 0.0;
  for (size_t op = 0; op < n; ++op) {
    const double value = metricOfOp(snapshot, static_cast<int>(op));
    if (std::isfinite(value) && value > 0.0) {
      low = std::min(low, value);
      high = std::max(high, value);
    }
  }
  if (!(high > 0.0)) low = high = 0.0;
  for (size_t node = 0; node < nodes_.size(); ++node) {
    nodes_[node]->setLook(lookOfNode(static_cast<int>(node), snapshot, low, high));
  }
  legend_->setProperty("low", low);
  legend_->setProperty("high", high);
  updateLegend();
}

NodeLook GraphView::lookOfNode(int node, const SessionSnapshot* snapshot, double low,
                               double high) const {
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  NodeLook look;
  look.text = theme.text;
  look.border = theme.border;
  look.accent = theme.accent;
  look.done = theme.done;
  const std::vector<int> ops = opsOfNode(node);
  if (ops.empty() || graph_.subgraphs.empty()) return look;
  const Subgraph& subgraph = graph_.main();
  for (int op : ops) {
    look.current = look.current || op == current_op_;
    look.done_mark =
        look.done_mark || std::find(done_ops_.begin(), done_ops_.end(), op) != done_ops_.end();
    look.breakpoint = look.breakpoint || breakpoint_ops_.count(static_cast<uint32_t>(op)) > 0;
    look.divergent = look.divergent || op == divergent_op_;
  }
  look.divergent_color = theme.error;
  double value = kNoValue;
  for (int op : ops) {
    const double v = metricOfOp(snapshot, op);
    if (std::isnan(v) || std::isnan(value)) {
      value = std::numeric_limits<double>::quiet_NaN();
    } else {
      value = std::max(value, v);
    }
  }
  if (snapshot) {
    for (const TensorGradient& tensor : snapshot->tensors) {
      if (std::find(ops.begin(), ops.end(), static_cast<int>(tensor.op_index)) != ops.end() &&
          tensor.nan_total + tensor.inf_total > 0) {
        look.warning = true;
      }
    }
  }

  size_t params = 0;
  for (int op : ops) params += OperatorParameterCount(subgraph, static_cast<size_t>(op));
  const bool collapsed = collapsed_prefix_ > 0 && node == 0;
  const int k = ops.front();
  const Operator& op = subgraph.operators[static_cast<size_t>(k)];
  const OpTrainability train = static_cast<size_t>(k) < resolved_.size()
                                   ? resolved_[static_cast<size_t>(k)]
                                   : OpTrainability();
  const bool has_weights = HasOnertTrainableWeights(op.opcode) && params > 0;

  if (collapsed) {
    look.title = QStringLiteral("#0–#%1  outside backward").arg(ops.back());
    look.subtitle = tr("%n operators", nullptr, static_cast<int>(ops.size()));
  } else {
    const QString name = OpName(op.opcode);
    look.title = order_ == LayoutOrder::kBackward && train.in_backward_range
                     ? QStringLiteral("step %1 · #%2  %3").arg(train.backward_step).arg(k).arg(name)
                     : QStringLiteral("#%1  %2").arg(k).arg(name);
    if (!op.outputs.empty() && op.outputs[0] >= 0 &&
        static_cast<size_t>(op.outputs[0]) < subgraph.tensors.size()) {
      look.subtitle = QStringLiteral("out ") +
                      FormatShape(subgraph.tensors[static_cast<size_t>(op.outputs[0])].shape);
    }
  }

  if (overlay_ == Overlay::kTrainability) {
    if (collapsed) {
      look.detail = tr("frozen · %1 params").arg(FormatCount(params));
      look.fill = theme.outside;
    } else if (train.trainable && has_weights) {
      look.detail = QLatin1String(TrainRankName(train.rank)) + QStringLiteral(" · ") +
                    tr("%1 params").arg(FormatCount(params));
      look.fill = theme.rankColor(train.rank);
    } else if (has_weights) {
      look.detail = tr("frozen · %1 params").arg(FormatCount(params));
      look.fill = train.in_backward_range ? theme.frozen : theme.outside;
    } else {
      look.detail = train.in_backward_range ? tr("passes gradient") : tr("no backward");
      look.fill = train.in_backward_range ? theme.frozen : theme.outside;
    }
    look.text = theme.text;
    return look;
  }

  static const char* const kLabels[] = {"", "‖g‖ ", "held ", "ΔW/W "};
  const QString label = QString::fromUtf8(kLabels[static_cast<int>(overlay_)]);
  if (std::isnan(value)) {
    look.detail = label + QStringLiteral("NaN");
    look.fill = theme.error;
  } else if (value <= 0.0) {
    look.detail = label + QStringLiteral("—");
    look.fill = theme.outside;
    return look;
  } else {
    look.detail =
        label + (overlay_ == Overlay::kBytesHeld ? FormatBytes(static_cast<uint64_t>(value))
                                                 : FormatValue(value));
    const double span = std::log10(high) - std::log10(low);
    const double t = span > 1e-12 ? (std::log10(value) - std::log10(low)) / span : 1.0;
    look.fill = RampColor(t);
  }
  look.text = ReadableTextOn(look.fill);
  return look;
}

namespace {

QString TensorLine(const Subgraph& subgraph, int32_t tensor, const QString& place,
                   const QString& role) {
  if (tensor < 0 || static_cast<size_t>(tensor) >= subgraph.tensors.size()) {
    return QStringLiteral("<tr><td>%1</td><td colspan=3><i>absent</i></td></tr>").arg(place);
  }
  const Tensor& t = subgraph.tensors[static_cast<size_t>(tensor)];
  const QString bytes = t.constant ? QStringLiteral(" · ") + FormatBytes(t.bytes) : QString();
  return QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3 %4</td><td>%5%6</td></tr>")
      .arg(place, QString::fromStdString(t.name).toHtmlEscaped(), FormatShape(t.shape),
           QLatin1String(ElementTypeName(t.type)), role, bytes);
}

}  // namespace

QString GraphView::toolTipOfNode(int node) const {
  const std::vector<int> ops = opsOfNode(node);
  if (ops.empty() || graph_.subgraphs.empty()) return QString();
  const Subgraph& subgraph = graph_.main();
  size_t params = 0;
  for (int op : ops) params += OperatorParameterCount(subgraph, static_cast<size_t>(op));
  if (collapsed_prefix_ > 0 && node == 0) {
    return tr("<b>#0–#%1</b>: %2 operators before the backward range<br>%3 parameters, all frozen "
              "(forward only)<br><i>Uncheck \"Collapse frozen prefix\" to see them one by one.</i>")
        .arg(ops.back())
        .arg(ops.size())
        .arg(FormatCount(params));
  }
  const int k = ops.front();
  const Operator& op = subgraph.operators[static_cast<size_t>(k)];
  const OpTrainability train = static_cast<size_t>(k) < resolved_.size()
                                   ? resolved_[static_cast<size_t>(k)]
                                   : OpTrainability();
  QString text = QStringLiteral("<b>#%1 %2</b>").arg(k).arg(OpName(op.opcode));
  if (train.in_backward_range) {
    text += tr(" · backward step %1").arg(train.backward_step);
    if (train.is_last_layer) text += tr(" (last layer: no input gradient)");
  }
  text += QStringLiteral("<br>");
  const bool has_weights = HasOnertTrainableWeights(op.opcode) && params > 0;
  if (!train.in_backward_range) {
    text += tr("Outside the backward range: runs forward only");
  } else if (train.trainable && has_weights) {
    text += tr("Trains: rank %1 · %2 parameters")
                .arg(QLatin1String(TrainRankName(train.rank)), FormatCount(params));
  } else if (has_weights) {
    text += tr("Frozen: %1 parameters, gradient passed through").arg(FormatCount(params));
  } else {
    text += tr("No parameters: passes the gradient on");
  }
  text += QStringLiteral("<table cellspacing=0 cellpadding=1>");
  for (size_t slot = 0; slot < op.inputs.size(); ++slot) {
    text += TensorLine(subgraph, op.inputs[slot], tr("in %1").arg(slot),
                       ParameterRole(subgraph, op, slot));
  }
  for (size_t slot = 0; slot < op.outputs.size(); ++slot) {
    text += TensorLine(subgraph, op.outputs[slot], tr("out %1").arg(slot), QString());
  }
  text += QStringLiteral("</table><i>%1</i>")
              .arg(tr("Select it to see its tensors' values in Tensor values."));
  return text;
}

void GraphView::updateLegend() {
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  std::vector<GraphLegend::Entry> marks = {
      {theme.accent, tr("current backward op"), true},
      {theme.done, tr("backward done this sample"), false},
  };
  if (!breakpoint_ops_.empty()) marks.push_back({QColor(220, 40, 40), tr("breakpoint"), false});
  if (divergent_op_ >= 0)
    marks.push_back({theme.error, tr("≠ first divergent (comparison)"), true});
  if (overlay_ == Overlay::kTrainability) {
    std::vector<GraphLegend::Entry> entries = {
        {theme.trainable, tr("trains: ALL"), false},
        {theme.only_bias, tr("trains: ONLY_BIAS"), false},
        {theme.half_rank, tr("trains: UP/LOWER half"), false},
        {theme.frozen, tr("in backward, frozen"), false},
        {theme.outside, tr("outside backward range"), false},
    };
    entries.insert(entries.end(), marks.begin(), marks.end());
    legend_->setEntries(tr("Trainability"), std::move(entries));
  } else {
    const double low = legend_->property("low").toDouble();
    const double high = legend_->property("high").toDouble();
    const bool bytes = overlay_ == Overlay::kBytesHeld;
    auto text = [bytes](double v) {
      return bytes ? FormatBytes(static_cast<uint64_t>(v)) : FormatValue(v);
    };
    static const char* const kTitles[] = {"", QT_TR_NOOP("Gradient L2 norm (log)"),
                                          QT_TR_NOOP("Bytes allocated by op (log)"),
                                          QT_TR_NOOP("Update ratio ‖ΔW‖/‖W‖ (log)")};
    std::vector<GraphLegend::Entry> extra = {{theme.error, tr("NaN / Inf"), false},
                                             {theme.outside, tr("no data"), false}};
    extra.insert(extra.end(), marks.begin(), marks.end());
    legend_->setRamp(tr(kTitles[static_cast<int>(overlay_)]),
                     high > 0 ? text(low) : QStringLiteral("—"),
                     high > 0 ? text(high) : QStringLiteral("—"), std::move(extra));
  }
}

}  // namespace trainscope
