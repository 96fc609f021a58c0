// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/layers/fit_summary.h"

#include <QCoreApplication>
#include <QStringList>

#include "ui/widgets/common/format.h"

namespace trainscope {
namespace {

QString Tr(const char* text) {
  return QCoreApplication::translate("FitSummary", text);
}

}  // namespace

FitOptions FitOptionsForTraining(const TrainingOptions& training) {
  FitOptions options;
  options.memory.optimizer = training.optimizer;
  options.memory.batch_size = training.batch_size;
  options.memory.inference = false;
  return options;
}

FitRun RunFitSearch(const Graph& graph, uint64_t budget_bytes, const TrainingOptions& training,
                    bool with_curve) {
  const FitOptions options = FitOptionsForTraining(training);
  FitRun run;
  run.budget_bytes = budget_bytes;
  run.optimizer = options.memory.optimizer;
  run.batch_size = options.memory.batch_size;
  run.status = FindBestFit(graph, budget_bytes, options, &run.result);
  if (run.status.ok() && with_curve) {
    // The curve is a companion: when it fails the answer still stands, just without the plot.
    run.has_curve = ComputeFitCurve(graph, options, &run.curve).ok();
  }
  return run;
}

QString FitConfigurationText(const FitConfiguration& configuration) {
  QStringList parts;
  for (const auto& entry : configuration.config.op_ranks) {
    parts << QStringLiteral("op %1 %2")
                 .arg(entry.first)
                 .arg(QString::fromLatin1(TrainRankName(entry.second)));
  }
  return parts.join(QStringLiteral(", "));
}

QString FitSearchStatsText(const FitSearchStats& stats) {
  return Tr("%1 search over %2%3 configurations (%4 after pruning), %5 planned in %6 ms")
      .arg(stats.exact ? Tr("Exact") : Tr("Approximate"),
           stats.space_saturated ? Tr("more than ") : QString(), FormatCount(stats.space_size),
           FormatCount(stats.pruned_space_size), FormatCount(stats.evaluated))
      .arg(stats.elapsed_ms, 0, 'f', 1);
}

QString FitSummaryText(const FitRun& run) {
  if (!run.status.ok()) {
    return Tr("Cannot search: %1").arg(QString::fromUtf8(run.status.message()));
  }
  const FitResult& fit = run.result;
  QString text;
  if (fit.fits) {
    const double share = run.budget_bytes == 0
                             ? 0.0
                             : 100.0 * static_cast<double>(fit.best.heap_peak_bytes) /
                                   static_cast<double>(run.budget_bytes);
    text = Tr("Fits in %1: training %2 of the %3 parameters the search may train, heap peak %4 "
              "(%5 % of the budget): %6. Press Apply to use it.")
               .arg(FormatBytes(run.budget_bytes), FormatCount(fit.best.trained_parameters),
                    FormatCount(fit.full.trained_parameters), FormatBytes(fit.best.heap_peak_bytes))
               .arg(share, 0, 'f', 1)
               .arg(FitConfigurationText(fit.best));
  } else {
    // An exact search planned every configuration, so its smallest is the model's minimum.
    text = Tr("Nothing fits in %1: the smallest feasible budget is %2%3 bytes (%4: %5). "
              "The pending choice is unchanged.")
               .arg(FormatBytes(run.budget_bytes), fit.stats.exact ? QString() : Tr("at most "),
                    QString::number(fit.smallest.heap_peak_bytes),
                    FormatBytes(fit.smallest.heap_peak_bytes), FitConfigurationText(fit.smallest));
  }
  text += QLatin1Char('\n') + FitSearchStatsText(fit.stats) + QLatin1Char('.');
  for (const std::string& note : fit.notes)
    text += QLatin1Char('\n') + QString::fromStdString(note);
  return text;
}

}  // namespace trainscope
