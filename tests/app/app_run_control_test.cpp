// SPDX-License-Identifier: Apache-2.0
//
// Running the demo as a user would, where the app must not surprise: F5 with a layer change not
// yet applied asks first, Run after a finished schedule asks before another one, Restart goes back
// to the very same initial weights (the same loss curve again), Undo walks back an applied
// trainability change, and the Speed box paces the engine and is remembered. The real
// AppController and MainWindow, offscreen; the questions are answered through MainWindow's prompt.
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QMap>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>

#include "app/gui/app_controller.h"
#include "tests/app/app_test_setup.h"
#include "ui/session/app_settings.h"
#include "ui/session/session_snapshot.h"
#include "ui/widgets/device/connect_dialog.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"

namespace trainscope {

struct RunSession {
  std::shared_ptr<SessionStore> store = std::make_shared<SessionStore>();
  MainWindow window;
  AppController controller{&window, store};
  QStringList asked;  // the titles of the questions, in order
  int answer = -1;    // what every question gets

  RunSession() {
    window.setStore(store);
    window.setPrompt([this](const QString& title, const QString&, const QStringList&) {
      asked << title;
      return answer;
    });
  }
  ~RunSession() {
    if (controller.source()) controller.source()->stop();
  }
  LocalEventSource* source() const { return controller.source(); }
  void trigger(MainWindow::Command command) { window.action(command)->trigger(); }
  // The window hears of a state change through a queued signal from the worker thread: Run is
  // enabled again only once that arrived.
  bool runEnabled() const { return window.action(MainWindow::Command::kRun)->isEnabled(); }
  bool finished() const {
    return source()->progress() == LocalEventSource::Progress::kFinished &&
           source()->state() == EventSource::State::kStopped;
  }
  // The loss per sample as the Loss view draws it (bucket means of the store's series).
  std::vector<double> lossCurve() const {
    std::vector<double> values;
    for (const auto& bucket : store->snapshot()->loss->buckets()) values.push_back(bucket.mean());
    return values;
  }
};

class AppRunControlTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(testing::PrepareAppTest(settings_dir_, &demo_),
             "a scratch settings folder and the demo (the trainscope_demo target) are needed");
  }

  void runWithAPendingLayerChangeAsksFirst() {
    RunSession session;
    QVERIFY(session.controller.open(demo_).ok());
    LayersPanel* layers = session.window.layersPanel();
    const TrainabilityConfig applied = layers->appliedTrainability();
    layers->lastNSpinBox()->setValue(2);
    QVERIFY(layers->hasPendingChange());

    session.answer = -1;  // Cancel: nothing runs
    session.trigger(MainWindow::Command::kRun);
    QCOMPARE(session.asked, QStringList{QStringLiteral("Trainable layers not applied")});
    QTest::qWait(100);
    QCOMPARE(session.source()->state(), EventSource::State::kStopped);
    QCOMPARE(session.source()->optimizerSteps(), 0u);

    session.answer = 1;  // Run as is: the applied choice (all layers) trains, the edit stays
    session.trigger(MainWindow::Command::kRun);
    QTRY_VERIFY(session.source()->optimizerSteps() >= 3);
    QVERIFY(layers->hasPendingChange());
    QCOMPARE(layers->appliedTrainability(), applied);
    session.trigger(MainWindow::Command::kPause);
    QTRY_COMPARE(session.source()->state(), EventSource::State::kPaused);

    session.answer = 0;  // Apply and Run: the source gets the edit and says when it took effect
    QTRY_VERIFY(session.runEnabled());
    session.trigger(MainWindow::Command::kRun);
    QCOMPARE(session.asked.size(), 3);
    QVERIFY(!layers->hasPendingChange());
    QCOMPARE(layers->appliedTrainability().num_train_layers, 2u);
    QTRY_VERIFY(HasMessage(session, QStringLiteral("trainability applied")));
  }

  void runAfterTheEndAsksBeforeAnotherSchedule() {
    RunSession session;
    QVERIFY(session.controller.open(demo_).ok());
    TrainingSetupRequest setup = session.controller.currentSetup();
    setup.options.epochs = 1;
    QVERIFY(session.controller.applySetup(setup).ok());
    const uint32_t samples = session.controller.currentSetup().builtin_sample_count;
    session.trigger(MainWindow::Command::kRun);
    QTRY_VERIFY(session.finished());
    QTRY_VERIFY(HasMessage(session, QStringLiteral("training finished after 1 epoch(s)")));
    QCOMPARE(session.source()->optimizerSteps(), samples);
    QVERIFY2(session.asked.isEmpty(), "a fresh run asks nothing");

    session.answer = -1;
    QTRY_VERIFY(session.runEnabled());
    session.trigger(MainWindow::Command::kRun);
    QCOMPARE(session.asked, QStringList{QStringLiteral("Training finished")});
    QTest::qWait(100);
    QCOMPARE(session.source()->optimizerSteps(), samples);  // Cancel trains nothing more

    session.answer = 0;  // another schedule from the weights reached
    QTRY_VERIFY(session.runEnabled());
    session.trigger(MainWindow::Command::kRun);
    QTRY_VERIFY(session.finished() && session.source()->optimizerSteps() == 2 * samples);

    session.answer = 1;  // restart: from the initial weights, the counters from zero
    QTRY_VERIFY(session.runEnabled());
    session.trigger(MainWindow::Command::kRun);
    QTRY_VERIFY(session.finished() && session.source()->optimizerSteps() == samples);
    QTRY_COMPARE(session.store->snapshot()->progress.last_optimizer_step, samples);
  }

  void restartReplaysTheSameLossCurveAndStopMeansStartOver() {
    RunSession session;
    QVERIFY(session.controller.open(demo_).ok());
    TrainingSetupRequest setup = session.controller.currentSetup();
    setup.options.epochs = 2;
    QVERIFY(session.controller.applySetup(setup).ok());
    session.trigger(MainWindow::Command::kRun);
    QTRY_VERIFY(session.finished());
    QTRY_VERIFY(!session.lossCurve().empty());
    const std::vector<double> first = session.lossCurve();
    QVERIFY(session.window.action(MainWindow::Command::kRestart)->isEnabled());
    session.trigger(MainWindow::Command::kRestart);  // restarts and runs, no question
    QVERIFY(session.asked.isEmpty());
    QTRY_VERIFY(session.finished());
    QTRY_COMPARE(session.lossCurve().size(), first.size());
    QCOMPARE(session.lossCurve(), first);

    // Stop in the middle, then Run: a new session from the initial weights, not a continuation.
    setup.options.epochs = 1000;
    QVERIFY(session.controller.applySetup(setup).ok());
    session.trigger(MainWindow::Command::kRun);
    QTRY_VERIFY(session.source()->optimizerSteps() >= 300);
    session.trigger(MainWindow::Command::kStop);
    QCOMPARE(session.source()->progress(), LocalEventSource::Progress::kStopped);
    session.trigger(MainWindow::Command::kPause);  // nothing to pause: stays stopped
    QTRY_VERIFY(session.runEnabled());
    session.trigger(MainWindow::Command::kRun);
    QVERIFY(session.asked.isEmpty());
    QTRY_VERIFY(HasMessage(session, QStringLiteral("restarted from the initial weights")));
    QVERIFY(session.source()->optimizerSteps() < 300);
    session.trigger(MainWindow::Command::kStop);
  }

  void undoAndRedoWalkTheAppliedTrainability() {
    RunSession session;
    QVERIFY(session.controller.open(demo_).ok());
    MainWindow& window = session.window;
    LayersPanel* layers = window.layersPanel();
    const TrainabilityConfig initial = layers->appliedTrainability();
    QVERIFY(!window.undoTrainabilityAction()->isEnabled());
    layers->lastNSpinBox()->setValue(2);
    layers->apply();
    layers->lastNSpinBox()->setValue(3);
    layers->apply();
    QVERIFY(window.undoTrainabilityAction()->isEnabled());
    QVERIFY(!window.redoTrainabilityAction()->isEnabled());

    QSignalSpy sent(layers, &LayersPanel::trainabilityApplied);
    window.undoTrainabilityAction()->trigger();
    QCOMPARE(layers->appliedTrainability().num_train_layers, 2u);
    QCOMPARE(sent.count(), 1);  // undo re-applies, as Apply does
    QCOMPARE(sent.last().at(0).toUInt(), 2u);
    window.undoTrainabilityAction()->trigger();
    QCOMPARE(layers->appliedTrainability(), initial);
    QVERIFY(!window.undoTrainabilityAction()->isEnabled());
    window.redoTrainabilityAction()->trigger();
    QCOMPARE(layers->appliedTrainability().num_train_layers, 2u);
    QCOMPARE(layers->lastNSpinBox()->value(), 2);
    QVERIFY(!layers->hasPendingChange());

    // The source trains what undo went back to.
    session.trigger(MainWindow::Command::kRun);
    QTRY_VERIFY(HasMessage(session, QStringLiteral("trainability applied")));
    QTRY_VERIFY(session.store->snapshot()->progress.has_backward_step);
    session.trigger(MainWindow::Command::kStop);
  }

  void speedPacesTheEngineAndIsRemembered() {
    {
      RunSession session;
      QVERIFY(session.controller.open(demo_).ok());
      QComboBox* speed = session.controller.speedBox();
      QVERIFY(speed != nullptr);
      const int slow = speed->findData(10.0);
      QVERIFY(slow >= 0);
      speed->setCurrentIndex(slow);
      Q_EMIT speed->activated(slow);
      QCOMPARE(session.source()->stepsPerSecond(), 10.0);
      session.trigger(MainWindow::Command::kRun);
      QTest::qWait(600);
      // Full speed trains thousands of demo steps in that time; 10 per second about six.
      QVERIFY2(session.source()->optimizerSteps() <= 8,
               qPrintable(QString::number(session.source()->optimizerSteps())));
      session.trigger(MainWindow::Command::kStop);
    }
    RunSession again;  // the next window starts at the remembered speed
    QVERIFY(again.controller.open(demo_).ok());
    QCOMPARE(again.source()->stepsPerSecond(), 10.0);
    QCOMPARE(again.controller.speedBox()->currentData().toDouble(), 10.0);
    again.controller.setStepsPerSecond(0.0);
  }

  // Help > Keyboard Shortcuts lists the window's own actions: Pause and Step Batch have keys now.
  void helpListsEveryShortcutFromTheMenus() {
    RunSession session;
    QVERIFY(session.controller.open(demo_).ok());
    QMap<QString, QString> keys;
    for (const auto& [command, shortcut] : session.window.shortcuts()) keys[command] = shortcut;
    QCOMPARE(keys.value(QStringLiteral("Debug > Run")), QStringLiteral("F5"));
    QCOMPARE(keys.value(QStringLiteral("Debug > Pause")), QStringLiteral("F6"));
    QCOMPARE(keys.value(QStringLiteral("Debug > Step Backward Op")), QStringLiteral("F10"));
    QCOMPARE(keys.value(QStringLiteral("Debug > Step Sample")), QStringLiteral("F11"));
    QCOMPARE(keys.value(QStringLiteral("Debug > Step Batch")), QStringLiteral("Shift+F11"));
    QCOMPARE(keys.value(QStringLiteral("Debug > Restart")), QStringLiteral("Ctrl+Shift+F5"));
    QCOMPARE(keys.value(QStringLiteral("Edit > Undo Trainability Change")),
             QStringLiteral("Ctrl+Z"));
    QCOMPARE(keys.value(QStringLiteral("Training > Set up training…")), QStringLiteral("Ctrl+T"));
    QVERIFY(keys.contains(QStringLiteral("Help > Keyboard Shortcuts…")));
    // Each key does one thing.
    QStringList seen = keys.values();
    seen.removeDuplicates();
    QCOMPARE(seen.size(), keys.size());
  }

  // Two model.circle files in the recent menu are told apart by their folders.
  void recentFilesShowEnoughOfThePath() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const char* sub : {"kernels/add", "kernels/mul", "other"}) {
      QVERIFY(QDir(dir.path()).mkpath(QLatin1String(sub)));
    }
    AppSettings().remove(QStringLiteral("recentFiles"));  // earlier tests opened the demo
    RunSession session;
    session.window.addRecentFile(dir.filePath(QStringLiteral("other/demo.circle")));
    session.window.addRecentFile(dir.filePath(QStringLiteral("kernels/add/model.circle")));
    session.window.addRecentFile(dir.filePath(QStringLiteral("kernels/mul/model.circle")));
    QStringList texts;
    for (QAction* action : session.window.menu(MainWindow::Menu::kFile)->actions()) {
      if (action->menu() == nullptr || !action->text().contains(QStringLiteral("Recent"))) continue;
      for (QAction* recent : action->menu()->actions()) texts << recent->text();
    }
    QVERIFY2(texts.contains(QStringLiteral("&1 model.circle — mul")),
             qPrintable(texts.join(QLatin1Char('|'))));
    QVERIFY2(texts.contains(QStringLiteral("&2 model.circle — add")),
             qPrintable(texts.join(QLatin1Char('|'))));
    QVERIFY2(texts.contains(QStringLiteral("&3 demo.circle")),
             qPrintable(texts.join(QLatin1Char('|'))));
  }

  void connectDialogRemembersTheLastEndpoint() {
    QString opened;
    {
      ConnectDialog dialog([&](const QString& endpoint, const QString&) {
        opened = endpoint;
        return Status::Ok();
      });
      dialog.endpointEdit()->setText(QStringLiteral("tcp://127.0.0.1:5599"));
      dialog.tryConnect();
      QCOMPARE(opened, QStringLiteral("tcp://127.0.0.1:5599"));
    }
    ConnectDialog again([](const QString&, const QString&) {
      return Status::Error(StatusCode::kIoError, "refused");
    });
    QCOMPARE(again.endpointEdit()->text(), QStringLiteral("tcp://127.0.0.1:5599"));
    again.endpointEdit()->setText(QStringLiteral("tcp://127.0.0.1:1"));
    again.tryConnect();  // fails: not remembered
    ConnectDialog third([](const QString&, const QString&) { return Status::Ok(); });
    QCOMPARE(third.endpointEdit()->text(), QStringLiteral("tcp://127.0.0.1:5599"));
  }

 private:
  static bool HasMessage(const RunSession& session, const QString& text) {
    for (const StatusMessage& message : *session.store->snapshot()->messages) {
      if (message.text.contains(text)) return true;
    }
    return false;
  }

  QTemporaryDir settings_dir_;
  SessionFiles demo_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::AppRunControlTest)
#include "app_run_control_test.moc"
