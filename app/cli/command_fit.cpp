// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli fit MODEL --budget BYTES [--optimizer sgd|adam] [--batch N] [--json]
// [--save-config FILE] [--curve]`: the trainability configuration that fits a RAM budget and
// trains the most parameters (engine/memory/fit_search.h). See docs/cli.md.
#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <cstdio>

#include "app/cli/commands.h"
#include "app/common/cli_util.h"
#include "app/common/training_args.h"
#include "engine/memory/fit_search.h"
#include "engine/plan/train_config_file.h"

namespace trainscope::cli {
namespace {

qint64 Int(uint64_t value) {
  return static_cast<qint64>(value);
}

// "65536", "64K", "64KiB", "1M", "1MiB" (K = 1024).
Status ParseBudget(const QString& text, uint64_t* bytes) {
  static const QRegularExpression pattern(QStringLiteral("^\\s*(\\d+)\\s*(B|K|KiB|M|MiB)?\\s*$"),
                                          QRegularExpression::CaseInsensitiveOption);
  const QRegularExpressionMatch match = pattern.match(text);
  bool ok = match.hasMatch();
  const qulonglong value = ok ? match.captured(1).toULongLong(&ok) : 0;
  const QString unit = match.captured(2).toUpper();
  const uint64_t scale = unit.startsWith(QLatin1Char('M'))   ? 1024 * 1024
                         : unit.startsWith(QLatin1Char('K')) ? 1024
                                                             : 1;
  if (!ok || value > UINT64_MAX / scale) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "--budget '%s': expected bytes, e.g. 65536, 64K or 1M", qPrintable(text));
  }
  *bytes = value * scale;
  return Status::Ok();
}

QString OpName(const Subgraph& subgraph, uint32_t k) {
  const char* name =
      k < subgraph.operators.size() ? OpcodeName(subgraph.operators[k].opcode) : nullptr;
  return QString::fromLatin1(name != nullptr ? name : "?");
}

uint64_t RankParameters(const std::vector<FitCandidate>& candidates, uint32_t op, TrainRank rank) {
  for (const FitCandidate& c : candidates) {
    for (size_t r = 0; c.op_index == op && r < c.ranks.size(); ++r) {
      if (c.ranks[r] == rank) return c.rank_parameters[r];
    }
  }
  return 0;
}

QString ConfigText(const FitConfiguration& c) {
  QStringList parts;
  for (const auto& entry : c.config.op_ranks) {
    parts << QStringLiteral("op %1 %2")
                 .arg(entry.first)
                 .arg(QString::fromLatin1(TrainRankName(entry.second)));
  }
  return parts.join(QStringLiteral(", "));
}

QJsonObject ConfigJson(const Subgraph& subgraph, const std::vector<FitCandidate>& candidates,
                       const FitConfiguration& c) {
  QJsonArray ranks;
  for (const auto& entry : c.config.op_ranks) {
    ranks.append(
        QJsonObject{{QStringLiteral("op_index"), entry.first},
                    {QStringLiteral("opcode"), OpName(subgraph, entry.first)},
                    {QStringLiteral("rank"), QString::fromLatin1(TrainRankName(entry.second))},
                    {QStringLiteral("parameters"),
                     Int(RankParameters(candidates, entry.first, entry.second))}});
  }
  return QJsonObject{{QStringLiteral("op_ranks"), ranks},
                     {QStringLiteral("trained_parameters"), Int(c.trained_parameters)},
                     {QStringLiteral("heap_peak_bytes"), Int(c.heap_peak_bytes)},
                     {QStringLiteral("first_op"), static_cast<int>(c.first_op)}};
}

QJsonObject StatsJson(const FitSearchStats& s) {
  return QJsonObject{
      {QStringLiteral("space_size"), static_cast<double>(s.space_size)},
      {QStringLiteral("space_saturated"), s.space_saturated},
      {QStringLiteral("pruned_space_size"), static_cast<double>(s.pruned_space_size)},
      {QStringLiteral("evaluated"), Int(s.evaluated)},
      {QStringLiteral("elapsed_ms"), s.elapsed_ms},
      {QStringLiteral("exact"), s.exact},
      {QStringLiteral("method"), QString::fromStdString(s.method)}};
}

QString StatsText(const FitSearchStats& s) {
  return QStringLiteral(
             "search: %1 (%2); %3%4 configurations, %5 after pruning, %6 planned in %7 ms")
      .arg(s.exact ? QStringLiteral("exact") : QStringLiteral("approximate"),
           QString::fromStdString(s.method),
           s.space_saturated ? QStringLiteral("more than ") : QString())
      .arg(s.space_size)
      .arg(s.pruned_space_size)
      .arg(s.evaluated)
      .arg(s.elapsed_ms, 0, 'f', 1);
}

void PrintAnswer(const Subgraph& subgraph, const FitResult& fit, const QString& model_name,
                 const MemoryReportOptions& memory) {
  QStringList candidates;
  for (const FitCandidate& c : fit.candidates) {
    candidates << QStringLiteral("op %1 %2").arg(c.op_index).arg(OpName(subgraph, c.op_index));
  }
  std::printf("model %s: %zu operators; candidates: %s\n", qPrintable(model_name),
              subgraph.operators.size(), qPrintable(candidates.join(QStringLiteral(", "))));
  std::printf("budget %llu bytes, optimizer %s, batch %u\n\n",
              static_cast<unsigned long long>(fit.budget_bytes), OptimizerName(memory.optimizer),
              memory.batch_size);
  if (fit.fits) {
    std::printf(
        "fits: train %llu of %llu parameters with a heap peak of %llu bytes (%.1f %% of the "
        "budget)\n",
        static_cast<unsigned long long>(fit.best.trained_parameters),
        static_cast<unsigned long long>(fit.full.trained_parameters),
        static_cast<unsigned long long>(fit.best.heap_peak_bytes),
        fit.budget_bytes == 0 ? 0.0
                              : 100.0 * static_cast<double>(fit.best.heap_peak_bytes) /
                                    static_cast<double>(fit.budget_bytes));
    for (const auto& entry : fit.best.config.op_ranks) {
      std::printf("  op %3u %-18s %-15s %10llu parameters\n", entry.first,
                  qPrintable(OpName(subgraph, entry.first)), TrainRankName(entry.second),
                  static_cast<unsigned long long>(
                      RankParameters(fit.candidates, entry.first, entry.second)));
    }
  }
  std::printf("training every candidate with ALL needs %llu bytes (%llu parameters)\n",
              static_cast<unsigned long long>(fit.full.heap_peak_bytes),
              static_cast<unsigned long long>(fit.full.trained_parameters));
  for (const std::string& note : fit.notes) std::printf("note: %s\n", note.c_str());
  std::printf("%s\n", qPrintable(StatsText(fit.stats)));
}

void PrintCurve(const FitCurve& curve) {
  std::printf("\nbest trainable parameters vs budget (%s):\n",
              curve.stats.exact ? "exact steps" : "sampled budgets");
  std::printf("%14s %12s %14s  %s\n", "budget (B)", "parameters", "heap peak (B)", "configuration");
  for (const FitCurvePoint& p : curve.points) {
    std::printf("%14llu %12llu %14s  %s\n", static_cast<unsigned long long>(p.budget_bytes),
                static_cast<unsigned long long>(p.fits ? p.best.trained_parameters : 0),
                p.fits ? std::to_string(p.best.heap_peak_bytes).c_str() : "-",
                p.fits ? qPrintable(ConfigText(p.best)) : "nothing fits");
  }
  std::printf("%s\n", qPrintable(StatsText(curve.stats)));
}

}  // namespace

int RunFit(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Finds the trainability configuration that fits a RAM budget and trains the "
                     "most parameters."));
  AddModelArgument(&parser);
  parser.addOption({QStringLiteral("budget"),
                    QStringLiteral("RAM budget: bytes, or with K / M (1024)."),
                    QStringLiteral("BYTES")});
  AddOptimizerOption(&parser);
  AddBatchOption(&parser);
  parser.addOption(
      {QStringLiteral("json"), QStringLiteral("Print a JSON document (see docs/cli.md).")});
  parser.addOption({QStringLiteral("save-config"),
                    QStringLiteral("Write the answer as an onert-micro train-config file."),
                    QStringLiteral("FILE")});
  parser.addOption({QStringLiteral("curve"),
                    QStringLiteral("Also print the best trainable parameters vs budget.")});
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) return exit_status;
  if (parser.positionalArguments().size() != 1)
    return Fail(QStringLiteral("fit takes exactly one MODEL file"), 2);
  const bool curve_wanted = parser.isSet(QStringLiteral("curve"));
  if (!parser.isSet(QStringLiteral("budget")) && !curve_wanted) {
    return Fail(QStringLiteral("fit needs --budget BYTES (or --curve)"), 2);
  }
  const QString model_path = parser.positionalArguments().first();
  Model model;
  Status status = ReadModelFile(model_path.toStdString(), &model);
  if (!status.ok()) return Fail(status);
  // The same defaults as `memory`, `train` and the app: the model's metadata, then onert-micro's.
  FitOptions options;
  uint64_t budget = 0;
  TrainingSetup defaults;
  status = DefaultTrainingSetup(model, &defaults);
  options.memory.optimizer = defaults.options.optimizer;
  options.memory.batch_size = defaults.options.batch_size;
  if (status.ok() && parser.isSet(QStringLiteral("optimizer")))
    status = ParseOptimizer(parser.value(QStringLiteral("optimizer")), &options.memory.optimizer);
  if (status.ok())
    status = ParseUnsigned(parser, QStringLiteral("batch"), 1, &options.memory.batch_size);
  if (status.ok() && parser.isSet(QStringLiteral("budget"))) {
    status = ParseBudget(parser.value(QStringLiteral("budget")), &budget);
  }
  if (!status.ok()) return Fail(status);
  const Subgraph& subgraph = model.graph().main();
  const bool json = parser.isSet(QStringLiteral("json"));
  QJsonObject document{
      {QStringLiteral("model"), model_path},
      {QStringLiteral("optimizer"), QString::fromLatin1(OptimizerName(options.memory.optimizer))},
      {QStringLiteral("batch_size"), static_cast<int>(options.memory.batch_size)}};

  FitResult fit;
  const bool answer_wanted = parser.isSet(QStringLiteral("budget"));
  if (answer_wanted) {
    status = FindBestFit(model.graph(), budget, options, &fit);
    if (!status.ok()) return Fail(status);
    QJsonArray candidates, notes;
    for (const FitCandidate& c : fit.candidates) {
      QJsonArray ranks;
      for (size_t r = 0; r < c.ranks.size(); ++r) {
        ranks.append(
            QJsonObject{{QStringLiteral("rank"), QString::fromLatin1(TrainRankName(c.ranks[r]))},
                        {QStringLiteral("parameters"), Int(c.rank_parameters[r])}});
      }
      candidates.append(QJsonObject{{QStringLiteral("op_index"), static_cast<int>(c.op_index)},
                                    {QStringLiteral("opcode"), OpName(subgraph, c.op_index)},
                                    {QStringLiteral("ranks"), ranks}});
    }
    for (const std::string& note : fit.notes) notes.append(QString::fromStdString(note));
    document[QStringLiteral("budget_bytes")] = Int(budget);
    document[QStringLiteral("fits")] = fit.fits;
    document[QStringLiteral("best")] =
        fit.fits ? QJsonValue(ConfigJson(subgraph, fit.candidates, fit.best)) : QJsonValue();
    document[QStringLiteral("smallest")] = ConfigJson(subgraph, fit.candidates, fit.smallest);
    document[QStringLiteral("full")] = ConfigJson(subgraph, fit.candidates, fit.full);
    document[QStringLiteral("candidates")] = candidates;
    document[QStringLiteral("notes")] = notes;
    document[QStringLiteral("search")] = StatsJson(fit.stats);
    if (!json) PrintAnswer(subgraph, fit, model_path, options.memory);
  }
  if (curve_wanted) {
    FitCurve curve;
    status = ComputeFitCurve(model.graph(), options, &curve);
    if (!status.ok()) return Fail(status);
    QJsonArray points;
    for (const FitCurvePoint& p : curve.points) {
      points.append(QJsonObject{
          {QStringLiteral("budget_bytes"), Int(p.budget_bytes)},
          {QStringLiteral("fits"), p.fits},
          {QStringLiteral("best"),
           p.fits ? QJsonValue(ConfigJson(subgraph, curve.candidates, p.best)) : QJsonValue()}});
    }
    document[QStringLiteral("curve")] = QJsonObject{
        {QStringLiteral("points"), points}, {QStringLiteral("search"), StatsJson(curve.stats)}};
    if (!json) PrintCurve(curve);
  }
  if (answer_wanted && fit.fits && parser.isSet(QStringLiteral("save-config"))) {
    const QString path = parser.value(QStringLiteral("save-config"));
    std::vector<uint8_t> bytes;
    status = WriteTrainConfig(fit.best.config.op_ranks, &bytes);
    if (status.ok())
      status = WriteFileAtomically(path, reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (!status.ok()) return Fail(status);
    document[QStringLiteral("saved_config")] = path;
    if (!json)
      std::printf("wrote train-config %s (%zu entries)\n", qPrintable(path),
                  fit.best.config.op_ranks.size());
  }
  if (json) std::fputs(QJsonDocument(document).toJson(QJsonDocument::Indented).constData(), stdout);
  if (answer_wanted && !fit.fits) {
    return Fail(
        QStringLiteral(
            "no trainability configuration fits in %1 bytes; the smallest needs %2 bytes (%3)")
            .arg(budget)
            .arg(fit.smallest.heap_peak_bytes)
            .arg(ConfigText(fit.smallest)));
  }
  return 0;
}

}  // namespace trainscope::cli
