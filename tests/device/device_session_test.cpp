// SPDX-License-Identifier: Apache-2.0
//
// DeviceEventSource end to end against trainscope-board-sim: steps reach the store over TCP and
// over a pty, pause and single-step are confirmed by the board, a trainability change is
// confirmed and shrinks the memory the board reports, the session survives the board going away
// (TCP: restarted on the same port; pty: a new path given through setEndpoint), and the recorded
// trace replays to exactly the backward steps the store received.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

#include "engine/core/training_options.h"
#include "engine/model/model.h"
#include "serial/protocol/message_router.h"
#include "serial/trace/trace_file.h"
#include "tests/cli/board_sim_process.h"
#include "ui/session/session_snapshot.h"
#include "ui/session/sources/device_event_source.h"

namespace trainscope {
namespace {

using testing::BoardSimProcess;
using testing::DemoFile;
using State = EventSource::State;

constexpr int kWaitMs = 10000;
constexpr int kQuietMs = 300;  // a paused board must stay silent at least this long

uint64_t BackwardSteps(const DeviceEventSource& source) {
  return source.health().backward_steps;
}

bool StoreHasMessage(const SessionStore& store, const QString& part) {
  const auto snapshot = store.snapshot();
  for (const StatusMessage& message : *snapshot->messages) {
    if (message.text.contains(part)) return true;
  }
  return false;
}

// The trained op with the most weight elements: making it bias-only must shrink the gradients.
int LargestTrainedOp(const AnnouncedModel& announced, const Graph& graph) {
  int best = -1;
  size_t best_elements = 0;
  for (const auto& [op, rank] : announced.trainedOps()) {
    const Operator& node = graph.main().operators[op];
    if (node.inputs.size() < 2 || node.inputs[1] < 0) continue;
    const size_t elements =
        graph.main().tensors[static_cast<size_t>(node.inputs[1])].element_count();
    if (elements > best_elements) {
      best_elements = elements;
      best = op;
    }
  }
  return best;
}

// Replays a trace: counts backward-step ends and the largest current_bytes of the memory
// summaries while `op` trained bias-only (as announced) and while it did not.
class ReplayCounter final : public TrainingObserver, public wire::LinkHandler {
 public:
  explicit ReplayCounter(int op) : op_(op) {}
  void OnBackwardStep(const BackwardStepEvent& event) override {
    if (!event.begin) ++backward_steps;
  }
  void OnMemorySummary(const MemorySummaryEvent& event) override {
    uint64_t& peak = bias_only_ ? peak_bias_only : peak_full;
    peak = std::max(peak, event.current_bytes);
  }
  void OnModelAnnounce(const wire::ModelAnnounceMessage& announce) override {
    if (op_ < 0) return;
    const uint32_t k = static_cast<uint32_t>(op_);
    if (k < announce.first_op || k >= announce.first_op + announce.entry_count) return;
    const wire::OpSummary& summary = announce.ops[k - announce.first_op];
    bias_only_ = summary.trainable && summary.rank == TrainRank::kOnlyBias;
  }

  uint64_t backward_steps = 0;
  uint64_t peak_full = 0;
  uint64_t peak_bias_only = 0;

 private:
  int op_;
  bool bias_only_ = false;
};

}  // namespace

class DeviceSessionTest : public QObject {
  Q_OBJECT

 private:
  // PAUSE is confirmed by RUN_STATE, then STEP_BACKWARD_OP delivers exactly one backward step.
  void pauseAndStepOneOp(DeviceEventSource* source) {
    QSignalSpy states(source, &EventSource::stateChanged);
    source->pause();
    QTRY_COMPARE_WITH_TIMEOUT(source->state(), State::kPaused, kWaitMs);
    QVERIFY(source->health().last_ack_latency_us >= 0);
    const uint64_t paused_at = BackwardSteps(*source);
    QTest::qWait(kQuietMs);
    QCOMPARE(BackwardSteps(*source), paused_at);

    states.clear();
    source->stepBackwardOp();
    QTRY_VERIFY_WITH_TIMEOUT(states.count() >= 2, kWaitMs);  // running, then paused again
    QTRY_COMPARE_WITH_TIMEOUT(source->state(), State::kPaused, kWaitMs);
    QCOMPARE(BackwardSteps(*source), paused_at + 1);
    QTest::qWait(kQuietMs);
    QCOMPARE(BackwardSteps(*source), paused_at + 1);
    QCOMPARE(states.first().first().value<State>(), State::kRunning);
  }

 private Q_SLOTS:
  void overTcpStepsPauseTrainabilityReconnectAndReplay() {
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("session.tstrace"));
    auto sim = std::make_unique<BoardSimProcess>(
        QStringList{QStringLiteral("--tcp"), QStringLiteral("0")});
    QVERIFY2(sim->started(), qPrintable(sim->error()));
    const QString endpoint = sim->endpoint();
    const QString port = endpoint.section(QLatin1Char(':'), -1);

    auto store = std::make_shared<SessionStore>();
    DeviceEventSource source(store);
    QSignalSpy errors(&source, &EventSource::errorOccurred);
    const Status opened = source.open(endpoint, trace);
    QVERIFY2(opened.ok(), opened.message());

    // Steps arrive and the store shows them.
    QTRY_VERIFY_WITH_TIMEOUT(BackwardSteps(source) >= 20, kWaitMs);
    QCOMPARE(source.state(), State::kRunning);
    auto snapshot = store->snapshot();
    QVERIFY(snapshot->progress.samples_started > 0);
    bool any_backward = false;
    for (const OpActivity& op : snapshot->ops) any_backward |= op.seen_backward;
    QVERIFY(any_backward);

    // The announced model is the demo file (hash computed here independently).
    QTRY_VERIFY_WITH_TIMEOUT(source.hasModel(), kWaitMs);
    const AnnouncedModel announced = source.announcedModel();
    QCOMPARE(QStringLiteral("%1").arg(announced.hash, 16, 16, QLatin1Char('0')),
             testing::FileHashHex(DemoFile("demo.circle")));
    Model demo;
    QVERIFY(ReadModelFile(DemoFile("demo.circle").toStdString(), &demo).ok());
    QCOMPARE(announced.ops.size(), demo.graph().main().operators.size());
    // The board says how it trains (the demo's metadata: Adam, batch 1), so the desktop plans
    // its memory for that.
    QCOMPARE(announced.optimizer, static_cast<uint8_t>(OptimizerKind::kAdam));
    QCOMPARE(announced.batch_size, 1u);

    pauseAndStepOneOp(&source);

    // Trainability: the largest trained op becomes bias-only; the board confirms by announcing it.
    const int op = LargestTrainedOp(announced, demo.graph());
    QVERIFY(op >= 0);
    std::map<uint16_t, TrainRank> ranks = announced.trainedOps();
    ranks[static_cast<uint16_t>(op)] = TrainRank::kOnlyBias;
    source.setTrainability(0, ranks);
    source.resume();
    QTRY_VERIFY_WITH_TIMEOUT(
        source.announcedModel().ops[static_cast<size_t>(op)].rank == TrainRank::kOnlyBias, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        store->snapshot()->ops.size() > static_cast<size_t>(op) &&
            store->snapshot()->ops[static_cast<size_t>(op)].rank == TrainRank::kOnlyBias,
        kWaitMs);
    const uint64_t after_change = BackwardSteps(source);
    QTRY_VERIFY_WITH_TIMEOUT(BackwardSteps(source) >= after_change + 30, kWaitMs);

    // Unplug: the board goes away and comes back on the same port.
    sim.reset();
    QTRY_VERIFY_WITH_TIMEOUT(source.health().reconnecting, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(StoreHasMessage(*store, QStringLiteral("link lost")), kWaitMs);
    sim = std::make_unique<BoardSimProcess>(QStringList{QStringLiteral("--tcp"), port});
    QVERIFY2(sim->started(), qPrintable(sim->error()));
    QTRY_VERIFY_WITH_TIMEOUT(source.health().connected, kWaitMs);
    QVERIFY(StoreHasMessage(*store, QStringLiteral("reconnected")));
    QVERIFY(source.health().reconnects >= 1);
    const uint64_t reconnected_at = BackwardSteps(source);
    QTRY_VERIFY_WITH_TIMEOUT(BackwardSteps(source) >= reconnected_at + 20, kWaitMs);
    QCOMPARE(errors.count(), 0);

    source.close();
    const uint64_t seen = BackwardSteps(source);
    ReplayCounter counter(op);
    wire::MessageRouter router(&counter, &counter);
    TraceReplay replay;
    const Status replayed = ReplayTrace(trace.toStdString(), &router, &replay);
    QVERIFY2(replayed.ok(), replayed.message());
    QCOMPARE(counter.backward_steps, seen);
    QCOMPARE(replay.header.model_hash, announced.hash);
    qInfo(
        "replayed %llu backward steps; op %d bias-only: peak %llu B, full: %llu B; last ACK "
        "%lld us",
        static_cast<unsigned long long>(counter.backward_steps), op,
        static_cast<unsigned long long>(counter.peak_bias_only),
        static_cast<unsigned long long>(counter.peak_full),
        static_cast<long long>(source.health().last_ack_latency_us));
    // Memory the board reported: bias-only gradients for the largest weights need less.
    QVERIFY(counter.peak_full > 0);
    QVERIFY(counter.peak_bias_only > 0);
    QVERIFY2(
        counter.peak_bias_only < counter.peak_full,
        qPrintable(QStringLiteral("%1 vs %2").arg(counter.peak_bias_only).arg(counter.peak_full)));
  }

  void overAPtyStepsPauseAndFollowTheBoardToANewPath() {
    auto sim = std::make_unique<BoardSimProcess>(QStringList{QStringLiteral("--pty")});
    QVERIFY2(sim->started(), qPrintable(sim->error()));
    auto store = std::make_shared<SessionStore>();
    DeviceEventSource source(store);
    const Status opened = source.open(sim->endpoint());
    QVERIFY2(opened.ok(), opened.message());
    QTRY_VERIFY_WITH_TIMEOUT(BackwardSteps(source) >= 10, kWaitMs);
    QVERIFY(store->snapshot()->progress.samples_started > 0);
    pauseAndStepOneOp(&source);

    // A pty board that restarts comes back under a new path.
    sim.reset();
    QTRY_VERIFY_WITH_TIMEOUT(source.health().reconnecting, kWaitMs);
    sim = std::make_unique<BoardSimProcess>(QStringList{QStringLiteral("--pty")});
    QVERIFY2(sim->started(), qPrintable(sim->error()));
    source.setEndpoint(sim->endpoint());
    QTRY_VERIFY_WITH_TIMEOUT(source.health().connected, kWaitMs);
    const uint64_t reconnected_at = BackwardSteps(source);
    QTRY_VERIFY_WITH_TIMEOUT(BackwardSteps(source) >= reconnected_at + 10, kWaitMs);
    QCOMPARE(source.health().endpoint, sim->endpoint());
  }

  void aRefusedCommandBecomesAnErrorWithTheBoardsReason() {
    BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
    QVERIFY2(sim.started(), qPrintable(sim.error()));
    DeviceEventSource source(std::make_shared<SessionStore>());
    QSignalSpy errors(&source, &EventSource::errorOccurred);
    QVERIFY(source.open(sim.endpoint()).ok());
    QTRY_VERIFY_WITH_TIMEOUT(source.hasModel(), kWaitMs);
    source.setTrainability(0, {{500, TrainRank::kAll}});  // past the model's op count
    QTRY_VERIFY_WITH_TIMEOUT(errors.count() >= 1, kWaitMs);
    const QString message = errors.first().first().toString();
    QVERIFY2(message.contains(QLatin1String("SET_TRAINABILITY")) &&
                 message.contains(QLatin1String("invalid argument"), Qt::CaseInsensitive),
             qPrintable(message));
  }

  void onALossyLinkCommandsAreRetriedAndLostReportsRecovered() {
    // Frames vanish both ways; the user still sees the model, every PAUSE/RESUME takes effect
    // and nothing is reported as refused or unanswered.
    BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"),
                         QStringLiteral("--drop-rate"), QStringLiteral("0.2"),
                         QStringLiteral("--command-drop-rate"), QStringLiteral("0.4"),
                         QStringLiteral("--seed"), QStringLiteral("11")});
    QVERIFY2(sim.started(), qPrintable(sim.error()));
    DeviceEventSource source(std::make_shared<SessionStore>());
    QSignalSpy errors(&source, &EventSource::errorOccurred);
    QVERIFY(source.open(sim.endpoint()).ok());
    QTRY_VERIFY_WITH_TIMEOUT(source.hasModel(), kWaitMs);
    for (int round = 0; round < 4; ++round) {
      source.pause();
      QTRY_COMPARE_WITH_TIMEOUT(source.state(), State::kPaused, kWaitMs);
      source.resume();
      QTRY_COMPARE_WITH_TIMEOUT(source.state(), State::kRunning, kWaitMs);
    }
    QTRY_VERIFY_WITH_TIMEOUT(source.health().commands_resent > 0, kWaitMs);
    QCOMPARE(errors.count(), 0);
  }

  // A board says where its schedule is: waiting for a desktop, training, finished. A finished
  // board is a stopped session (nothing to pause), and the store says how it ended.
  void aFinishedBoardIsStoppedAndSaysHowItEnded() {
    BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"), QStringLiteral("--epochs"),
                         QStringLiteral("1"), QStringLiteral("--wait-for-desktop")});
    QVERIFY2(sim.started(), qPrintable(sim.error()));
    auto store = std::make_shared<SessionStore>();
    DeviceEventSource source(store);
    QSignalSpy states(&source, &EventSource::stateChanged);
    QVERIFY(source.open(sim.endpoint()).ok());
    // One epoch of the demo takes milliseconds: running, then stopped once finished.
    QTRY_VERIFY_WITH_TIMEOUT(StoreHasMessage(*store, QStringLiteral("board finished training")),
                             kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(source.state(), State::kStopped, kWaitMs);
    bool ran = false;
    for (const QList<QVariant>& change : states) {
      ran = ran || change.at(0).value<State>() == State::kRunning;
    }
    QVERIFY(ran);
    const int samples = testing::DemoSampleCount();
    QTRY_VERIFY_WITH_TIMEOUT(
        StoreHasMessage(*store, QStringLiteral("board finished training: %1 optimizer steps, last "
                                               "loss ")
                                    .arg(samples)),
        kWaitMs);
    QCOMPARE(source.health().backward_steps, static_cast<uint64_t>(samples * 6));
    // Stopped training, not a lost link: the board still answers.
    QTest::qWait(1500);
    QVERIFY(source.isOpen());
    QVERIFY(source.health().connected);
    QVERIFY(source.health().heartbeats >= 1);
    source.close();
  }

  void commandsWithoutALinkFailAtOnce() {
    DeviceEventSource source(std::make_shared<SessionStore>());
    QSignalSpy errors(&source, &EventSource::errorOccurred);
    source.pause();
    QCOMPARE(errors.count(), 1);
    QCOMPARE(source.state(), State::kStopped);
    const Status refused = source.open(QStringLiteral("tcp-listen://127.0.0.1:0"));
    QVERIFY(!refused.ok());
    QVERIFY(!source.isOpen());
  }
};

}  // namespace trainscope

QTEST_MAIN(trainscope::DeviceSessionTest)
#include "device_session_test.moc"
