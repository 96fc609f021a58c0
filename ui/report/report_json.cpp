// SPDX-License-Identifier: Apache-2.0
//
// The JSON report (schema in docs/reports.md) and the two CSV tables.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include "ui/report/report_export.h"

namespace trainscope {
namespace {

QString Str(const std::string& text) {
  return QString::fromStdString(text);
}
QString Str(const char* text) {
  return QString::fromLatin1(text);
}
qint64 Int(uint64_t value) {
  return static_cast<qint64>(value);
}

QJsonObject CategoryObject(const uint64_t* bytes) {
  QJsonObject object;
  for (uint8_t c = 0; c < kMemoryCategoryCount; ++c) {
    object[Str(MemoryCategoryName(static_cast<MemoryCategory>(c)))] = Int(bytes[c]);
  }
  return object;
}

QJsonObject SetupObject(const ReportData& data) {
  QJsonArray ranks;
  for (const auto& entry : data.trainability.op_ranks) {
    ranks.append(QJsonObject{{QStringLiteral("op_index"), entry.first},
                             {QStringLiteral("rank"), Str(TrainRankName(entry.second))}});
  }
  return QJsonObject{
      {QStringLiteral("mode"),
       data.inference ? QStringLiteral("inference") : QStringLiteral("training")},
      {QStringLiteral("optimizer"), Str(OptimizerName(data.optimizer))},
      {QStringLiteral("batch_size"), static_cast<int>(data.batch_size)},
      {QStringLiteral("num_train_layers"), static_cast<int>(data.trainability.num_train_layers)},
      {QStringLiteral("op_ranks"), ranks},
      {QStringLiteral("trainability"), Str(data.trainability_text)},
      {QStringLiteral("trained_parameters"), Int(data.trained_parameters)}};
}

QJsonArray OperatorArray(const ReportData& data) {
  QJsonArray operators;
  for (const ReportOperator& op : data.operators) {
    operators.append(QJsonObject{
        {QStringLiteral("index"), static_cast<int>(op.index)},
        {QStringLiteral("opcode"), Str(op.opcode)},
        {QStringLiteral("output"), Str(op.output)},
        {QStringLiteral("in_backward_range"), op.in_backward_range},
        {QStringLiteral("backward_step"),
         op.in_backward_range ? QJsonValue(static_cast<int>(op.backward_step)) : QJsonValue()},
        {QStringLiteral("trainable"), op.trainable},
        {QStringLiteral("rank"),
         op.trainable ? QJsonValue(Str(TrainRankName(op.rank))) : QJsonValue()},
        {QStringLiteral("parameters"), Int(op.parameters)},
        {QStringLiteral("trained_parameters"), Int(op.trained_parameters)}});
  }
  return operators;
}

QJsonArray TickArray(const ReportData& data) {
  QJsonArray ticks;
  for (size_t t = 0; t < data.memory.rows.size(); ++t) {
    const MemoryStepRow& row = data.memory.rows[t];
    ticks.append(QJsonObject{
        {QStringLiteral("tick"), static_cast<int>(t)},
        {QStringLiteral("kind"), Str(TickKindName(row.tick.kind))},
        {QStringLiteral("phase"), Str(PhaseName(row.tick.phase()))},
        {QStringLiteral("sample"), static_cast<int>(row.tick.sample)},
        {QStringLiteral("step"), static_cast<int>(row.tick.step)},
        {QStringLiteral("op_index"), row.tick.op_index},
        {QStringLiteral("label"), Str(data.tick_labels[t])},
        {QStringLiteral("live_bytes"), Int(row.live_bytes)},
        {QStringLiteral("peak_bytes"), Int(row.peak_bytes)},
        {QStringLiteral("arena_top_bytes"), Int(row.arena_planned_bytes)},
        {QStringLiteral("live_by_category"), CategoryObject(data.tick_bytes[t].data())}});
  }
  return ticks;
}

QJsonArray BufferArray(const ReportData& data) {
  QJsonArray buffers;
  for (size_t i = 0; i < data.memory.buffers.size(); ++i) {
    const MemoryReportBuffer& b = data.memory.buffers[i];
    buffers.append(
        QJsonObject{{QStringLiteral("id"), static_cast<int>(i)},
                    {QStringLiteral("name"), Str(b.name)},
                    {QStringLiteral("tensor"), b.buffer.tensor},
                    {QStringLiteral("op_index"), b.buffer.op_index},
                    {QStringLiteral("category"), Str(MemoryCategoryName(b.buffer.category))},
                    {QStringLiteral("storage"), Str(BufferStorageName(b.buffer.storage))},
                    {QStringLiteral("sample"), static_cast<int>(b.buffer.sample)},
                    {QStringLiteral("bytes"), Int(b.buffer.bytes)},
                    {QStringLiteral("offset"), Int(b.offset)},
                    {QStringLiteral("first_tick"), static_cast<int>(b.buffer.first_tick)},
                    {QStringLiteral("last_tick"), static_cast<int>(b.buffer.last_tick)},
                    {QStringLiteral("persistent"), b.buffer.persistent}});
  }
  return buffers;
}

// RFC 4180: quote fields holding a separator, a quote or a line break.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

QByteArray RenderReportJson(const ReportData& data) {
  const MemoryReport& m = data.memory;
  QJsonArray warnings;
  for (const std::string& w : m.warnings) warnings.append(Str(w));
  const QJsonObject summary{
      {QStringLiteral("heap_peak_bytes"), Int(m.heap_peak_bytes)},
      {QStringLiteral("heap_peak_tick"), static_cast<int>(m.heap_peak_tick)},
      {QStringLiteral("heap_peak_by_category"), CategoryObject(m.heap_peak_by_category)},
      {QStringLiteral("arena_bytes"), Int(m.arena_bytes)},
      {QStringLiteral("lower_bound_bytes"), Int(m.lower_bound_bytes)},
      {QStringLiteral("fragmentation"), m.fragmentation},
      {QStringLiteral("arena_strategy"), Str(m.arena_strategy)},
      {QStringLiteral("tick_count"), static_cast<int>(m.rows.size())},
      {QStringLiteral("buffer_count"), static_cast<int>(m.buffers.size())}};
  const QJsonObject model{{QStringLiteral("name"), Str(data.model_name)},
                          {QStringLiteral("description"), Str(data.model_description)},
                          {QStringLiteral("operators"), static_cast<int>(data.operator_count)},
                          {QStringLiteral("parameters"), Int(data.model_parameters)}};
  const QJsonObject root{{QStringLiteral("schema"), QStringLiteral("trainscope-memory-report")},
                         {QStringLiteral("schema_version"), 1},
                         {QStringLiteral("generator"), Str(data.generator)},
                         {QStringLiteral("model"), model},
                         {QStringLiteral("setup"), SetupObject(data)},
                         {QStringLiteral("summary"), summary},
                         {QStringLiteral("operators"), OperatorArray(data)},
                         {QStringLiteral("ticks"), TickArray(data)},
                         {QStringLiteral("buffers"), BufferArray(data)},
                         {QStringLiteral("warnings"), warnings}};
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QByteArray RenderTicksCsv(const ReportData& data) {
  std::string out = "tick,kind,sample,step,op_index,label,live_bytes,peak_bytes,arena_top_bytes";
  for (uint8_t c = 0; c < kMemoryCategoryCount; ++c) {
    out += std::string(",") + MemoryCategoryName(static_cast<MemoryCategory>(c));
  }
  out += "\r\n";
  for (size_t t = 0; t < data.memory.rows.size(); ++t) {
    const MemoryStepRow& row = data.memory.rows[t];
    out += std::to_string(t) + "," + TickKindName(row.tick.kind) + "," +
           std::to_string(row.tick.sample) + "," + std::to_string(row.tick.step) + "," +
           std::to_string(row.tick.op_index) + "," + CsvField(data.tick_labels[t]) + "," +
           std::to_string(row.live_bytes) + "," + std::to_string(row.peak_bytes) + "," +
           std::to_string(row.arena_planned_bytes);
    for (uint64_t bytes : data.tick_bytes[t]) out += "," + std::to_string(bytes);
    out += "\r\n";
  }
  return QByteArray::fromStdString(out);
}

QByteArray RenderBuffersCsv(const ReportData& data) {
  std::string out =
      "id,name,tensor,op_index,category,storage,sample,bytes,offset,first_tick,last_tick,"
      "persistent\r\n";
  for (size_t i = 0; i < data.memory.buffers.size(); ++i) {
    const MemoryReportBuffer& b = data.memory.buffers[i];
    out += std::to_string(i) + "," + CsvField(b.name) + "," + std::to_string(b.buffer.tensor) +
           "," + std::to_string(b.buffer.op_index) + "," + MemoryCategoryName(b.buffer.category) +
           "," + BufferStorageName(b.buffer.storage) + "," + std::to_string(b.buffer.sample) + "," +
           std::to_string(b.buffer.bytes) + "," + std::to_string(b.offset) + "," +
           std::to_string(b.buffer.first_tick) + "," + std::to_string(b.buffer.last_tick) + "," +
           (b.buffer.persistent ? "1" : "0") + "\r\n";
  }
  return QByteArray::fromStdString(out);
}

}  // namespace trainscope
