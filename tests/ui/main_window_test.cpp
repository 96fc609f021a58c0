// SPDX-License-Identifier: Apache-2.0
//
// The main window's actions reach the event source with the debugger shortcuts, the status bar
// follows the stream, files arrive as openRequested(); and the synthetic source obeys commands.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMenuBar>
#include <QMimeData>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include "tests/common/synthetic/synthetic_event_source.h"
#include "tests/ui/test_models.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/layers/layers_model.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"

namespace trainscope {

// Records every command; moves through states the way a real source would.
class RecordingSource : public EventSource {
  Q_OBJECT

 public:
  using EventSource::EventSource;
  QStringList calls;
  TrainabilityConfig trainability;

  QString description() const override { return QStringLiteral("recording"); }
  void start() override { record(QStringLiteral("start"), State::kRunning); }
  void pause() override { record(QStringLiteral("pause"), State::kPaused); }
  void resume() override { record(QStringLiteral("resume"), State::kRunning); }
  void stepBackwardOp() override { record(QStringLiteral("stepBackwardOp"), State::kPaused); }
  void stepSample() override { record(QStringLiteral("stepSample"), State::kPaused); }
  void stepBatch() override { record(QStringLiteral("stepBatch"), State::kPaused); }
  void stop() override { record(QStringLiteral("stop"), State::kStopped); }
  void setTrainability(uint32_t last_n, const std::map<uint16_t, TrainRank>& ranks) override {
    calls << QStringLiteral("setTrainability");
    trainability.num_train_layers = last_n;
    trainability.op_ranks = ranks;
  }
  void fail(const QString& text) { Q_EMIT errorOccurred(text); }

 private:
  void record(const QString& call, State next) {
    calls << call;
    setState(next);
  }
};

class MainWindowTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void init() {
    graph_ = testing::MakeConvNet();
    QVERIFY(!graph_.subgraphs.empty());
    store_ = std::make_shared<SessionStore>();
  }

  void debugActionsHaveTheDebuggerShortcuts() {
    MainWindow window;
    QCOMPARE(window.action(MainWindow::Command::kRun)->shortcut(), QKeySequence(Qt::Key_F5));
    QCOMPARE(window.action(MainWindow::Command::kStepBackwardOp)->shortcut(),
             QKeySequence(Qt::Key_F10));
    QCOMPARE(window.action(MainWindow::Command::kStepSample)->shortcut(),
             QKeySequence(Qt::Key_F11));
    QCOMPARE(window.action(MainWindow::Command::kStop)->shortcut(),
             QKeySequence(Qt::SHIFT | Qt::Key_F5));
    QMenu* debug = nullptr;
    for (QAction* menu : window.menuBar()->actions()) {
      if (menu->text().remove(QLatin1Char('&')) == QStringLiteral("Debug")) debug = menu->menu();
    }
    QVERIFY(debug);
    for (auto command : {MainWindow::Command::kRun, MainWindow::Command::kPause,
                         MainWindow::Command::kStepBackwardOp, MainWindow::Command::kStepSample,
                         MainWindow::Command::kStepBatch, MainWindow::Command::kStop}) {
      QVERIFY(debug->actions().contains(window.action(command)));
    }
    // Without a source nothing can be run.
    QVERIFY(!window.action(MainWindow::Command::kRun)->isEnabled());
  }

  void actionsReachTheSourceAndFollowItsState() {
    MainWindow window;
    RecordingSource source(store_);
    window.setEventSource(&source);
    QAction* run = window.action(MainWindow::Command::kRun);
    QAction* pause = window.action(MainWindow::Command::kPause);
    QVERIFY(run->isEnabled());
    QVERIFY(!pause->isEnabled());
    run->trigger();
    QVERIFY(!run->isEnabled());
    QVERIFY(pause->isEnabled());
    pause->trigger();
    QCOMPARE(run->text().remove(QLatin1Char('&')), QStringLiteral("Continue"));
    run->trigger();  // continue -> resume, not a restart
    window.action(MainWindow::Command::kStepBackwardOp)->trigger();
    window.action(MainWindow::Command::kStepSample)->trigger();
    window.action(MainWindow::Command::kStepBatch)->trigger();
    window.action(MainWindow::Command::kStop)->trigger();
    QCOMPARE(source.calls, (QStringList{QStringLiteral("start"), QStringLiteral("pause"),
                                        QStringLiteral("resume"), QStringLiteral("stepBackwardOp"),
                                        QStringLiteral("stepSample"), QStringLiteral("stepBatch"),
                                        QStringLiteral("stop")}));
    QVERIFY(!window.action(MainWindow::Command::kStop)->isEnabled());
  }

  void shortcutsTriggerTheActionsFromTheKeyboard() {
    MainWindow window;
    RecordingSource source(store_);
    window.setEventSource(&source);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::keyClick(&window, Qt::Key_F10);
    QTest::keyClick(&window, Qt::Key_F5);
    QCOMPARE(source.calls,
             (QStringList{QStringLiteral("stepBackwardOp"), QStringLiteral("resume")}));
  }

  void appliedTrainabilityReachesTheSourceAndTheGraph() {
    MainWindow window;
    RecordingSource source(store_);
    window.setEventSource(&source);
    window.setGraph(graph_, QStringLiteral("net.circle"));
    TrainabilityConfig config;
    config.op_ranks[5] = TrainRank::kOnlyBias;
    window.layersPanel()->model()->setPending(config);
    window.layersPanel()->apply();
    QVERIFY(source.calls.contains(QStringLiteral("setTrainability")));
    QCOMPARE(source.trainability, config);
    QCOMPARE(window.graphView()->nodeCount(), 4);  // ops 0..4 collapse; backward starts at 5
  }

  void statusBarFollowsTheSyntheticStream() {
    MainWindow window;
    window.setGraph(graph_, QStringLiteral("net.circle"));
    SyntheticEventSource source(graph_, store_);
    window.setEventSource(&source);
    source.stepBackwardOp();
    QTRY_VERIFY(window.statusText().contains(QStringLiteral("backward step 0 / op #7 SOFTMAX")));
    QVERIFY(window.statusText().contains(QStringLiteral("synthetic stream: paused")));
    QVERIFY(window.statusText().contains(QStringLiteral("peak")));
  }

  void sourceErrorsShowInTheStatusBarWithoutADialog() {
    MainWindow window;
    RecordingSource source(store_);
    window.setEventSource(&source);
    source.fail(QStringLiteral("port /dev/ttyACM0 is busy"));
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("busy")));
    QVERIFY(QApplication::activeModalWidget() == nullptr);
  }

  void recentFilesAreBoundedAndMostRecentFirst() {
    MainWindow window;
    for (const QString& file : window.recentFiles()) window.removeRecentFile(file);
    for (int i = 0; i < 10; ++i) window.addRecentFile(QStringLiteral("/models/m%1.circle").arg(i));
    window.addRecentFile(QStringLiteral("/models/m5.circle"));
    const QStringList files = window.recentFiles();
    QCOMPARE(files.size(), MainWindow::kMaxRecentFiles);
    QCOMPARE(files.front(), QStringLiteral("/models/m5.circle"));
    QCOMPARE(files.count(QStringLiteral("/models/m5.circle")), 1);
    QVERIFY(!files.contains(QStringLiteral("/models/m0.circle")));
  }

  void droppingAModelFileRequestsOpeningIt() {
    MainWindow window;
    QSignalSpy spy(&window, &MainWindow::openRequested);
    QMimeData text_only;
    text_only.setUrls({QUrl::fromLocalFile(QStringLiteral("/tmp/notes.txt"))});
    QDragEnterEvent reject(QPoint(5, 5), Qt::CopyAction, &text_only, Qt::LeftButton,
                           Qt::NoModifier);
    QApplication::sendEvent(&window, &reject);
    QVERIFY(!reject.isAccepted());

    QMimeData model;
    model.setUrls({QUrl::fromLocalFile(QStringLiteral("/tmp/net.tflite"))});
    QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, &model, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(5, 5), Qt::CopyAction, &model, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("/tmp/net.tflite"));
  }

  void dockLayoutIsSavedAndRestored() {
    {
      MainWindow window;
      window.show();
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      window.findChild<QDockWidget*>(QStringLiteral("lossDock"))->hide();
      window.close();
    }
    MainWindow restored;
    restored.show();
    QVERIFY(QTest::qWaitForWindowExposed(&restored));
    QVERIFY(restored.findChild<QDockWidget*>(QStringLiteral("lossDock"))->isHidden());
    QVERIFY(!restored.findChild<QDockWidget*>(QStringLiteral("graphDock"))->isHidden());
    restored.resetLayout();
    QVERIFY(!restored.findChild<QDockWidget*>(QStringLiteral("lossDock"))->isHidden());
    restored.close();
  }

  void syntheticSourceStepsPauseAndRunOnItsTimer() {
    SyntheticEventSource source(graph_, store_);
    QSignalSpy states(&source, &EventSource::stateChanged);
    source.stepBackwardOp();
    QCOMPARE(source.state(), EventSource::State::kPaused);
    QCOMPARE(store_->snapshot()->progress.done_ops.size(), size_t{1});
    source.stepSample();
    QCOMPARE(store_->snapshot()->progress.in_sample, false);
    QCOMPARE(store_->snapshot()->progress.done_ops.size(), graph_.main().operators.size());
    source.setInterval(5);
    source.resume();
    QCOMPARE(source.state(), EventSource::State::kRunning);
    const uint64_t generation = store_->generation();
    QTRY_VERIFY(store_->generation() > generation + 2);
    source.pause();
    QCOMPARE(source.state(), EventSource::State::kPaused);
    const uint64_t paused_at = store_->generation();
    QTest::qWait(30);
    QCOMPARE(store_->generation(), paused_at);
    source.stop();
    QCOMPARE(source.state(), EventSource::State::kStopped);
    QVERIFY(states.count() >= 4);
  }

  void syntheticSourceReportsAModelWithoutOperators() {
    Graph empty;
    empty.subgraphs.emplace_back();
    SyntheticEventSource source(empty, store_);
    QSignalSpy errors(&source, &EventSource::errorOccurred);
    source.start();
    QCOMPARE(errors.count(), 1);
    QCOMPARE(source.state(), EventSource::State::kStopped);
  }

 private:
  Graph graph_;
  std::shared_ptr<SessionStore> store_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::MainWindowTest)
#include "main_window_test.moc"
