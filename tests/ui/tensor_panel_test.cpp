// SPDX-License-Identifier: Apache-2.0
//
// Tensor values: the summary's figures against a hand-computed case; the local engine answering
// requests before training, at a pause and after the update, checked against what SGD did to the
// weights; the panel showing an answer (figures, table, NaN in red), a source's reason when it has
// none, and dropping answers to older requests; the window's dock following the graph selection.
#include <QApplication>
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include <cmath>
#include <limits>

#include "tests/engine/exec/test_models.h"
#include "ui/session/app_settings.h"
#include "ui/session/sources/local_event_source.h"
#include "ui/session/tensor_values.h"
#include "ui/session/trainability.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/tensors/tensor_panel.h"

namespace trainscope {

using T = testing::ConvNetTensors;

// Sends no values: the default answer of EventSource.
class SilentSource : public EventSource {
  Q_OBJECT

 public:
  using EventSource::EventSource;
  QString description() const override { return QStringLiteral("fake board"); }
  void start() override {}
  void pause() override {}
  void resume() override {}
  void stepBackwardOp() override {}
  void stepSample() override {}
  void stepBatch() override {}
  void stop() override {}
  void setTrainability(uint32_t, const std::map<uint16_t, TrainRank>&) override {}
  void answer(TensorValuesPtr values) { Q_EMIT tensorValuesReady(std::move(values)); }
};

class TensorPanelTest : public QObject {
  Q_OBJECT

  static LocalSetup Setup() {
    LocalSetup setup;
    setup.options.loss = LossKind::kSparseCrossEntropy;
    setup.options.metric = MetricKind::kSparseCrossEntropyAccuracy;
    setup.options.optimizer = OptimizerKind::kSgd;
    setup.options.learning_rate = 0.1f;
    setup.options.epochs = 1000000;  // runs until stopped, however fast the engine is
    setup.train = testing::ConvNetData(6);
    return setup;
  }

  // Requests and waits for the answer.
  static TensorValuesPtr Read(LocalEventSource& source, int32_t tensor, TensorAspect aspect) {
    QSignalSpy spy(&source, &EventSource::tensorValuesReady);
    source.requestTensorValues({tensor, aspect});
    if (spy.isEmpty() && !spy.wait(5000)) return nullptr;
    return spy.front().front().value<TensorValuesPtr>();
  }

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void summaryCountsEveryKindOfValue() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const TensorSummary summary = SummarizeTensor({-1.0f, 0.0f, 1.0f, 2.0f, nan, -inf, 0.0f}, 3);
    QCOMPARE(summary.count, size_t{7});
    QCOMPARE(summary.nan, size_t{1});
    QCOMPARE(summary.inf, size_t{1});
    QCOMPARE(summary.zeros, size_t{2});
    QCOMPARE(summary.min, -1.0f);
    QCOMPARE(summary.max, 2.0f);
    QVERIFY(std::abs(summary.mean - 0.4) < 1e-12);            // (-1 + 0 + 1 + 2 + 0) / 5
    QVERIFY(std::abs(summary.rms - std::sqrt(1.2)) < 1e-12);  // (1 + 0 + 1 + 4 + 0) / 5
    // Bins of width 1 over [-1, 2]: {-1}, {0, 0}, {1, 2} (the maximum closes the last bin).
    QCOMPARE(summary.bins, (std::vector<uint32_t>{1, 2, 2}));
    const TensorSummary constant = SummarizeTensor({0.5f, 0.5f}, 40);
    QCOMPARE(constant.bins, std::vector<uint32_t>{2});
    const TensorSummary empty = SummarizeTensor({nan}, 40);
    QVERIFY(empty.bins.empty());
    QCOMPARE(GridOf({5, 12}, 60).rows, size_t{5});
    QCOMPARE(GridOf({2, 3, 4}, 24).columns, size_t{4});
    QCOMPARE(GridOf({2, 3, 4}, 24).rows, size_t{6});
    QCOMPARE(GridOf({}, 1).columns, size_t{1});
  }

  // The chooser and the graph's tooltips name parameters as the kernel registrations train them.
  void parameterRolesFollowTheRegistrations() {
    const Model gru = testing::GruRegression();
    const Subgraph& sg = gru.graph().main();
    const Operator& cell = sg.operators[0];
    QCOMPARE(ParameterRole(sg, cell, 0), QString());  // the input sequence is computed
    QCOMPARE(ParameterRole(sg, cell, 1), QStringLiteral("weights"));
    QCOMPARE(ParameterRole(sg, cell, 2), QStringLiteral("bias"));
    QCOMPARE(ParameterRole(sg, cell, 3), QStringLiteral("weights"));
    QCOMPARE(ParameterRole(sg, cell, 4), QStringLiteral("bias"));
    QCOMPARE(ParameterRole(sg, cell, 9), QString());  // no such input
    const Model convnet = testing::ConvNet();
    const Subgraph& net = convnet.graph().main();
    QCOMPARE(ParameterRole(net, net.operators[2], 1),
             QStringLiteral("constant"));  // RESHAPE's shape
  }

  void localEngineAnswersAtEveryPointOfTheStep() {
    auto store = std::make_shared<SessionStore>();
    LocalEventSource source(store);
    QVERIFY(source.load(testing::ConvNet(), Setup(), QStringLiteral("convnet")).ok());

    const TensorValuesPtr initial = Read(source, T::kFc2W, TensorAspect::kValue);
    QVERIFY(initial);
    QVERIFY2(initial->unavailable.isEmpty(), qPrintable(initial->unavailable));
    QCOMPARE(initial->values, testing::Floats(testing::ConvNet(), T::kFc2W));
    QVERIFY(initial->where.contains(QStringLiteral("initial weights")));
    QCOMPARE(initial->tensor_name, QStringLiteral("fc2/w"));

    // Paused at the end of the first sample: the gradient is the sample's, not yet applied.
    source.stepSample();
    QTRY_COMPARE_WITH_TIMEOUT(source.state(), EventSource::State::kPaused, 10000);
    const TensorValuesPtr gradient = Read(source, T::kFc2W, TensorAspect::kGradient);
    QVERIFY(gradient);
    QVERIFY2(gradient->unavailable.isEmpty(), qPrintable(gradient->unavailable));
    QVERIFY2(gradient->where.contains(QStringLiteral("after sample 0 of optimizer step 1")),
             qPrintable(gradient->where));
    const TensorValuesPtr unchanged = Read(source, T::kFc2W, TensorAspect::kValue);
    QCOMPARE(unchanged->values, initial->values);
    // Activations of the finished sample are gone, and the answer says why.
    const TensorValuesPtr activation = Read(source, 9, TensorAspect::kValue);
    QVERIFY(activation->values.empty());
    QVERIFY(activation->unavailable.contains(QStringLiteral("not held")));

    // The update applies exactly the gradient read (batch 1, SGD).
    source.stepBatch();
    QTRY_VERIFY_WITH_TIMEOUT(Read(source, T::kFc2W, TensorAspect::kValue)->where ==
                                 QStringLiteral("after optimizer step 1"),
                             10000);
    QCOMPARE(source.state(), EventSource::State::kPaused);
    const TensorValuesPtr updated = Read(source, T::kFc2W, TensorAspect::kValue);
    QCOMPARE(updated->values.size(), initial->values.size());
    float largest = 0.0f;
    for (size_t i = 0; i < updated->values.size(); ++i) {
      QVERIFY(std::abs(initial->values[i] - 0.1f * gradient->values[i] - updated->values[i]) <
              1e-6f);
      largest = std::max(largest, std::abs(gradient->values[i]));
    }
    QVERIFY(largest > 1e-3f);

    // While running at full speed a request is answered at the next boundary.
    source.resume();
    QTRY_COMPARE(source.state(), EventSource::State::kRunning);
    const TensorValuesPtr running = Read(source, T::kConvW, TensorAspect::kValue);
    QVERIFY(running);
    QCOMPARE(running->values.size(), size_t{27});
    source.stop();
    const TensorValuesPtr stopped = Read(source, T::kConvW, TensorAspect::kAdamM);
    QVERIFY(stopped->unavailable.contains(QStringLiteral("SGD")));
  }

  void panelShowsFiguresTableAndReason() {
    auto store = std::make_shared<SessionStore>();
    SilentSource source(store);
    TensorPanel panel;
    panel.setGraph(testing::ConvNet().graph());
    panel.setSource(&source);
    panel.selectOps({3});
    // FC 3 reads flat (6), fc1/w (7), fc1/b (8) and writes fc1/y (9).
    QCOMPARE(panel.choices(), (QList<int32_t>{6, 7, 8, 9}));
    panel.choose(T::kFc1W, TensorAspect::kValue);
    QTRY_VERIFY(panel.summaryText().contains(QStringLiteral("fake board sends no tensor values")));
    QCOMPARE(panel.tableModel()->rowCount(), 0);

    auto values = std::make_shared<TensorValues>();
    values->request = {T::kFc1W, TensorAspect::kValue};
    values->tensor_name = QStringLiteral("fc1/w");
    values->shape = {2, 3};
    values->values = {1.0f, -2.0f, std::numeric_limits<float>::quiet_NaN(), 0.0f, 4.0f, 0.5f};
    values->where = QStringLiteral("at a test point");
    source.answer(values);
    QCOMPARE(panel.shown().get(), values.get());
    QVERIFY(panel.summaryText().contains(QStringLiteral("min -2")));
    QVERIFY(panel.summaryText().contains(QStringLiteral("max 4")));
    QVERIFY(panel.summaryText().contains(QStringLiteral("NaN 1")));
    QVERIFY(panel.whereText().contains(QStringLiteral("at a test point")));
    QCOMPARE(panel.tableModel()->rowCount(), 2);
    QCOMPARE(panel.tableModel()->columnCount(), 3);
    const QModelIndex nan_cell = panel.tableModel()->index(0, 2);
    QCOMPARE(panel.tableModel()->data(nan_cell, Qt::DisplayRole).toString(), QStringLiteral("NaN"));
    QCOMPARE(panel.tableModel()->data(nan_cell, Qt::ForegroundRole).value<QColor>(),
             QColor(Qt::red));
    QCOMPARE(panel.tableModel()->data(panel.tableModel()->index(1, 1), Qt::UserRole).toFloat(),
             4.0f);

    // An answer to another request (the gradient) is not shown.
    auto stale = std::make_shared<TensorValues>(*values);
    stale->request.aspect = TensorAspect::kGradient;
    source.answer(stale);
    QCOMPARE(panel.shown().get(), values.get());
  }

  // A layout saved by an older version (before the Tensor values dock existed) must not strand
  // the new dock: the old layout is dropped for the default, where the dock is a tab beside
  // Gradients. The old layout here also moved Memory to the left, which must not come back.
  void layoutFromAnOlderVersionGivesWayToTheDefault() {
    {
      MainWindow old;
      old.removeDockWidget(old.findChild<QDockWidget*>(QStringLiteral("tensorsDock")));
      auto* memory = old.findChild<QDockWidget*>(QStringLiteral("memoryDock"));
      old.addDockWidget(Qt::LeftDockWidgetArea, memory);
      QSettings settings = AppSettings();
      settings.setValue(QStringLiteral("mainWindow/state"), old.saveState(/*version=*/0));
    }
    MainWindow window;
    auto* gradients = window.findChild<QDockWidget*>(QStringLiteral("gradientsDock"));
    auto* tensors = window.findChild<QDockWidget*>(QStringLiteral("tensorsDock"));
    auto* memory = window.findChild<QDockWidget*>(QStringLiteral("memoryDock"));
    QCOMPARE(window.dockWidgetArea(memory), Qt::RightDockWidgetArea);
    QVERIFY(window.tabifiedDockWidgets(gradients).contains(tensors));
    AppSettings().remove(QStringLiteral("mainWindow/state"));
  }

  void windowDockFollowsTheGraphSelection() {
    auto store = std::make_shared<SessionStore>();
    LocalEventSource source(store);
    QVERIFY(source.load(testing::ConvNet(), Setup(), QStringLiteral("convnet")).ok());
    MainWindow window;
    window.setGraph(testing::ConvNet().graph(), QString());
    window.setEventSource(&source);
    QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("tensorsDock")) != nullptr);
    window.graphView()->setSelectedOps({4});
    Q_EMIT window.graphView()->selectionChanged({4});
    TensorPanel* panel = window.tensorPanel();
    QVERIFY(panel->choices().contains(T::kFc2W));
    panel->choose(T::kFc2W, TensorAspect::kValue);
    QTRY_VERIFY(panel->shown() && panel->shown()->request.tensor == T::kFc2W);
    QCOMPARE(panel->shown()->values, testing::Floats(testing::ConvNet(), T::kFc2W));
    QCOMPARE(panel->tableModel()->rowCount(), 3);
  }
};

}  // namespace trainscope

QTEST_MAIN(trainscope::TensorPanelTest)
#include "tensor_panel_test.moc"
