// SPDX-License-Identifier: Apache-2.0
//
// The layers panel's "Does it fit?": the answer it makes pending is FindBestFit's for the same
// budget and session options, its heap peak is the memory report's, an impossible budget changes
// nothing and names the budget that would do, and the search leaves the GUI thread free.
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>

#include "engine/memory/fit_search.h"
#include "engine/memory/memory_report.h"
#include "tests/ui/test_models.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/layers/fit_summary.h"
#include "ui/widgets/layers/layers_model.h"
#include "ui/widgets/layers/layers_panel.h"

namespace trainscope {
namespace {

constexpr int kSearchTimeoutMs = 5000;

// The session the panel is told about: Adam with batches of 2, so a search that ignored the
// session's options (SGD, batch 1 are the defaults) would plan smaller peaks and answer
// differently.
TrainingOptions SessionOptions() {
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.batch_size = 2;
  return options;
}

MemoryReportOptions ReportOptions() {
  MemoryReportOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.batch_size = 2;
  return options;
}

FitResult ReferenceFit(const Graph& graph, uint64_t budget) {
  FitOptions options;
  options.memory = ReportOptions();
  FitResult fit;
  if (!FindBestFit(graph, budget, options, &fit).ok()) return FitResult();
  return fit;
}

uint64_t ReportedHeapPeak(const Graph& graph, const TrainabilityConfig& config) {
  MemoryReport report;
  if (!ComputeMemoryReport(graph, config, ReportOptions(), &report).ok()) return 0;
  return report.heap_peak_bytes;
}

}  // namespace

class LayersFitTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    graph_ = testing::MakeMlp({32, 24, 16, 8});  // FC RELU FC RELU FC SOFTMAX
    QCOMPARE(graph_.main().operators.size(), size_t{6});
    panel_ = std::make_unique<LayersPanel>();
    panel_->setGraph(graph_);
    panel_->setTrainingOptions(SessionOptions());
    // The estimator the app installs: the memory report of the session's optimizer and batch.
    const Graph graph = graph_;
    panel_->setEstimator([graph](uint32_t last_n, const TrainRankMap& ranks) {
      TrainabilityConfig config;
      config.num_train_layers = last_n;
      config.op_ranks = ranks;
      LayersPanel::Estimate estimate;
      MemoryReport report;
      if (ComputeMemoryReport(graph, config, ReportOptions(), &report).ok()) {
        estimate.heap_peak_bytes = report.heap_peak_bytes;
        estimate.arena_bytes = report.arena_bytes;
      }
      estimate.trained_params =
          TrainedParameterCount(graph.main(), ResolveTrainability(graph.main(), config));
      return estimate;
    });
  }
  void cleanup() { panel_.reset(); }

  void fittedPendingChoiceIsTheSearchAnswerAndItsPeakIsTheReportedOne() {
    // A budget halfway between the smallest configuration and training everything, so the
    // answer has to leave something out.
    // (Nothing fits in one byte, so the exact search plans every configuration and `smallest`
    // is the model's minimum.)
    const FitResult nothing = ReferenceFit(graph_, 1);
    QVERIFY(!nothing.fits);
    QVERIFY(nothing.smallest.heap_peak_bytes < nothing.full.heap_peak_bytes);
    const uint64_t budget = (nothing.smallest.heap_peak_bytes + nothing.full.heap_peak_bytes) / 2;
    const FitResult expected = ReferenceFit(graph_, budget);
    QVERIFY(expected.fits);
    QVERIFY(expected.best.trained_parameters < nothing.full.trained_parameters);
    QVERIFY(expected.best.heap_peak_bytes <= budget);

    panel_->setFitBudgetBytes(budget);
    QCOMPARE(panel_->fitBudgetBytes(), budget);
    QSignalSpy finished(panel_.get(), &LayersPanel::fitFinished);
    panel_->startFit();
    QVERIFY(finished.wait(kSearchTimeoutMs));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.front().front().toBool(), true);

    const TrainabilityConfig& pending = panel_->pendingTrainability();
    QCOMPARE(pending.num_train_layers, 0u);
    QVERIFY(pending.op_ranks == expected.best.config.op_ranks);
    QVERIFY(panel_->appliedTrainability() != pending);  // pending only: the user applies
    QVERIFY(panel_->applyButton()->isEnabled());

    const uint64_t peak = ReportedHeapPeak(graph_, pending);
    QVERIFY(peak > 0);
    QVERIFY(peak <= budget);
    QCOMPARE(peak, expected.best.heap_peak_bytes);
    QVERIFY2(panel_->previewLabel()->text().contains(FormatBytes(peak)),
             qPrintable(panel_->previewLabel()->text()));
    const QString message = panel_->fitMessageLabel()->text();
    QVERIFY2(message.contains(FormatBytes(peak)), qPrintable(message));
    QVERIFY2(message.contains(FormatCount(expected.stats.space_size)), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral(" ms")), qPrintable(message));

    // The curve: a step plot plus the chosen answer, shown on demand.
    QVERIFY(panel_->fitCurveToggle()->isEnabled());
    QVERIFY(panel_->fitCurvePlot()->isHidden());
    panel_->fitCurveToggle()->setChecked(true);
    QVERIFY(!panel_->fitCurvePlot()->isHidden());
    QCOMPARE(panel_->fitCurvePlot()->graphCount(), 2);
    QVERIFY(panel_->fitCurvePlot()->graph(0)->dataCount() >= 2);

    panel_->apply();
    QVERIFY(panel_->appliedTrainability().op_ranks == expected.best.config.op_ranks);
  }

  void budgetNothingFitsUnderChangesNothingAndNamesTheSmallestBudget() {
    panel_->lastNSpinBox()->setValue(2);
    const TrainabilityConfig before = panel_->pendingTrainability();
    QCOMPARE(before.num_train_layers, 2u);
    const uint64_t budget = 1;
    const FitResult expected = ReferenceFit(graph_, budget);
    QVERIFY(!expected.fits);
    QVERIFY(expected.smallest.heap_peak_bytes > budget);

    panel_->setFitBudgetBytes(budget);
    QSignalSpy finished(panel_.get(), &LayersPanel::fitFinished);
    panel_->startFit();
    QVERIFY(finished.wait(kSearchTimeoutMs));
    QCOMPARE(finished.front().front().toBool(), false);
    QVERIFY(panel_->pendingTrainability() == before);
    const QString message = panel_->fitMessageLabel()->text();
    QVERIFY2(message.contains(QStringLiteral("Nothing fits")), qPrintable(message));
    QVERIFY2(message.contains(QString::number(expected.smallest.heap_peak_bytes)),
             qPrintable(message));
  }

  void searchRunsOffTheGuiThreadAndReportsLater() {
    panel_->setFitBudgetBytes(UINT64_MAX / 2);
    QSignalSpy finished(panel_.get(), &LayersPanel::fitFinished);
    panel_->startFit();
    // startFit returned without an answer: the search is on another thread and the result
    // arrives through the event loop.
    QVERIFY(panel_->fitRunning());
    QCOMPARE(finished.count(), 0);
    QVERIFY(panel_->lastFit() == nullptr);
    QVERIFY(!panel_->fitButton()->isEnabled());
    QVERIFY(panel_->fitMessageLabel()->text().startsWith(QStringLiteral("Searching")));
    panel_->startFit();  // a second press while searching is ignored
    QVERIFY(finished.wait(kSearchTimeoutMs));
    QTest::qWait(50);
    QCOMPARE(finished.count(), 1);
    QVERIFY(!panel_->fitRunning());
    QVERIFY(panel_->fitButton()->isEnabled());
    QVERIFY(panel_->lastFit() != nullptr);
  }

  void searchOfAReplacedGraphIsDropped() {
    panel_->setFitBudgetBytes(UINT64_MAX / 2);
    QSignalSpy finished(panel_.get(), &LayersPanel::fitFinished);
    panel_->startFit();
    panel_->setGraph(testing::MakeMlp({16, 8, 4}));
    QVERIFY(finished.wait(kSearchTimeoutMs));
    QCOMPARE(finished.front().front().toBool(), false);
    QVERIFY(panel_->pendingTrainability() == TrainabilityConfig());
    QVERIFY(panel_->lastFit() == nullptr);
  }

  void summaryOfASearchErrorSaysWhy() {
    // SOFTMAX alone has no parameter to train: no candidate operator.
    ModelBuilder b;
    const int x = b.AddTensor("x", {1, 4});
    const int y = b.AddTensor("y", {1, 4});
    b.SetInputs({x});
    b.AddOperator(op::kSoftmax, {x}, {y});
    b.SetOutputs({y});
    const Graph graph = testing::FinishGraph(b);
    QVERIFY(!graph.subgraphs.empty());
    const FitRun run = RunFitSearch(graph, 4096, SessionOptions(), /*with_curve=*/true);
    QVERIFY(!run.status.ok());
    QVERIFY(!run.has_curve);
    QVERIFY(FitSummaryText(run).startsWith(QStringLiteral("Cannot search: ")));
  }

 private:
  Graph graph_;
  std::unique_ptr<LayersPanel> panel_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::LayersFitTest)
#include "layers_fit_test.moc"
