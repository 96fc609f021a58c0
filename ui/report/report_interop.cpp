// SPDX-License-Identifier: Apache-2.0
//
// Interop formats: Mondrian *.tracealloc.json (ONE-vscode) and Chrome Trace Event JSON.
// Both use the tick as their time axis; docs/reports.md describes the mapping.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include "ui/report/report_export.h"

namespace trainscope {
namespace {

// Trace Event timestamps are microseconds; one plan tick is shown as one millisecond.
constexpr qint64 kMicrosecondsPerTick = 1000;
constexpr int kProcess = 1;
constexpr int kBufferThread = 4;

QString Str(const std::string& text) {
  return QString::fromStdString(text);
}
QString Str(const char* text) {
  return QString::fromLatin1(text);
}
qint64 Int(uint64_t value) {
  return static_cast<qint64>(value);
}

int ThreadOf(Phase phase) {
  return static_cast<int>(phase) + 1;
}

Phase PhaseOfTick(const ReportData& data, uint32_t tick) {
  return tick < data.memory.rows.size() ? data.memory.rows[tick].tick.phase() : Phase::kForward;
}

QJsonObject Metadata(const char* what, int tid, const QString& name) {
  QJsonObject event{{QStringLiteral("name"), Str(what)},
                    {QStringLiteral("ph"), QStringLiteral("M")},
                    {QStringLiteral("pid"), kProcess},
                    {QStringLiteral("args"), QJsonObject{{QStringLiteral("name"), name}}}};
  if (tid > 0) event[QStringLiteral("tid")] = tid;
  return event;
}

QJsonObject Counter(const char* name, qint64 ts, const QJsonObject& values) {
  return QJsonObject{{QStringLiteral("name"), Str(name)},
                     {QStringLiteral("ph"), QStringLiteral("C")},
                     {QStringLiteral("ts"), ts},
                     {QStringLiteral("pid"), kProcess},
                     {QStringLiteral("args"), values}};
}

QJsonObject StepEvent(const ReportData& data, size_t t) {
  const MemoryStepRow& row = data.memory.rows[t];
  QJsonObject args{{QStringLiteral("tick"), static_cast<int>(t)},
                   {QStringLiteral("sample"), static_cast<int>(row.tick.sample)},
                   {QStringLiteral("step"), static_cast<int>(row.tick.step)},
                   {QStringLiteral("live_bytes"), Int(row.live_bytes)}};
  if (row.tick.op_index >= 0) {
    args[QStringLiteral("op_index")] = row.tick.op_index;
    const size_t k = static_cast<size_t>(row.tick.op_index);
    if (row.tick.kind == TickKind::kBackwardStep && k < data.memory.selection.ops.size()) {
      const OpTrainability& op = data.memory.selection.ops[k];
      args[QStringLiteral("trainable")] = op.has_parameter_gradients;
      args[QStringLiteral("is_last_layer")] = op.is_last_layer;
      if (op.has_parameter_gradients) args[QStringLiteral("rank")] = Str(TrainRankName(op.rank));
    }
  }
  return QJsonObject{{QStringLiteral("name"), Str(data.tick_labels[t])},
                     {QStringLiteral("cat"), Str(PhaseName(row.tick.phase()))},
                     {QStringLiteral("ph"), QStringLiteral("X")},
                     {QStringLiteral("ts"), static_cast<qint64>(t) * kMicrosecondsPerTick},
                     {QStringLiteral("dur"), kMicrosecondsPerTick},
                     {QStringLiteral("pid"), kProcess},
                     {QStringLiteral("tid"), ThreadOf(row.tick.phase())},
                     {QStringLiteral("args"), args}};
}

QJsonObject BufferEvent(const MemoryReportBuffer& b, size_t id, bool begin) {
  QJsonObject event{{QStringLiteral("name"), Str(b.name)},
                    {QStringLiteral("cat"), QString(QStringLiteral("buffer,") +
                                                    Str(MemoryCategoryName(b.buffer.category)))},
                    {QStringLiteral("ph"), begin ? QStringLiteral("b") : QStringLiteral("e")},
                    {QStringLiteral("id"), static_cast<int>(id)},
                    {QStringLiteral("ts"),
                     static_cast<qint64>(begin ? b.buffer.first_tick : b.buffer.last_tick + 1) *
                         kMicrosecondsPerTick},
                    {QStringLiteral("pid"), kProcess},
                    {QStringLiteral("tid"), kBufferThread}};
  if (begin) {
    event[QStringLiteral("args")] =
        QJsonObject{{QStringLiteral("category"), Str(MemoryCategoryName(b.buffer.category))},
                    {QStringLiteral("bytes"), Int(b.buffer.bytes)},
                    {QStringLiteral("offset"), Int(b.offset)},
                    {QStringLiteral("tensor"), b.buffer.tensor},
                    {QStringLiteral("sample"), static_cast<int>(b.buffer.sample)}};
  }
  return event;
}

}  // namespace

QByteArray RenderMondrian(const ReportData& data) {
  QJsonArray allocations;
  for (const MemoryReportBuffer& b : data.memory.buffers) {
    if (b.buffer.bytes == 0) continue;  // the schema wants size >= 1
    allocations.append(QJsonObject{
        {QStringLiteral("offset"), Int(b.offset)},
        {QStringLiteral("size"), Int(b.buffer.bytes)},
        {QStringLiteral("alive_from"), static_cast<qint64>(b.buffer.first_tick)},
        // The viewer draws [alive_from, alive_till): one past the last tick the buffer is live.
        {QStringLiteral("alive_till"), static_cast<qint64>(b.buffer.last_tick) + 1},
        {QStringLiteral("origin"), Str(b.name)},
        {QStringLiteral("category"), Str(MemoryCategoryName(b.buffer.category))},
        {QStringLiteral("phase"), Str(PhaseName(PhaseOfTick(data, b.buffer.first_tick)))},
        {QStringLiteral("tensor"), b.buffer.tensor},
        {QStringLiteral("sample"), static_cast<int>(b.buffer.sample)}});
  }
  const QString segment_name = data.inference ? QStringLiteral("arena (planned inference)")
                                              : QStringLiteral("arena (planned train step)");
  QJsonArray segments;
  segments.append(QJsonObject{{QStringLiteral("name"), segment_name},
                              {QStringLiteral("size"), Int(data.memory.arena_bytes)},
                              {QStringLiteral("allocations"), allocations}});
  QJsonArray ticks;
  for (const std::string& label : data.tick_labels) ticks.append(Str(label));
  const QJsonObject extension{
      {QStringLiteral("generator"), Str(data.generator)},
      {QStringLiteral("model"), Str(data.model_name)},
      {QStringLiteral("heap_peak_bytes"), Int(data.memory.heap_peak_bytes)},
      {QStringLiteral("lower_bound_bytes"), Int(data.memory.lower_bound_bytes)},
      {QStringLiteral("ticks"), ticks}};
  const QJsonObject root{{QStringLiteral("schema_version"), 1},
                         {QStringLiteral("segments"), segments},
                         {QStringLiteral("trainscope"), extension}};
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QByteArray RenderChromeTrace(const ReportData& data) {
  QJsonArray events;
  events.append(Metadata("process_name", 0,
                         QStringLiteral("TrainScope: ") + Str(data.model_name) +
                             (data.inference ? QStringLiteral(" (planned inference)")
                                             : QStringLiteral(" (planned train step)"))));
  for (Phase phase : {Phase::kForward, Phase::kBackward, Phase::kOptimizer}) {
    events.append(Metadata("thread_name", ThreadOf(phase), Str(PhaseName(phase))));
  }
  events.append(Metadata("thread_name", kBufferThread, QStringLiteral("buffers")));

  const size_t ticks = data.memory.rows.size();
  for (size_t t = 0; t <= ticks; ++t) {
    const qint64 ts = static_cast<qint64>(t) * kMicrosecondsPerTick;
    const bool end = t == ticks;  // closing samples so the counters drop to zero after the step
    if (!end) events.append(StepEvent(data, t));
    QJsonObject by_category;
    for (uint8_t c = 0; c < kMemoryCategoryCount; ++c) {
      by_category[Str(MemoryCategoryName(static_cast<MemoryCategory>(c)))] =
          end ? 0 : Int(data.tick_bytes[t][c]);
    }
    events.append(Counter("live bytes by category", ts, by_category));
    const MemoryStepRow* row = end ? nullptr : &data.memory.rows[t];
    events.append(
        Counter("heap", ts,
                QJsonObject{{QStringLiteral("live"), row ? Int(row->live_bytes) : 0},
                            {QStringLiteral("running peak"),
                             row ? Int(row->peak_bytes) : Int(data.memory.heap_peak_bytes)}}));
    events.append(
        Counter("planned arena top", ts,
                QJsonObject{{QStringLiteral("bytes"), row ? Int(row->arena_planned_bytes) : 0}}));
  }
  for (size_t i = 0; i < data.memory.buffers.size(); ++i) {
    events.append(BufferEvent(data.memory.buffers[i], i, true));
    events.append(BufferEvent(data.memory.buffers[i], i, false));
  }
  if (ticks > 0) {
    events.append(QJsonObject{
        {QStringLiteral("name"), QStringLiteral("heap peak")},
        {QStringLiteral("ph"), QStringLiteral("i")},
        {QStringLiteral("s"), QStringLiteral("p")},
        {QStringLiteral("ts"),
         static_cast<qint64>(data.memory.heap_peak_tick) * kMicrosecondsPerTick},
        {QStringLiteral("pid"), kProcess},
        {QStringLiteral("tid"), ThreadOf(PhaseOfTick(data, data.memory.heap_peak_tick))},
        {QStringLiteral("args"),
         QJsonObject{{QStringLiteral("bytes"), Int(data.memory.heap_peak_bytes)}}}});
  }
  const QJsonObject other{
      {QStringLiteral("generator"), Str(data.generator)},
      {QStringLiteral("model"), Str(data.model_name)},
      {QStringLiteral("time_unit"),
       QStringLiteral("one tick of the planned step = 1 ms of trace time (not measured time)")},
      {QStringLiteral("heap_peak_bytes"), Int(data.memory.heap_peak_bytes)},
      {QStringLiteral("arena_bytes"), Int(data.memory.arena_bytes)}};
  const QJsonObject root{{QStringLiteral("traceEvents"), events},
                         {QStringLiteral("displayTimeUnit"), QStringLiteral("ms")},
                         {QStringLiteral("otherData"), other}};
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

}  // namespace trainscope
