// SPDX-License-Identifier: Apache-2.0
#include "app/cli/event_json.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

#include "engine/core/training_options.h"
#include "engine/model/opcodes.h"
#include "ui/session/device_memory.h"

namespace trainscope::cli {

QJsonObject DeviceMemoryJson(const wire::DeviceMemoryMessage& memory) {
  const DeviceMemoryReport report = ExplainDeviceMemory(memory);
  QJsonObject heap;
  for (const DeviceMemoryPart& part : report.heap_parts) {
    heap.insert(QLatin1String(part.key), static_cast<qint64>(part.bytes));
  }
  return QJsonObject{
      {QStringLiteral("source"),
       report.measured ? QStringLiteral("measured") : QStringLiteral("accounted")},
      {QStringLiteral("heap_peak_bytes"), static_cast<qint64>(memory.heap_peak_bytes)},
      {QStringLiteral("stack_peak_bytes"), static_cast<qint64>(memory.stack_peak_bytes)},
      {QStringLiteral("static_bytes"), static_cast<qint64>(memory.static_bytes)},
      {QStringLiteral("total_bytes"), static_cast<qint64>(report.total_bytes)},
      {QStringLiteral("ram_bytes"), static_cast<qint64>(memory.ram_bytes)},
      {QStringLiteral("predicted_heap_peak_bytes"),
       static_cast<qint64>(memory.predicted_heap_peak_bytes)},
      {QStringLiteral("heap_over_plan_bytes"), static_cast<qint64>(report.heap_over_plan_bytes)},
      {QStringLiteral("heap"), heap}};
}
namespace {

// JSON has no NaN or Inf: they are written as strings so they are never lost.
QJsonValue Number(float value) {
  if (std::isnan(value)) return QStringLiteral("NaN");
  if (std::isinf(value))
    return value > 0 ? QStringLiteral("Infinity") : QStringLiteral("-Infinity");
  return static_cast<double>(value);
}

QString OpName(int32_t opcode) {
  const char* name = OpcodeName(opcode);
  return name != nullptr ? QString::fromLatin1(name) : QStringLiteral("OPCODE_%1").arg(opcode);
}

}  // namespace

void JsonLinesObserver::Write(const QJsonObject& object) {
  const QByteArray line = QJsonDocument(object).toJson(QJsonDocument::Compact);
  std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), out_);
  std::fputc('\n', out_);
}

void JsonLinesObserver::OnSample(const SampleEvent&) {
  if (backward_pending_) WritePendingBackwardStep(nullptr);
}

void JsonLinesObserver::Finish() {
  if (backward_pending_) WritePendingBackwardStep(nullptr);
  std::fflush(out_);
}

void JsonLinesObserver::OnOptimizerStep(const OptimizerStepEvent& event) {
  if (backward_pending_) WritePendingBackwardStep(nullptr);
  Write({{QStringLiteral("type"), QStringLiteral("optimizer_step")},
         {QStringLiteral("step"), static_cast<qint64>(event.optimizer_step)},
         {QStringLiteral("epoch"), static_cast<qint64>(event.epoch)},
         {QStringLiteral("batch_size"), static_cast<qint64>(event.batch_size)}});
  std::fflush(out_);
}

void JsonLinesObserver::OnBackwardStep(const BackwardStepEvent& event) {
  if (event.begin) return;
  if (backward_pending_) WritePendingBackwardStep(nullptr);
  pending_ = event;
  backward_pending_ = true;
}

void JsonLinesObserver::OnMemorySummary(const MemorySummaryEvent& event) {
  if (!backward_pending_) return;
  // The step's own summary comes right after it. Any other (the step's was lost on the link, and
  // this one belongs to a step whose BACKWARD_STEP was lost too, or to another phase) would put
  // another step's bytes on this line: the line goes out without memory numbers instead.
  const bool own = event.phase == Phase::kBackward && event.step == pending_.step;
  WritePendingBackwardStep(own ? &event : nullptr);
}

void JsonLinesObserver::WritePendingBackwardStep(const MemorySummaryEvent* summary) {
  backward_pending_ = false;
  QJsonObject line{{QStringLiteral("type"), QStringLiteral("backward_step")},
                   {QStringLiteral("step"), static_cast<qint64>(pending_.step)},
                   {QStringLiteral("op_index"), static_cast<qint64>(pending_.op_index)},
                   {QStringLiteral("opcode"), OpName(pending_.opcode)},
                   {QStringLiteral("trainable"), pending_.trainable},
                   {QStringLiteral("rank"), QString::fromLatin1(TrainRankName(pending_.rank))},
                   {QStringLiteral("is_last_layer"), pending_.is_last_layer},
                   {QStringLiteral("duration_ns"), static_cast<qint64>(pending_.duration_ns)}};
  if (summary != nullptr) {
    line.insert(QStringLiteral("current_bytes"), static_cast<qint64>(summary->current_bytes));
    line.insert(QStringLiteral("peak_bytes"), static_cast<qint64>(summary->peak_bytes));
  }
  Write(line);
}

void JsonLinesObserver::OnGradientStats(const GradientStatsEvent& event) {
  QJsonArray histogram;
  for (uint32_t count : event.histogram) histogram.append(static_cast<qint64>(count));
  Write({{QStringLiteral("type"), QStringLiteral("grad_stats")},
         {QStringLiteral("step"), static_cast<qint64>(event.optimizer_step)},
         {QStringLiteral("op_index"), static_cast<qint64>(event.op_index)},
         {QStringLiteral("tensor"), event.tensor},
         {QStringLiteral("l2"), Number(event.l2)},
         {QStringLiteral("max_abs"), Number(event.max_abs)},
         {QStringLiteral("mean"), Number(event.mean)},
         {QStringLiteral("nan_count"), static_cast<qint64>(event.nan_count)},
         {QStringLiteral("inf_count"), static_cast<qint64>(event.inf_count)},
         {QStringLiteral("histogram"), histogram}});
}

void JsonLinesObserver::OnUpdateRatio(const UpdateRatioEvent& event) {
  Write({{QStringLiteral("type"), QStringLiteral("update_ratio")},
         {QStringLiteral("step"), static_cast<qint64>(event.optimizer_step)},
         {QStringLiteral("tensor"), event.tensor},
         {QStringLiteral("update_norm"), Number(event.update_norm)},
         {QStringLiteral("weight_norm"), Number(event.weight_norm)},
         {QStringLiteral("ratio"), Number(event.ratio)}});
}

void JsonLinesObserver::OnLoss(const LossEvent& event) {
  Write({{QStringLiteral("type"), QStringLiteral("loss")},
         {QStringLiteral("step"), static_cast<qint64>(event.optimizer_step)},
         {QStringLiteral("sample"), static_cast<qint64>(event.sample)},
         {QStringLiteral("value"), Number(event.value)}});
}

void JsonLinesObserver::OnMetric(const MetricEvent& event) {
  Write({{QStringLiteral("type"), QStringLiteral("metric")},
         {QStringLiteral("epoch"), static_cast<qint64>(event.epoch)},
         {QStringLiteral("metric"),
          QString::fromLatin1(MetricName(static_cast<MetricKind>(event.metric)))},
         {QStringLiteral("value"), Number(event.value)}});
  std::fflush(out_);
}

}  // namespace trainscope::cli
