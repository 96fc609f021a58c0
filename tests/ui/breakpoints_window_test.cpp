// SPDX-License-Identifier: Apache-2.0
//
// Breakpoints in the desktop app: the panel edits the set, F9 toggles the selected op and the
// graph marks it, the budget is the memory view's, the set is kept per model, and a hit (from a
// fake source and from the real local engine) shows its reason and the op.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QListWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

#include "tests/engine/exec/test_models.h"
#include "ui/session/sources/local_event_source.h"
#include "ui/widgets/breakpoints/breakpoints_panel.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {

// Accepts breakpoints, records the latest set, and can fake a hit.
class BreakpointSource : public EventSource {
  Q_OBJECT

 public:
  using EventSource::EventSource;
  BreakpointSet received;
  int set_calls = 0;

  QString description() const override { return QStringLiteral("fake"); }
  void start() override { setState(State::kRunning); }
  void pause() override { setState(State::kPaused); }
  void resume() override { setState(State::kRunning); }
  void stepBackwardOp() override {}
  void stepSample() override {}
  void stepBatch() override {}
  void stop() override { setState(State::kStopped); }
  void setTrainability(uint32_t, const std::map<uint16_t, TrainRank>&) override {}
  bool setBreakpoints(const BreakpointSet& set) override {
    received = set;
    ++set_calls;
    return true;
  }
  void hit(const QString& reason, uint32_t op) {
    setState(State::kPaused);
    Q_EMIT breakpointHit(reason, op);
  }
};

// Only the default setBreakpoints(): "not supported".
class PlainSource : public BreakpointSource {
  Q_OBJECT

 public:
  using BreakpointSource::BreakpointSource;
  bool setBreakpoints(const BreakpointSet& set) override {
    return EventSource::setBreakpoints(set);
  }
};

class BreakpointsWindowTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void init() {
    graph_ = testing::ConvNet().graph();
    QVERIFY(!graph_.subgraphs.empty());
    store_ = std::make_shared<SessionStore>();
  }

  void panelEditsEmitTheWholeSet() {
    BreakpointsPanel panel;
    panel.setGraph(graph_);
    QCOMPARE(panel.opList()->count(), 6);
    QVERIFY(panel.opList()->item(3)->text().contains(QStringLiteral("FULLY_CONNECTED")));
    QSignalSpy changed(&panel, &BreakpointsPanel::breakpointsChanged);
    panel.opList()->item(3)->setCheckState(Qt::Checked);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(panel.breakpoints().ops, (std::set<uint32_t>{3}));
    panel.nanInfCheck()->setChecked(true);
    panel.gradientCheck()->setChecked(true);
    panel.measureCombo()->setCurrentIndex(1);
    panel.thresholdSpin()->setValue(42.5);
    const BreakpointSet set = panel.breakpoints();
    QVERIFY(set.nan_inf);
    QVERIFY(set.gradient_enabled);
    QCOMPARE(set.gradient_measure, GradientMeasure::kMaxAbs);
    QCOMPARE(set.gradient_threshold, 42.5f);
    QVERIFY(changed.last().at(0).value<BreakpointSet>() == set);
    // Showing a set from outside does not echo.
    const qsizetype before = changed.count();
    panel.setBreakpoints(BreakpointSet());
    QCOMPARE(changed.count(), before);
    QCOMPARE(panel.opList()->item(3)->checkState(), Qt::Unchecked);
    QVERIFY(!panel.nanInfCheck()->isChecked());
  }

  void budgetIsSharedWithTheMemoryView() {
    MainWindow window;
    window.setGraph(graph_, QString());
    window.memoryView()->setBudgetBytes(8 * 1024);
    QCOMPARE(window.breakpointsPanel()->breakpoints().budget_bytes, uint64_t{8 * 1024});
    QCOMPARE(window.breakpointsPanel()->budgetSpin()->value(), 8);
    window.breakpointsPanel()->budgetSpin()->setValue(16);
    QCOMPARE(window.memoryView()->budgetBytes(), uint64_t{16 * 1024});
  }

  void f9TogglesTheSelectedOpAndTheGraphMarksIt() {
    MainWindow window;
    BreakpointSource source(store_);
    window.setEventSource(&source);
    window.setGraph(graph_, QString());
    window.graphView()->setCollapseFrozenPrefix(false);
    QCOMPARE(window.toggleBreakpointAction()->shortcut(), QKeySequence(Qt::Key_F9));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.graphView()->setSelectedOps({3});
    QTest::keyClick(&window, Qt::Key_F9);
    QCOMPARE(window.breakpointsPanel()->breakpoints().ops, (std::set<uint32_t>{3}));
    QCOMPARE(source.received.ops, (std::set<uint32_t>{3}));
    QVERIFY(window.graphView()->lookOfOp(3)->breakpoint);
    QVERIFY(!window.graphView()->lookOfOp(4)->breakpoint);
    QCOMPARE(window.breakpointsPanel()->opList()->item(3)->checkState(), Qt::Checked);
    QTest::keyClick(&window, Qt::Key_F9);
    QVERIFY(source.received.ops.empty());
    QVERIFY(!window.graphView()->lookOfOp(3)->breakpoint);
  }

  void aHitShowsTheReasonAndSelectsTheOp() {
    MainWindow window;
    BreakpointSource source(store_);
    window.setEventSource(&source);
    window.setGraph(graph_, QString());
    const QString reason = QStringLiteral("breakpoint: before the backward step of op #4");
    source.hit(reason, 4);
    QCOMPARE(window.statusBar()->currentMessage(), reason);
    QCOMPARE(window.graphView()->selectedOps(), QList<int>{4});
    QVERIFY(window.breakpointsPanel()->hitText().contains(reason));
    bool selected = false;
    for (QListWidget* list : window.findChildren<QListWidget*>()) {
      if (list->currentItem() && list->currentItem()->text() == reason) selected = true;
    }
    QVERIFY(selected);
    source.resume();
    QVERIFY(window.statusBar()->currentMessage().isEmpty());
  }

  void aSourceWithoutBreakpointsSaysSo() {
    MainWindow window;
    PlainSource source(store_);
    window.setEventSource(&source);
    window.setGraph(graph_, QString());
    QVERIFY2(window.statusBar()->currentMessage().isEmpty(), "an empty set is not sent");
    window.breakpointsPanel()->toggleOp(2);
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("not supported")));
  }

  void breakpointsAreKeptPerModelPath() {
    const QString a = QStringLiteral("/tmp/trainscope-breakpoints-a.circle");
    const QString b = QStringLiteral("/tmp/trainscope-breakpoints-b.circle");
    QSettings(QStringLiteral("TrainScope"), QStringLiteral("TrainScope"))
        .remove(QStringLiteral("breakpoints"));
    {
      MainWindow window;
      window.setGraph(graph_, a);
      window.breakpointsPanel()->toggleOp(2);
      window.breakpointsPanel()->nanInfCheck()->setChecked(true);
    }
    MainWindow window;
    window.setGraph(graph_, a);
    QCOMPARE(window.breakpointsPanel()->breakpoints().ops, (std::set<uint32_t>{2}));
    QVERIFY(window.breakpointsPanel()->breakpoints().nan_inf);
    QVERIFY(window.graphView()->lookOfOp(2)->breakpoint);
    window.setGraph(graph_, b);
    QVERIFY(window.breakpointsPanel()->breakpoints().empty());
  }

  void embeddedRunPausesAtTheOpAndTheStatusBarSaysWhy() {
    MainWindow window;
    LocalEventSource source(store_);
    LocalSetup setup;
    setup.options.loss = LossKind::kSparseCrossEntropy;
    setup.options.metric = MetricKind::kSparseCrossEntropyAccuracy;
    setup.options.epochs = 100000;
    setup.train = testing::ConvNetData(6);
    QVERIFY(source.load(testing::ConvNet(), setup, QStringLiteral("convnet")).ok());
    window.setGraph(graph_, QString());
    window.setEventSource(&source);
    window.breakpointsPanel()->toggleOp(3);
    window.action(MainWindow::Command::kRun)->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(
        window.statusBar()->currentMessage().contains(QStringLiteral("op #3 FULLY_CONNECTED")),
        10000);
    QCOMPARE(source.state(), EventSource::State::kPaused);
    QCOMPARE(window.graphView()->selectedOps(), QList<int>{3});
    QVERIFY(window.statusText().contains(QStringLiteral("paused")));
    source.stop();
  }

 private:
  Graph graph_;
  std::shared_ptr<SessionStore> store_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::BreakpointsWindowTest)
#include "breakpoints_window_test.moc"
