// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli memory MODEL [--train-layers N | --train-config FILE | --inference]
// [--optimizer sgd|adam] [--batch N] [--json]`: what one train step (or one inference) needs,
// tick by tick, as onert-micro's heap accounting and as a planned arena. See docs/cli.md.
#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include "app/cli/commands.h"
#include "app/common/cli_util.h"
#include "app/common/training_args.h"
#include "engine/memory/memory_report.h"

namespace trainscope::cli {
namespace {

QString OpText(const MemoryStepRow& row) {
  if (row.tick.op_index < 0) return QStringLiteral("-");
  const char* name = OpcodeName(row.opcode);
  return QStringLiteral("%1 %2").arg(row.tick.op_index).arg(QString::fromLatin1(name ? name : "?"));
}

QJsonObject ReportJson(const Graph& graph, const MemoryReport& report,
                       const TrainabilityConfig& config) {
  QJsonArray steps;
  for (const MemoryStepRow& row : report.rows) {
    steps.append(QJsonObject{
        {QStringLiteral("phase"), QString::fromLatin1(TickKindName(row.tick.kind))},
        {QStringLiteral("sample"), static_cast<int>(row.tick.sample)},
        {QStringLiteral("step"), static_cast<int>(row.tick.step)},
        {QStringLiteral("op_index"), row.tick.op_index},
        {QStringLiteral("opcode"), row.opcode >= 0 && OpcodeName(row.opcode)
                                       ? QString::fromLatin1(OpcodeName(row.opcode))
                                       : QString()},
        {QStringLiteral("live_bytes"), static_cast<qint64>(row.live_bytes)},
        {QStringLiteral("peak_bytes"), static_cast<qint64>(row.peak_bytes)},
        {QStringLiteral("arena_planned_bytes"), static_cast<qint64>(row.arena_planned_bytes)}});
  }
  QJsonArray buffers;
  for (const MemoryReportBuffer& b : report.buffers) {
    buffers.append(QJsonObject{
        {QStringLiteral("name"), QString::fromStdString(b.name)},
        {QStringLiteral("tensor"), b.buffer.tensor},
        {QStringLiteral("op_index"), b.buffer.op_index},
        {QStringLiteral("category"), QString::fromLatin1(MemoryCategoryName(b.buffer.category))},
        {QStringLiteral("bytes"), static_cast<qint64>(b.buffer.bytes)},
        {QStringLiteral("first_tick"), static_cast<int>(b.buffer.first_tick)},
        {QStringLiteral("last_tick"), static_cast<int>(b.buffer.last_tick)},
        {QStringLiteral("offset"), static_cast<qint64>(b.offset)}});
  }
  QJsonArray by_category;
  QJsonObject peak_by_category;
  for (uint8_t c = 0; c < kMemoryCategoryCount; ++c) {
    peak_by_category[QString::fromLatin1(MemoryCategoryName(static_cast<MemoryCategory>(c)))] =
        static_cast<qint64>(report.heap_peak_by_category[c]);
  }
  QJsonArray ops;
  for (size_t k = 0; k < report.selection.ops.size(); ++k) {
    const OpTrainability& op = report.selection.ops[k];
    ops.append(QJsonObject{{QStringLiteral("op_index"), static_cast<int>(k)},
                           {QStringLiteral("opcode"),
                            QString::fromLatin1(OpcodeName(graph.main().operators[k].opcode))},
                           {QStringLiteral("in_backward_range"), op.in_backward_range},
                           {QStringLiteral("trainable"), op.has_parameter_gradients},
                           {QStringLiteral("rank"), QString::fromLatin1(TrainRankName(op.rank))}});
  }
  QJsonArray warnings;
  for (const std::string& w : report.warnings) warnings.append(QString::fromStdString(w));
  return QJsonObject{
      {QStringLiteral("mode"),
       report.inference ? QStringLiteral("inference") : QStringLiteral("training")},
      {QStringLiteral("optimizer"), QString::fromLatin1(OptimizerName(report.optimizer))},
      {QStringLiteral("batch_size"), static_cast<qint64>(report.batch_size)},
      {QStringLiteral("step_model"), QString::fromLatin1(StepModelName(report.step_model))},
      {QStringLiteral("onert_heap_peak_bytes"), static_cast<qint64>(report.onert_heap_peak_bytes)},
      {QStringLiteral("train_layers"), static_cast<int>(config.num_train_layers)},
      {QStringLiteral("heap_peak_bytes"), static_cast<qint64>(report.heap_peak_bytes)},
      {QStringLiteral("heap_peak_tick"), static_cast<int>(report.heap_peak_tick)},
      {QStringLiteral("heap_peak_by_category"), peak_by_category},
      {QStringLiteral("arena_bytes"), static_cast<qint64>(report.arena_bytes)},
      {QStringLiteral("lower_bound_bytes"), static_cast<qint64>(report.lower_bound_bytes)},
      {QStringLiteral("fragmentation"), report.fragmentation},
      {QStringLiteral("arena_strategy"), QString::fromStdString(report.arena_strategy)},
      {QStringLiteral("operators"), ops},
      {QStringLiteral("steps"), steps},
      {QStringLiteral("buffers"), buffers},
      {QStringLiteral("warnings"), warnings}};
}

void PrintTable(const MemoryReport& report) {
  QTextStream out(stdout);
  out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
             .arg(QStringLiteral("tick"), 5)
             .arg(QStringLiteral("phase"), -10)
             .arg(QStringLiteral("step"), 5)
             .arg(QStringLiteral("op"), -22)
             .arg(QStringLiteral("live bytes"), 12)
             .arg(QStringLiteral("arena top"), 12);
  for (size_t t = 0; t < report.rows.size(); ++t) {
    const MemoryStepRow& row = report.rows[t];
    QString phase = QString::fromLatin1(TickKindName(row.tick.kind));
    if (row.tick.sample > 0) phase += QStringLiteral("#%1").arg(row.tick.sample);
    out << QStringLiteral("%1 %2 %3 %4 %5 %6%7\n")
               .arg(t, 5)
               .arg(phase, -10)
               .arg(row.tick.step, 5)
               .arg(OpText(row), -22)
               .arg(row.live_bytes, 12)
               .arg(row.arena_planned_bytes, 12)
               .arg(t == report.heap_peak_tick ? QStringLiteral("  <- peak") : QString());
  }
  const double ratio =
      report.lower_bound_bytes == 0
          ? 1.0
          : static_cast<double>(report.arena_bytes) / static_cast<double>(report.lower_bound_bytes);
  out << "\nplanned for: " << (report.inference ? "inference" : OptimizerName(report.optimizer));
  if (!report.inference) out << ", batch " << report.batch_size;
  out << "\nheap peak:   " << report.heap_peak_bytes << " bytes (tick " << report.heap_peak_tick
      << ")\n";
  if (report.onert_heap_peak_bytes > 0) {
    out << "onert-micro: " << report.onert_heap_peak_bytes
        << " bytes (its own step on a board, for comparison)\n";
  }
  out << "arena:       " << report.arena_bytes << " bytes ("
      << QString::fromStdString(report.arena_strategy) << ", " << QString::number(ratio, 'f', 3)
      << " x lower bound)\n"
      << "lower bound: " << report.lower_bound_bytes << " bytes\n";
  for (const std::string& w : report.warnings)
    out << "warning: " << QString::fromStdString(w) << "\n";
}

}  // namespace

int RunMemory(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Memory of one train step or inference, per tick."));
  AddStepPlanOptions(&parser);
  parser.addOption(
      {QStringLiteral("json"), QStringLiteral("Print a JSON document (see docs/cli.md).")});
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) return exit_status;
  if (parser.positionalArguments().size() != 1) {
    return Fail(QStringLiteral("memory takes exactly one MODEL file"), 2);
  }
  StepPlan plan;
  Status status = LoadStepPlan(parser, &plan);
  if (!status.ok()) return Fail(status);
  MemoryReport report;
  status = ComputeMemoryReport(plan.model.graph(), plan.trainability, plan.options, &report);
  if (!status.ok()) return Fail(status);
  if (parser.isSet(QStringLiteral("json"))) {
    std::fputs(QJsonDocument(ReportJson(plan.model.graph(), report, plan.trainability))
                   .toJson(QJsonDocument::Indented)
                   .constData(),
               stdout);
  } else {
    PrintTable(report);
  }
  return 0;
}

}  // namespace trainscope::cli
