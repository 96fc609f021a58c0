// SPDX-License-Identifier: Apache-2.0
//
// The parts of a device session that need no board: the announced model (multi-frame assembly,
// drawn graph, hash lookup, trainability commands), the connect dialog, the link-health panel,
// and the controller's menu and dock on a MainWindow; plus the controller connecting to the
// board simulator and showing the model file whose hash the board announced.
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <vector>

#include "tests/cli/board_sim_process.h"
#include "ui/controllers/device_session_controller.h"
#include "ui/session/announced_model.h"
#include "ui/session/device_memory.h"
#include "ui/session/trainability.h"
#include "ui/widgets/device/connect_dialog.h"
#include "ui/widgets/device/link_health_panel.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {
namespace {

wire::ModelAnnounceMessage Announce(uint64_t hash, uint32_t op_count, uint32_t first_op,
                                    uint16_t entries) {
  wire::ModelAnnounceMessage announce;
  announce.model_hash = hash;
  announce.op_count = op_count;
  announce.tensor_count = 2 * op_count;
  announce.first_op = first_op;
  announce.entry_count = entries;
  for (uint16_t i = 0; i < entries; ++i) {
    announce.ops[i].opcode = static_cast<int16_t>(first_op + i);
    announce.ops[i].trainable = (first_op + i) % 2 == 0;
  }
  return announce;
}

}  // namespace

// A window with the device controller installed, searching the bundled demo for model files.
struct DeviceWindow {
  DeviceWindow() : store(std::make_shared<SessionStore>()), controller(store) {
    window.setStore(store);
    controller.setModelSearchPaths({QStringLiteral(TRAINSCOPE_DEMO_DIR)});
    controller.install(&window);
  }
  std::shared_ptr<SessionStore> store;
  MainWindow window;
  DeviceSessionController controller;
};

class DevicePartsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The window and the Connect dialog keep settings under fixed names: a scratch folder here.
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(settings_dir_.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings_dir_.path());
  }

  void aModelAnnouncedInTwoFramesIsCompleteAfterTheSecond() {
    AnnouncedModelBuilder builder;
    QVERIFY(builder.Add(Announce(7, 70, 0, 64)));
    QVERIFY(!builder.complete());
    QVERIFY(builder.Add(Announce(7, 70, 64, 6)));
    QVERIFY(builder.complete());
    QCOMPARE(builder.model().ops.size(), size_t{70});
    QCOMPARE(builder.model().ops[69].opcode, int16_t{69});
    QCOMPARE(builder.model().trainedOps().size(), size_t{35});
    // A frame whose ops lie past its op count is refused and changes nothing.
    QVERIFY(!builder.Add(Announce(7, 70, 68, 6)));
    QVERIFY(builder.complete());
    // Another model starts over.
    QVERIFY(builder.Add(Announce(8, 70, 0, 64)));
    QVERIFY(!builder.complete());
  }

  // A board (or a corrupted frame with a valid CRC) claiming 2^32-1 operators is ignored before
  // anything is allocated; so are names for ids no announced model has.
  void hugeCountsAndNamesBeyondThemAreIgnored() {
    AnnouncedModelBuilder builder;
    wire::ModelAnnounceMessage huge = Announce(3, 0, 0, 0);
    huge.op_count = UINT32_MAX;
    QVERIFY(!builder.Add(huge));
    huge.op_count = 2;
    huge.tensor_count = UINT32_MAX;
    QVERIFY(!builder.Add(huge));
    QVERIFY(!builder.announced());
    QVERIFY(builder.model().ops.empty());
    wire::InternNameMessage name;
    name.kind = wire::NameKind::kTensor;
    name.id = UINT32_MAX;
    name.name.Assign("x");
    builder.AddName(name);
    QVERIFY(builder.model().tensor_names.empty());
    wire::ModelAnnounceMessage small = Announce(3, 2, 0, 2);
    small.tensor_count = 4;
    small.optimizer = 1;
    small.batch_size = 8;
    QVERIFY(builder.Add(small));
    QCOMPARE(builder.model().optimizer, uint8_t{1});
    QCOMPARE(builder.model().batch_size, uint32_t{8});
    name.id = 4;  // tensors 0..3 only
    builder.AddName(name);
    name.id = 3;
    builder.AddName(name);
    QCOMPARE(builder.model().tensor_names.size(), size_t{1});
  }

  void theAnnouncedGraphHasOneOperatorPerOpInExecutionOrder() {
    AnnouncedModelBuilder builder;
    wire::ModelAnnounceMessage announce = Announce(1, 3, 0, 3);
    announce.ops[0].opcode = op::kConv2D;
    announce.ops[1].opcode = op::kFullyConnected;
    announce.ops[2].opcode = op::kSoftmax;
    builder.Add(announce);
    wire::InternNameMessage name;
    name.kind = wire::NameKind::kOperator;
    name.id = 1;
    name.name.Assign("dense/MatMul");
    builder.AddName(name);
    const Graph graph = BuildAnnouncedGraph(builder.model());
    const Subgraph& main = graph.main();
    QCOMPARE(main.operators.size(), size_t{3});
    QCOMPARE(main.operators[1].opcode, op::kFullyConnected);
    QCOMPARE(main.operators[1].inputs, std::vector<int32_t>{1});
    QCOMPARE(main.operators[0].outputs, main.operators[1].inputs);
    QCOMPARE(QString::fromStdString(main.tensors[2].name), QStringLiteral("dense/MatMul"));
    QCOMPARE(main.outputs, std::vector<int32_t>{3});
    // The window takes it without a model file.
    MainWindow window;
    window.setGraph(graph, QStringLiteral("board model"));
  }

  void theModelFileIsFoundByItsHash() {
    QTemporaryDir dir;
    QFile other(dir.filePath(QStringLiteral("other.circle")));
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write("not the model");
    other.close();
    const QString demo = testing::DemoFile("demo.circle");
    const uint64_t hash = testing::FileHashHex(demo).toULongLong(nullptr, 16);
    QCOMPARE(FindModelFileByHash(hash, {other.fileName(), demo}), demo);
    QCOMPARE(FindModelFileByHash(hash, {dir.path()}), QString());
    QFile::copy(demo, dir.filePath(QStringLiteral("copy.circle")));
    QCOMPARE(FindModelFileByHash(hash, {dir.path()}), dir.filePath(QStringLiteral("copy.circle")));
  }

  void trainabilityBecomesTheCommandsThatReachIt() {
    const std::map<uint16_t, TrainRank> current{{3, TrainRank::kAll}, {4, TrainRank::kAll}};
    // Only what differs is sent; additions come before removals so an op always trains.
    auto commands =
        PlanTrainabilityCommands(current, 0, {{4, TrainRank::kOnlyBias}, {5, TrainRank::kAll}});
    QCOMPARE(commands.size(), size_t{3});
    QCOMPARE(commands[0].mode, wire::TrainabilityMode::kSetOp);
    QCOMPARE(commands[0].value, 4u);
    QCOMPARE(commands[0].rank, TrainRank::kOnlyBias);
    QCOMPARE(commands[1].value, 5u);
    QCOMPARE(commands[2].mode, wire::TrainabilityMode::kClearOp);
    QCOMPARE(commands[2].value, 3u);
    QVERIFY(PlanTrainabilityCommands(current, 0, current).empty());
    commands = PlanTrainabilityCommands(current, 2, {});
    QCOMPARE(commands.size(), size_t{1});
    QCOMPARE(commands[0].mode, wire::TrainabilityMode::kLastLayers);
    QCOMPARE(commands[0].value, 2u);
  }

  void aPermissionErrorMentionsTheDialoutGroup() {
    QVERIFY(ExplainOpenError(QStringLiteral("open /dev/ttyACM0: Permission denied"))
                .contains(QLatin1String("dialout")));
    QCOMPARE(ExplainOpenError(QStringLiteral("no such device")), QStringLiteral("no such device"));
  }

  void theConnectDialogListsPortsAndKeepsOpenErrorsVisible() {
    QString opened;
    ConnectDialog dialog([&](const QString& endpoint, const QString&) {
      opened = endpoint;
      return endpoint.startsWith(QLatin1String("/dev/ttyACM0"))
                 ? Status::Error(StatusCode::kIoError, "open /dev/ttyACM0: Permission denied")
                 : Status::Ok();
    });
    SerialPortInfo usb;
    usb.name = "/dev/ttyACM0";
    usb.description = "STM32 STLink";
    usb.usb = true;
    usb.usb_vid = 0x0483;
    usb.usb_pid = 0x374b;
    SerialPortInfo uart;
    uart.name = "/dev/ttyS0";
    dialog.setPorts({usb, uart});
    QCOMPARE(dialog.portList()->count(), 2);
    QVERIFY(dialog.portList()->item(0)->text().contains(QLatin1String("0483:374b")));
    QVERIFY(dialog.portList()->item(0)->text().contains(QLatin1String("STM32 STLink")));
    QCOMPARE(dialog.baudBox()->currentText(), QStringLiteral("115200"));
    QCOMPARE(dialog.baudBox()->itemText(0), QStringLiteral("9600"));
    QCOMPARE(dialog.baudBox()->itemText(dialog.baudBox()->count() - 1), QStringLiteral("921600"));
    dialog.portList()->setCurrentRow(0);  // a refresh keeps the port chosen before, if any
    QCOMPARE(dialog.endpointText(), QStringLiteral("/dev/ttyACM0@115200"));

    dialog.tryConnect();
    QCOMPARE(opened, QStringLiteral("/dev/ttyACM0@115200"));
    QVERIFY(dialog.errorText().contains(QLatin1String("dialout")));
    QCOMPARE(dialog.result(), int{QDialog::Rejected});

    dialog.endpointEdit()->setText(QStringLiteral("tcp://127.0.0.1:5555"));
    dialog.tryConnect();
    QCOMPARE(opened, QStringLiteral("tcp://127.0.0.1:5555"));
    QVERIFY(dialog.errorText().isEmpty());
    QCOMPARE(dialog.result(), int{QDialog::Accepted});
  }

  void theHealthPanelShowsTheNumbers() {
    LinkHealth health;
    health.connected = true;
    health.frames_bad = 3;
    health.last_ack_latency_us = 2500;
    const auto lines = DescribeLinkHealth(health);
    const auto value = [&lines](const char* title) {
      for (const auto& [t, v] : lines) {
        if (t == QLatin1String(title)) return v;
      }
      return QString();
    };
    QCOMPARE(value("State"), QStringLiteral("connected"));
    QCOMPARE(value("Frames bad"), QStringLiteral("3"));
    QCOMPARE(value("Last ACK latency"), QStringLiteral("2.5 ms"));
    LinkHealthPanel panel;
    QCOMPARE(panel.valueText(QStringLiteral("State")), QStringLiteral("not connected"));
  }

  void theControllerAddsTheDeviceMenuAndShowsTheBoardsModelFile() {
    testing::BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
    QVERIFY2(sim.started(), qPrintable(sim.error()));
    DeviceWindow app;
    MainWindow& window = app.window;
    DeviceSessionController& controller = app.controller;
    QMenu* device = nullptr;
    for (QAction* action : window.menuBar()->actions()) {
      if (action->text() == QLatin1String("&Device")) device = action->menu();
    }
    QVERIFY(device != nullptr);
    QVERIFY(device->actions().contains(controller.connectAction()));
    QVERIFY(!controller.disconnectAction()->isEnabled());
    QCOMPARE(window.dockWidgetArea(controller.healthDock()), Qt::RightDockWidgetArea);

    const Status status = controller.connectTo(sim.endpoint());
    QVERIFY2(status.ok(), status.message());
    QCOMPARE(window.eventSource(), controller.source());
    QVERIFY(controller.disconnectAction()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(controller.modelPath(),
                              QStringLiteral(TRAINSCOPE_DEMO_DIR "/demo.circle"), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(
        controller.healthPanel()->valueText(QStringLiteral("Frames ok")) != QLatin1String("0"),
        5000);
    controller.disconnectDevice();
    QVERIFY(!controller.source()->isOpen());
    QVERIFY(!controller.disconnectAction()->isEnabled());
  }

  // The Memory view shows the board's reported RAM beside the plan it draws, and both come from
  // one figure: the board's predicted heap is the arena the view's own timeline shows.
  void theMemoryViewShowsTheBoardsRamBesideThePlan() {
    testing::BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
    QVERIFY2(sim.started(), qPrintable(sim.error()));
    DeviceWindow app;
    MemoryView* view = app.window.memoryView();
    QVERIFY(view->deviceMemoryText().isEmpty());
    const Status status = app.controller.connectTo(sim.endpoint());
    QVERIFY2(status.ok(), status.message());
    QTRY_VERIFY_WITH_TIMEOUT(app.controller.source()->health().has_device_memory, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(view->shown().arena_bytes > 0, 10000);
    const LinkHealth health = app.controller.source()->health();
    const DeviceMemoryReport report = ExplainDeviceMemory(health.device_memory);
    QTRY_COMPARE_WITH_TIMEOUT(view->deviceMemoryText(), DeviceMemoryLine(report), 5000);
    QVERIFY(view->deviceMemoryText().startsWith(QLatin1String("Board (accounted): heap peak")));
    // The view's arena grows with the buffers of the step it is drawing: within a step it reaches
    // the plan.
    QTRY_COMPARE_WITH_TIMEOUT(view->shown().arena_bytes,
                              uint64_t{health.device_memory.predicted_heap_peak_bytes}, 5000);
    // Another session starts without the last board's figures.
    app.controller.disconnectDevice();
    QVERIFY(app.controller.connectTo(sim.endpoint()).ok());
    QVERIFY(view->deviceMemoryText().isEmpty());
    app.controller.disconnectDevice();
  }

  // A board that finished its schedule is a stopped session on a live link: the window keeps the
  // connection and its health, and Pause has nothing to act on.
  void aFinishedBoardStaysConnectedInTheWindow() {
    testing::BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"),
                                  QStringLiteral("--epochs"), QStringLiteral("1"),
                                  QStringLiteral("--wait-for-desktop")});
    QVERIFY2(sim.started(), qPrintable(sim.error()));
    DeviceWindow app;
    QVERIFY(app.controller.connectTo(sim.endpoint()).ok());
    const uint64_t backward_steps = static_cast<uint64_t>(testing::DemoSampleCount()) * 6;
    QTRY_VERIFY_WITH_TIMEOUT(app.controller.source()->health().backward_steps == backward_steps,
                             10000);
    QTRY_COMPARE_WITH_TIMEOUT(app.controller.source()->state(), EventSource::State::kStopped,
                              10000);
    QTest::qWait(1200);
    QVERIFY(app.controller.source()->isOpen());
    QCOMPARE(app.window.eventSource(), app.controller.source());
    QTRY_COMPARE_WITH_TIMEOUT(app.controller.healthPanel()->valueText(QStringLiteral("State")),
                              QStringLiteral("connected"), 3000);
    // The window says what the board said, and the commands it cannot take are off, with why.
    QVERIFY2(app.window.statusText().contains(QStringLiteral("board finished training: %1 "
                                                             "optimizer steps, last loss")
                                                  .arg(testing::DemoSampleCount())),
             qPrintable(app.window.statusText()));
    for (MainWindow::Command command :
         {MainWindow::Command::kRun, MainWindow::Command::kPause,
          MainWindow::Command::kStepBackwardOp, MainWindow::Command::kStepSample,
          MainWindow::Command::kStepBatch}) {
      QAction* action = app.window.action(command);
      QVERIFY2(!action->isEnabled(), qPrintable(action->text()));
      QVERIFY2(action->toolTip().contains(QStringLiteral("finished its schedule")),
               qPrintable(action->toolTip()));
    }
    app.controller.disconnectDevice();
  }

  // A looping board trains again after its schedule: the window shows it training and the run
  // commands are back.
  void aLoopingBoardTakesCommandsAgainAfterItsSchedule() {
    testing::BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"),
                                  QStringLiteral("--epochs"), QStringLiteral("1"),
                                  QStringLiteral("--wait-for-desktop"), QStringLiteral("--loop")});
    QVERIFY2(sim.started(), qPrintable(sim.error()));
    DeviceWindow app;
    QVERIFY(app.controller.connectTo(sim.endpoint()).ok());
    const uint64_t schedule = static_cast<uint64_t>(testing::DemoSampleCount()) * 6;
    QTRY_VERIFY_WITH_TIMEOUT(app.controller.source()->health().backward_steps > schedule + 6,
                             10000);
    QCOMPARE(app.controller.source()->state(), EventSource::State::kRunning);
    // The window hears of state changes through queued signals from the reader thread.
    QTRY_VERIFY_WITH_TIMEOUT(app.window.action(MainWindow::Command::kPause)->isEnabled(), 5000);
    QVERIFY(app.controller.source()->commandsUnavailable().isEmpty());
    app.window.action(MainWindow::Command::kPause)->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(app.controller.source()->state(), EventSource::State::kPaused, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(app.window.action(MainWindow::Command::kRun)->isEnabled(), 5000);
    app.controller.disconnectDevice();
  }

  // The board trains the last two operators; once it announces, the layers panel shows a
  // configuration that trains the same weights, not the default.
  void theLayersPanelShowsTheTrainedSetTheBoardAnnounced() {
    testing::BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"),
                                  QStringLiteral("--train-layers"), QStringLiteral("2")});
    QVERIFY2(sim.started(), qPrintable(sim.error()));
    DeviceWindow app;
    MainWindow& window = app.window;
    DeviceSessionController& controller = app.controller;
    const Status status = controller.connectTo(sim.endpoint());
    QVERIFY2(status.ok(), status.message());
    QTRY_VERIFY_WITH_TIMEOUT(!controller.modelPath().isEmpty(), 10000);
    const Subgraph& main = window.graph().main();
    TrainabilityConfig board;
    board.num_train_layers = 2;
    auto trained_weights = [&main](const TrainabilityConfig& config) {
      std::map<uint16_t, TrainRank> trained;
      const std::vector<OpTrainability> ops = ResolveTrainability(main, config);
      for (size_t k = 0; k < ops.size(); ++k) {
        if (ops[k].has_parameter_gradients) trained[static_cast<uint16_t>(k)] = ops[k].rank;
      }
      return trained;
    };
    QVERIFY(trained_weights(board) != trained_weights(TrainabilityConfig()));
    QTRY_VERIFY_WITH_TIMEOUT(
        trained_weights(window.layersPanel()->appliedTrainability()) == trained_weights(board),
        5000);
    controller.disconnectDevice();
  }

 private:
  QTemporaryDir settings_dir_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::DevicePartsTest)
#include "device_parts_test.moc"
