// SPDX-License-Identifier: Apache-2.0
//
// The app's device path against the firmware on QEMU: the DeviceEventSource the app's
// Device > Connect uses pauses and single-steps the emulated board, stops it at an op breakpoint,
// changes which layers train (confirmed by the board's new announcement), and holds the RAM the
// firmware measured. Skips like qemu_board_test without QEMU or the cross toolchain.
#include <QSignalSpy>
#include <QtTest>

#include <map>
#include <memory>

#include "engine/model/model.h"
#include "tests/cli/board_sim_process.h"
#include "tests/firmware/qemu_board_process.h"
#include "ui/session/breakpoints.h"
#include "ui/session/session_store.h"
#include "ui/session/sources/device_event_source.h"

namespace trainscope {

using State = EventSource::State;
constexpr int kWaitMs = 20000;

class QemuAppTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void theAppPausesStepsBreaksAndRetrainsTheEmulatedBoard() {
    if (const QString missing = testing::MissingQemuTool(); !missing.isEmpty()) {
      if (testing::QemuRequired()) QFAIL(qPrintable(missing + QStringLiteral(" is missing")));
      QSKIP(qPrintable(missing + QStringLiteral(" is missing (scripts/install-deps.sh)")));
    }
    testing::QemuBoard board(testing::DemoRunFor(1000), QStringLiteral("mps2-an386"));
    QVERIFY2(board.error().isEmpty(), qPrintable(board.error()));
    auto store = std::make_shared<SessionStore>();
    DeviceEventSource source(store);
    QSignalSpy errors(&source, &EventSource::errorOccurred);
    const Status opened = source.open(board.endpoint());
    QVERIFY2(opened.ok(), opened.message());
    QTRY_VERIFY_WITH_TIMEOUT(source.hasModel() && source.health().backward_steps >= 12, kWaitMs);
    QCOMPARE(source.health().agent, QStringLiteral("trainscope-fw mps2-an386"));
    QVERIFY(source.health().capabilities & wire::capability::kEmulatedTime);

    // Pause, then exactly one backward op per step.
    source.pause();
    QTRY_COMPARE_WITH_TIMEOUT(source.state(), State::kPaused, kWaitMs);
    QTest::qWait(300);
    const uint64_t paused_at = source.health().backward_steps;
    source.stepBackwardOp();
    QTRY_COMPARE_WITH_TIMEOUT(source.health().backward_steps, paused_at + 1, kWaitMs);
    QTest::qWait(300);
    QCOMPARE(source.health().backward_steps, paused_at + 1);

    // An op breakpoint stops the board before that op's backward step.
    Model demo;
    QVERIFY(ReadModelFile(testing::DemoFile("demo.circle").toStdString(), &demo).ok());
    const uint32_t watched = 3;  // a FULLY_CONNECTED
    QSignalSpy hits(&source, &EventSource::breakpointHit);
    BreakpointSet breakpoints;
    breakpoints.ops.insert(watched);
    QVERIFY(source.setBreakpoints(breakpoints));
    source.resume();
    QTRY_VERIFY_WITH_TIMEOUT(hits.count() >= 1, kWaitMs);
    QCOMPARE(hits.first().at(1).toUInt(), watched);
    QCOMPARE(source.state(), State::kPaused);
    QVERIFY(source.setBreakpoints(BreakpointSet{}));

    // The last two ops (the output layer and its softmax) train: the board re-plans and
    // announces exactly the output layer's weights as trained.
    const AnnouncedModel before = source.announcedModel();
    QVERIFY(before.trainedOps().size() > 1);
    const uint16_t output_layer = static_cast<uint16_t>(demo.graph().main().operators.size() - 2);
    source.setTrainability(2, {});
    source.resume();
    const std::map<uint16_t, TrainRank> expected = {{output_layer, TrainRank::kAll}};
    QTRY_VERIFY2_WITH_TIMEOUT(source.announcedModel().trainedOps() == expected,
                              qPrintable(board.log()), kWaitMs);
    const uint64_t after = source.health().backward_steps;
    QTRY_VERIFY_WITH_TIMEOUT(source.health().backward_steps >= after + 12, kWaitMs);
    QCOMPARE(source.state(), State::kRunning);

    // What the firmware measured of itself, with the new plan.
    QTRY_VERIFY_WITH_TIMEOUT(source.health().has_device_memory, kWaitMs);
    const wire::DeviceMemoryMessage memory = source.health().device_memory;
    QCOMPARE(memory.source, wire::MemorySource::kMeasured);
    QVERIFY(memory.heap_peak_bytes > memory.predicted_heap_peak_bytes);
    QVERIFY(memory.stack_peak_bytes > 0);
    QCOMPARE(memory.ram_bytes, 192u * 1024u);
    QVERIFY2(errors.isEmpty(), errors.isEmpty() ? "" : qPrintable(errors.first().at(0).toString()));
    source.close();
  }
};

}  // namespace trainscope

QTEST_MAIN(trainscope::QemuAppTest)
#include "qemu_app_test.moc"
