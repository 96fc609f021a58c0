// SPDX-License-Identifier: Apache-2.0
//
// The question the Experiments dock answers, asked on the bundled demo in one window: all layers
// against the last 2 layers, from the same initial weights. Both curves are there and differ, the
// table's memory figures are the Layers panel's for the same choices, and running again - in the
// same window or in a new one after a restart of the app - gives the same curves.
#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "app/gui/app_controller.h"
#include "tests/app/app_test_setup.h"
#include "ui/controllers/experiment_controller.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/experiments/experiments_view.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"

namespace trainscope {

struct ExperimentWindow {
  std::shared_ptr<SessionStore> store = std::make_shared<SessionStore>();
  MainWindow window;
  AppController controller{&window, store};
  ExperimentController experiments;

  ExperimentWindow() {
    window.setStore(store);
    experiments.install(&window);
  }
  ~ExperimentWindow() {
    experiments.view()->stop();
    if (controller.source()) controller.source()->stop();
  }
  std::shared_ptr<const ExperimentSnapshot> runArms() {
    ExperimentsView* view = experiments.view();
    QSignalSpy finished(view, &ExperimentsView::finished);
    if (!view->run()) return nullptr;
    if (!finished.wait(30000)) return nullptr;
    return view->snapshot();
  }
};

class AppExperimentsWindowTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(testing::PrepareAppTest(settings_dir_, &demo_),
             "a scratch settings folder and the demo (the trainscope_demo target) are needed");
  }

  void allLayersAgainstTheLastTwoFromTheSameWeights() {
    ExperimentWindow app;
    QVERIFY(app.controller.open(demo_).ok());
    app.experiments.compareAction()->trigger();
    QVERIFY(app.experiments.dock()->isVisibleTo(&app.window));
    ExperimentsView* view = app.experiments.view();
    QCOMPARE(view->arms().size(), size_t{2});
    QCOMPARE(view->arms()[0].name, QStringLiteral("all layers"));
    QCOMPARE(view->arms()[1].name, QStringLiteral("last 2 layers"));
    view->setEpochs(6);
    const auto result = app.runArms();
    QVERIFY(result != nullptr);
    QVERIFY(!result->running && !result->cancelled);
    QCOMPARE(result->epochs, 6u);
    const ArmResult& all = result->arms[0];
    const ArmResult& last_two = result->arms[1];
    QCOMPARE(all.epoch_loss.size(), size_t{6});
    QCOMPARE(last_two.epoch_metric.size(), size_t{6});
    QCOMPARE(all.step_loss.front(), last_two.step_loss.front());  // the same initial weights
    // On the demo, what freezing costs in learning shows within a few epochs.
    QVERIFY2(
        all.epoch_loss.back() < 0.5 * last_two.epoch_loss.back(),
        qPrintable(
            QStringLiteral("%1 vs %2").arg(all.epoch_loss.back()).arg(last_two.epoch_loss.back())));
    QVERIFY(all.epoch_metric.back() > last_two.epoch_metric.back());

    // Both curves are drawn, one graph per arm, as many points as epochs.
    QCOMPARE(view->lossPlot()->graphCount(), 2);
    QCOMPARE(view->lossPlot()->graph(1)->data()->size(), 6);
    QCOMPARE(view->metricPlot()->graphCount(), 2);

    // The table's memory figures are the Layers panel's for the same choice (one computation).
    LayersPanel* layers = app.window.layersPanel();
    QTableWidget* table = view->table();
    for (int arm = 0; arm < 2; ++arm) {
      layers->lastNSpinBox()->setValue(static_cast<int>(
          result->arms[static_cast<size_t>(arm)].arm.trainability.num_train_layers));
      if (layers->hasPendingChange()) layers->apply();
      const LayersPanel::Estimate estimate = layers->appliedEstimate();
      const TrainabilityCost& cost = result->arms[static_cast<size_t>(arm)].cost;
      QCOMPARE(cost.heap_peak_bytes, estimate.heap_peak_bytes);
      QCOMPARE(cost.arena_bytes, estimate.arena_bytes);
      QCOMPARE(cost.trained_params, estimate.trained_params);
      QCOMPARE(table->item(arm, 3)->text(), FormatBytes(estimate.heap_peak_bytes));
      QCOMPARE(table->item(arm, 2)->text(), FormatBytes(estimate.arena_bytes));
      QCOMPARE(table->item(arm, 1)->text(), FormatCount(estimate.trained_params));
    }
    QCOMPARE(table->item(1, 4)->text(),
             FormatBytesDelta(static_cast<int64_t>(last_two.cost.heap_peak_bytes) -
                              static_cast<int64_t>(all.cost.heap_peak_bytes)));
    QVERIFY(last_two.cost.heap_peak_bytes < all.cost.heap_peak_bytes);

    // Again in the same window: the same curves.
    const auto again = app.runArms();
    QVERIFY(again != nullptr);
    for (size_t a = 0; a < 2; ++a) {
      QCOMPARE(again->arms[a].step_loss, result->arms[a].step_loss);
      QCOMPARE(again->arms[a].epoch_metric, result->arms[a].epoch_metric);
    }
    first_run_ = *result;
  }

  // A new window (the app restarted) reproduces the experiment exactly.
  void theResultReproducesAfterARestartOfTheApp() {
    QVERIFY(!first_run_.arms.empty());
    ExperimentWindow app;
    QVERIFY(app.controller.open(demo_).ok());
    app.experiments.view()->setEpochs(6);
    const auto result = app.runArms();
    QVERIFY(result != nullptr);
    for (size_t a = 0; a < 2; ++a) {
      QCOMPARE(result->arms[a].step_loss, first_run_.arms[a].step_loss);
      QCOMPARE(result->arms[a].epoch_metric, first_run_.arms[a].epoch_metric);
    }
  }

  void armsComeFromTheLayersPanelAndBadArmsAreSaid() {
    ExperimentWindow app;
    QVERIFY(app.controller.open(demo_).ok());
    ExperimentsView* view = app.experiments.view();
    view->setArms({});
    QVERIFY(!view->run());
    QVERIFY(view->statusLabel()->text().contains(QStringLiteral("at least one arm")));
    TrainabilityConfig outside;
    outside.op_ranks[40] = TrainRank::kAll;
    view->setArms({{QStringLiteral("broken"), outside}});
    QVERIFY(!view->run());
    QVERIFY2(view->statusLabel()->text().contains(QStringLiteral("arm 'broken'")),
             qPrintable(view->statusLabel()->text()));
    // Without a local session (a board or a replay would be the source) nothing runs.
    app.window.sessionHost()->switchTo(nullptr);
    view->setArms({{QStringLiteral("all layers"), TrainabilityConfig()}});
    QVERIFY(!view->run());
    QVERIFY(view->statusLabel()->text().contains(QStringLiteral("local engine")));
  }

 private:
  QTemporaryDir settings_dir_;
  SessionFiles demo_;
  ExperimentSnapshot first_run_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::AppExperimentsWindowTest)
#include "app_experiments_window_test.moc"
