// SPDX-License-Identifier: Apache-2.0
//
// The desktop app as a user meets it: the real AppController on the bundled demo (the embedded
// engine training on a worker thread) inside a real MainWindow, offscreen. F10 walks the backward
// pass one op at a time, a layer toggled in the layers panel shows the memory numbers the CLI
// computes for the same configuration, and the window state survives into a new window.
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "app/gui/app_controller.h"
#include "engine/model/model_builder.h"
#include "engine/model/opcodes.h"
#include "engine/plan/train_config_file.h"
#include "tests/app/app_test_setup.h"
#include "ui/session/session_snapshot.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/layers/layers_model.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {

// A window, its store and the controller that opened the demo in it: what main() builds.
struct DemoSession {
  std::shared_ptr<SessionStore> store = std::make_shared<SessionStore>();
  MainWindow window;
  AppController controller{&window, store};

  DemoSession() { window.setStore(store); }
  ~DemoSession() {
    if (controller.source()) controller.source()->stop();
  }
  int opCount() const {
    return static_cast<int>(controller.source()->model()->graph().main().operators.size());
  }
};

// x [1, 3, 2] -> UNIDIRECTIONAL_SEQUENCE_LSTM (4 cells) -> RESHAPE [1, 12] -> FULLY_CONNECTED 2.
bool WriteLstmWithDenseHead(const QString& path) {
  ModelBuilder b;
  std::vector<int32_t> in(24, -1);
  in[0] = b.AddTensor("x", {1, 3, 2});
  for (int gate = 0; gate < 4; ++gate) {
    const std::string g = std::to_string(gate);
    const float scale = 0.1f * static_cast<float>(gate + 1);
    in[1 + gate] = b.AddConstant("w" + g, {4, 2}, std::vector<float>(8, scale));
    in[5 + gate] = b.AddConstant("r" + g, {4, 4}, std::vector<float>(16, -0.05f));
    in[12 + gate] = b.AddConstant("b" + g, {4}, std::vector<float>(4, 0.0f));
  }
  in[18] = b.AddVariable("h0", {1, 4});
  in[19] = b.AddVariable("c0", {1, 4});
  const int sequence = b.AddTensor("sequence", {1, 3, 4});
  OpOptions tanh;
  tanh.activation = Activation::kTanh;
  b.AddOperator(op::kUnidirectionalSequenceLstm, in, {sequence}, tanh);
  const int shape = b.AddConstantInt32("shape", {2}, {1, 12});
  const int flat = b.AddTensor("flat", {1, 12});
  b.AddOperator(op::kReshape, {sequence, shape}, {flat});
  const int w = b.AddConstant("head_w", {2, 12}, std::vector<float>(24, 0.2f));
  const int y = b.AddTensor("y", {1, 2});
  b.AddOperator(op::kFullyConnected, {flat, w, -1}, {y});
  b.SetInputs({in[0]});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  QFile file(path);
  return b.Finish(&bytes).ok() && file.open(QIODevice::WriteOnly) &&
         file.write(reinterpret_cast<const char*>(bytes.data()),
                    static_cast<qint64>(bytes.size())) == static_cast<qint64>(bytes.size());
}

class AppSessionTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(testing::PrepareAppTest(settings_dir_, &demo_),
             "a scratch settings folder and the demo (the trainscope_demo target) are needed");
  }

  void demoOpensReadyToTrain() {
    DemoSession session;
    QVERIFY(session.controller.open(demo_).ok());
    QVERIFY(session.window.action(MainWindow::Command::kRun)->isEnabled());
    QVERIFY(session.window.action(MainWindow::Command::kStepBackwardOp)->isEnabled());
    QVERIFY(!session.window.action(MainWindow::Command::kPause)->isEnabled());
    // The demo's six operators, each drawn as a node named after its type.
    const int32_t expected[] = {op::kConv2D,         op::kMaxPool2D,      op::kReshape,
                                op::kFullyConnected, op::kFullyConnected, op::kSoftmax};
    GraphView* graph = session.window.graphView();
    QCOMPARE(graph->nodeCount(), 6);
    QCOMPARE(session.opCount(), 6);
    for (int k = 0; k < 6; ++k) {
      const QString type = QString::fromLatin1(OpcodeName(expected[k]));
      QVERIFY2(graph->lookOfOp(k)->title.contains(type), qPrintable(graph->lookOfOp(k)->title));
    }
    QCOMPARE(session.window.layersPanel()->model()->rowCount(), 6);
    QCOMPARE(session.window.recentFiles().value(0), QFileInfo(demo_.model).absoluteFilePath());
    // Ready means Run actually trains: optimizer steps arrive and the graph follows them.
    session.window.action(MainWindow::Command::kRun)->trigger();
    QTRY_VERIFY(session.store->snapshot()->progress.optimizer_step >= 3);
    QTRY_VERIFY(session.window.action(MainWindow::Command::kPause)->isEnabled());
  }

  // A frozen recurrent extractor (forward-only UNIDIRECTIONAL_SEQUENCE_LSTM) before a dense head:
  // the default "every layer" cannot train, so the app trains the ops after it, runs forward
  // through the LSTM on every sample, and says which op stops the range.
  void aForwardOnlyOperatorNarrowsTheDefaultToTheOpsAfterIt() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("lstm_head.circle"));
    QVERIFY(WriteLstmWithDenseHead(path));
    DemoSession session;
    const Status opened = session.controller.open(SessionFiles{path, {}, {}, {}, {}});
    QVERIFY2(opened.ok(), opened.message());
    QVERIFY(session.window.action(MainWindow::Command::kRun)->isEnabled());
    QCOMPARE(session.window.layersPanel()->lastNSpinBox()->value(), 2);
    const auto messages = session.store->snapshot()->messages;
    bool said = false;
    for (const StatusMessage& m : *messages) {
      said |=
          m.text.contains(QStringLiteral("operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM) has no "
                                         "backward kernel: training the last 2 operators"));
    }
    QVERIFY(said);
    session.window.action(MainWindow::Command::kRun)->trigger();
    QTRY_VERIFY(session.store->snapshot()->progress.optimizer_step >= 3);
  }

  // From a fresh session, F10 pressed i+1 times has run the forward pass and backward steps 0..i
  // of the first sample: the graph rings op n-1-i, the memory cursor moves forward in time with
  // each step, and the status bar names the step. One more F10 after the last backward op
  // finishes the sample (one optimizer update) and stops after the next sample's first step.
  void f10WalksTheBackwardPassOneOpAtATime() {
    DemoSession session;
    QVERIFY(session.controller.open(demo_).ok());
    session.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&session.window));
    const int n = session.opCount();
    GraphView* graph = session.window.graphView();
    MemoryView* memory = session.window.memoryView();
    QAction* f10 = session.window.action(MainWindow::Command::kStepBackwardOp);
    QCOMPARE(f10->shortcut(), QKeySequence(Qt::Key_F10));
    auto press = [&] {
      QTRY_VERIFY(f10->isEnabled());
      const uint64_t generation = session.store->generation();
      f10->trigger();
      QTRY_VERIFY(session.store->generation() != generation &&
                  session.controller.source()->state() == EventSource::State::kPaused);
      graph->refresh();
      memory->refresh();
    };
    QCOMPARE(graph->currentOp(), -1);
    double cursor = memory->cursorTick();
    for (int i = 0; i < n; ++i) {
      press();
      if (QTest::currentTestFailed()) return;
      const auto snapshot = session.store->snapshot();
      // Still the first sample: no optimizer update has run.
      QCOMPARE(snapshot->progress.optimizer_step, 1u);
      QCOMPARE(snapshot->progress.last_optimizer_step, 0u);
      QCOMPARE(snapshot->progress.backward_step, static_cast<uint32_t>(i));
      QCOMPARE(graph->currentOp(), n - 1 - i);
      QVERIFY(graph->lookOfOp(n - 1 - i)->current);
      QCOMPARE(static_cast<int>(graph->doneOps().size()), i + 1);
      QVERIFY2(memory->cursorTick() > cursor,
               qPrintable(QStringLiteral("step %1: cursor %2 after %3")
                              .arg(i)
                              .arg(memory->cursorTick())
                              .arg(cursor)));
      cursor = memory->cursorTick();
      // The status bar follows on its own repaint timer.
      const QString where = QStringLiteral("backward step %1 / op #%2").arg(i).arg(n - 1 - i);
      QTRY_VERIFY2(session.window.statusText().contains(where),
                   qPrintable(session.window.statusText()));
    }
    press();
    if (QTest::currentTestFailed()) return;
    QCOMPARE(session.store->snapshot()->progress.last_optimizer_step, 1u);
    QCOMPARE(session.store->snapshot()->progress.optimizer_step, 2u);
    QCOMPARE(graph->currentOp(), n - 1);
    QCOMPARE(graph->doneOps(), std::vector<int>{n - 1});
  }

  // The layers panel's preview shows what `trainscope-cli memory --train-config FILE --optimizer
  // adam --json` reports for the same choice (the app trains with Adam), before and after a toggle.
  void togglingALayerShowsWhatTheCliReports() {
#ifndef TRAINSCOPE_CLI
    QSKIP("trainscope-cli is not built (TRAINSCOPE_BUILD_TOOLS=OFF)");
#endif
    DemoSession session;
    QVERIFY(session.controller.open(demo_).ok());
    LayersPanel* panel = session.window.layersPanel();
    QLabel* preview = panel->previewLabel();

    const QJsonObject all = runMemoryCli({});
    QVERIFY(!all.isEmpty());
    QVERIFY2(preview->text().contains(shownBytes(QStringLiteral("Heap peak"), all)),
             qPrintable(preview->text()));
    QVERIFY2(preview->text().contains(shownBytes(QStringLiteral("arena"), all)),
             qPrintable(preview->text()));

    // Untick the first convolution: backward now starts at the max-pool.
    LayersModel* layers = panel->model();
    QVERIFY(
        layers->setData(layers->index(0, LayersModel::kTrains), Qt::Unchecked, Qt::CheckStateRole));
    const TrainabilityConfig pending = panel->pendingTrainability();
    QVERIFY(!pending.op_ranks.empty());
    std::vector<uint8_t> blob;
    QVERIFY(WriteTrainConfig(pending.op_ranks, &blob).ok());
    const QString config_path = scratch_.filePath(QStringLiteral("untick_conv.bin"));
    {
      QFile file(config_path);
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write(reinterpret_cast<const char*>(blob.data()), static_cast<qint64>(blob.size()));
    }
    const QJsonObject partial = runMemoryCli({QStringLiteral("--train-config"), config_path});
    QVERIFY(!partial.isEmpty());
    QVERIFY2(partial.value(QStringLiteral("heap_peak_bytes")).toInteger() !=
                 all.value(QStringLiteral("heap_peak_bytes")).toInteger(),
             "the toggle must change the heap peak for this check to mean anything");
    QVERIFY2(preview->text().contains(shownBytes(QStringLiteral("Heap peak"), partial)),
             qPrintable(preview->text()));
    QVERIFY2(preview->text().contains(shownBytes(QStringLiteral("arena"), partial)),
             qPrintable(preview->text()));

    // Applied, the choice reaches the engine at its next optimizer step. (Its message quotes the
    // trainer's own plan, whose kernel scratch differs from onert-micro's temporaries: not
    // compared here.)
    panel->applyButton()->click();
    session.window.action(MainWindow::Command::kStepBatch)->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!appliedMessage(*session.store).isEmpty(), 10000);
  }

  void windowStatePersistsIntoANewWindow() {
    const QString recent = QStringLiteral("/models/persisted.circle");
    QSize size;
    {
      MainWindow window;
      for (const QString& file : window.recentFiles()) window.removeRecentFile(file);
      window.show();
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      window.resize(window.size() - QSize(37, 23));
      size = window.size();
      auto* memory_dock = window.findChild<QDockWidget*>(QStringLiteral("memoryDock"));
      QVERIFY(memory_dock);
      QVERIFY(window.dockWidgetArea(memory_dock) != Qt::LeftDockWidgetArea);
      window.addDockWidget(Qt::LeftDockWidgetArea, memory_dock);
      window.setThemeChoice(MainWindow::ThemeChoice::kDark);
      window.addRecentFile(recent);
      window.close();
    }
    MainWindow restored;
    restored.show();
    QVERIFY(QTest::qWaitForWindowExposed(&restored));
    QCOMPARE(restored.size(), size);
    QCOMPARE(
        restored.dockWidgetArea(restored.findChild<QDockWidget*>(QStringLiteral("memoryDock"))),
        Qt::LeftDockWidgetArea);
    QCOMPARE(restored.themeChoice(), MainWindow::ThemeChoice::kDark);
    QCOMPARE(restored.recentFiles(), QStringList{recent});
    restored.setThemeChoice(MainWindow::ThemeChoice::kSystem);
    restored.close();
  }

 private:
  // `trainscope-cli memory DEMO --optimizer adam --json` plus `extra`; empty on failure.
  QJsonObject runMemoryCli(const QStringList& extra) {
#ifdef TRAINSCOPE_CLI
    QProcess cli;
    cli.start(QStringLiteral(TRAINSCOPE_CLI),
              QStringList{QStringLiteral("memory"), demo_.model, QStringLiteral("--optimizer"),
                          QStringLiteral("adam"), QStringLiteral("--json")} +
                  extra);
    if (!cli.waitForFinished(30000) || cli.exitCode() != 0) {
      qWarning() << "trainscope-cli failed:" << cli.readAllStandardError();
      return {};
    }
    return QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
#else
    Q_UNUSED(extra);
    return {};
#endif
  }

  // How the layers panel writes a byte count from the CLI's report: "Heap peak <b>12.5 KiB</b>".
  static QString shownBytes(const QString& label, const QJsonObject& report) {
    const char* key = label == QStringLiteral("arena") ? "arena_bytes" : "heap_peak_bytes";
    return QStringLiteral("%1 <b>%2</b>")
        .arg(label,
             FormatBytes(static_cast<uint64_t>(report.value(QLatin1String(key)).toInteger())));
  }

  static QString appliedMessage(const SessionStore& store) {
    for (const StatusMessage& message : *store.snapshot()->messages) {
      if (message.text.startsWith(QStringLiteral("trainability applied"))) return message.text;
    }
    return {};
  }

  QTemporaryDir settings_dir_;
  QTemporaryDir scratch_;
  SessionFiles demo_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::AppSessionTest)
#include "app_session_test.moc"
