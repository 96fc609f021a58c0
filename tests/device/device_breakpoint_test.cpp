// SPDX-License-Identifier: Apache-2.0
//
// Breakpoints on a board: the SET_BREAKPOINT plan leaves a real board ControlState holding
// exactly the app's set whatever it held before, kinds the wire cannot express are named,
// a RUN_STATE pause becomes the hit (and the DescribeHit sentence) the local source would
// produce, and end to end against trainscope-board-sim over TCP: an op breakpoint pauses the
// board before that op's backward step and names the op, a refused breakpoint is an error while
// the rest applies, and clearing lets the run continue.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <memory>
#include <vector>

#include "engine/model/model.h"
#include "engine/model/opcodes.h"
#include "serial/agent/control_state.h"
#include "tests/cli/board_sim_process.h"
#include "ui/session/session_snapshot.h"
#include "ui/session/sources/device_breakpoints.h"
#include "ui/session/sources/device_event_source.h"

namespace trainscope {
namespace {

using testing::BoardSimProcess;
using testing::DemoFile;
using State = EventSource::State;

constexpr int kWaitMs = 8000;
constexpr int kQuietMs = 300;  // a paused board must stay silent at least this long

// Records a source's signals on the test thread (they may be emitted on the reader thread).
struct SignalLog {
  QObject context;
  QStringList errors;
  QStringList hits;
  std::vector<uint32_t> hit_ops;

  explicit SignalLog(EventSource* source) {
    QObject::connect(
        source, &EventSource::errorOccurred, &context,
        [this](const QString& message) { errors.append(message); }, Qt::QueuedConnection);
    QObject::connect(
        source, &EventSource::breakpointHit, &context,
        [this](const QString& reason, uint32_t op) {
          hits.append(reason);
          hit_ops.push_back(op);
        },
        Qt::QueuedConnection);
  }
  bool anyErrorContains(const QString& a, const QString& b) const {
    for (const QString& error : errors) {
      if (error.contains(a, Qt::CaseInsensitive) && error.contains(b, Qt::CaseInsensitive)) {
        return true;
      }
    }
    return false;
  }
};

bool StoreHasMessage(const SessionStore& store, const QString& text) {
  const auto snapshot = store.snapshot();
  for (const StatusMessage& message : *snapshot->messages) {
    if (message.text == text) return true;
  }
  return false;
}

ControlState BoardWithBreakpoints() {
  ControlState board(wire::capability::kBreakpoints | wire::capability::kPauseStep);
  board.set_op_count(10);
  return board;
}

BackwardStepEvent BackwardBegin(uint32_t op, uint32_t op_count) {
  BackwardStepEvent event;
  event.op_index = op;
  event.step = op_count - 1 - op;
  event.begin = true;
  return event;
}

}  // namespace

class DeviceBreakpointTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void thePlanLeavesTheBoardHoldingExactlyTheSet() {
    ControlState board = BoardWithBreakpoints();
    // What an earlier session left behind.
    wire::SetBreakpointCommand old_op;
    old_op.op_index = 7;
    QCOMPARE(board.Apply(old_op), wire::AckResult::kOk);
    wire::SetBreakpointCommand old_nan;
    old_nan.kind = wire::BreakpointKind::kNanInf;
    QCOMPARE(board.Apply(old_nan), wire::AckResult::kOk);

    BreakpointSet set;
    set.ops = {2, 5};
    set.gradient_enabled = true;
    set.gradient_measure = GradientMeasure::kMaxAbs;
    set.gradient_threshold = 0.5f;
    const BreakpointPlan plan = PlanBreakpointCommands(set);
    QVERIFY(plan.not_expressible.isEmpty());
    for (const wire::SetBreakpointCommand& command : plan.commands) {
      QCOMPARE(board.Apply(command), wire::AckResult::kOk);
    }

    board.OnBackwardStep(BackwardBegin(7, 10));  // cleared
    QVERIFY(!board.paused());
    GradientStatsEvent nan_gradient;
    nan_gradient.op_index = 9;
    nan_gradient.nan_count = 3;
    nan_gradient.max_abs = 0.25f;
    board.OnGradientStats(nan_gradient);  // NaN/Inf cleared, max |g| under the threshold
    QVERIFY(!board.paused());
    GradientStatsEvent large;
    large.op_index = 6;
    large.tensor = 11;
    large.max_abs = 0.75f;
    board.OnGradientStats(large);
    QVERIFY(board.paused());
    wire::RunStateMessage state;
    QVERIFY(board.TakeRunStateChange(&state));
    QCOMPARE(state.reason, wire::PauseReason::kGradientBreakpoint);

    QCOMPARE(board.Apply(wire::BasicCommand{wire::MessageType::kResume, 1}), wire::AckResult::kOk);
    board.OnBackwardStep(BackwardBegin(5, 10));
    QVERIFY(board.paused());
    QVERIFY(board.TakeRunStateChange(&state));
    QCOMPARE(state.reason, wire::PauseReason::kOpBreakpoint);
    QCOMPARE(state.op_index, 5u);

    // The empty set clears everything again.
    for (const wire::SetBreakpointCommand& command : PlanBreakpointCommands({}).commands) {
      QCOMPARE(board.Apply(command), wire::AckResult::kOk);
    }
    QCOMPARE(board.Apply(wire::BasicCommand{wire::MessageType::kResume, 2}), wire::AckResult::kOk);
    board.OnBackwardStep(BackwardBegin(2, 10));
    board.OnGradientStats(large);
    QVERIFY(!board.paused());
  }

  void kindsTheWireCannotExpressAreNamedAndLeftDisabled() {
    BreakpointSet set;
    set.nan_inf = true;
    set.gradient_enabled = true;
    set.gradient_measure = GradientMeasure::kL2Norm;
    set.budget_enabled = true;
    set.budget_bytes = uint64_t{5} << 30;
    const BreakpointPlan plan = PlanBreakpointCommands(set);
    QCOMPARE(plan.not_expressible.size(), 2);
    QVERIFY(plan.not_expressible.join(QLatin1Char(' ')).contains(QLatin1String("L2 norm")));
    QVERIFY(plan.not_expressible.join(QLatin1Char(' ')).contains(QLatin1String("RAM budget")));

    ControlState board = BoardWithBreakpoints();
    for (const wire::SetBreakpointCommand& command : plan.commands) {
      QCOMPARE(board.Apply(command), wire::AckResult::kOk);
    }
    MemorySummaryEvent summary;
    summary.current_bytes = 1;
    board.OnMemorySummary(summary);
    GradientStatsEvent large;
    large.max_abs = 1e30f;
    board.OnGradientStats(large);
    QVERIFY(!board.paused());  // neither a budget nor a threshold was set
    GradientStatsEvent nan_gradient;
    nan_gradient.inf_count = 1;
    board.OnGradientStats(nan_gradient);
    QVERIFY(board.paused());  // the rest still applies
  }

  void aBreakpointPauseReadsLikeTheLocalSourcesHit() {
    AnnouncedModel model;
    model.op_count = 3;
    model.tensor_count = 9;
    model.ops.resize(3);
    model.ops[0].opcode = op::kConv2D;
    model.ops[1].opcode = op::kFullyConnected;
    model.ops[2].opcode = op::kSoftmax;
    model.tensor_names[4] = "fc/weights";

    // The same facts as a graph the local source would hold.
    Graph graph;
    graph.subgraphs.resize(1);
    graph.subgraphs[0].operators.resize(3);
    graph.subgraphs[0].operators[0].opcode = op::kConv2D;
    graph.subgraphs[0].operators[1].opcode = op::kFullyConnected;
    graph.subgraphs[0].operators[2].opcode = op::kSoftmax;
    graph.subgraphs[0].tensors.resize(9);
    graph.subgraphs[0].tensors[4].name = "fc/weights";

    RecentBreakpointEvents recent;
    recent.backward_begin = BackwardBegin(1, 3);
    GradientStatsEvent stats;
    stats.optimizer_step = 12;
    stats.op_index = 1;
    stats.tensor = 4;
    stats.nan_count = 5;
    stats.inf_count = 2;
    recent.gradient = stats;

    wire::RunStateMessage state;
    state.state = wire::RunStateKind::kPaused;
    state.reason = wire::PauseReason::kOpBreakpoint;
    state.op_index = 1;
    std::optional<BreakpointHit> hit = HitFromRunState(state, {}, recent, 3);
    QVERIFY(hit.has_value());
    BreakpointHit expected;
    expected.kind = BreakpointKind::kOpIndex;
    expected.op_index = 1;
    expected.backward_step = 1;
    QCOMPARE(DescribeDeviceHit(*hit, &model), DescribeHit(expected, &graph));
    QVERIFY(DescribeDeviceHit(*hit, &model).contains(QLatin1String("op #1 FULLY_CONNECTED")));

    state.reason = wire::PauseReason::kNanInfBreakpoint;
    state.tensor = 4;
    state.optimizer_step = 11;  // the board's sample counter; the event's step wins
    hit = HitFromRunState(state, {}, recent, 3);
    QVERIFY(hit.has_value());
    expected = BreakpointHit{};
    expected.kind = BreakpointKind::kNanInf;
    expected.op_index = 1;
    expected.tensor = 4;
    expected.nan_count = 5;
    expected.inf_count = 2;
    expected.optimizer_step = 12;
    QCOMPARE(DescribeDeviceHit(*hit, &model), DescribeHit(expected, &graph));
    QVERIFY(DescribeDeviceHit(*hit, &model).contains(QLatin1String("'fc/weights'")));
    // A board naming tensor 2^31-1 (and claiming as many tensors) is described without a name,
    // without allocating for the index.
    AnnouncedModel hostile = model;
    hostile.tensor_count = UINT32_MAX;
    BreakpointHit far = *hit;
    far.tensor = INT32_MAX;
    QVERIFY(DescribeDeviceHit(far, &hostile).contains(QString::number(INT32_MAX)));

    BreakpointSet asked;
    asked.gradient_threshold = 0.5f;
    state.reason = wire::PauseReason::kGradientBreakpoint;
    state.value = 2.0f;
    hit = HitFromRunState(state, asked, recent, 3);
    QVERIFY(hit.has_value());
    QCOMPARE(hit->kind, BreakpointKind::kGradientAbove);
    QCOMPARE(hit->measure, GradientMeasure::kMaxAbs);
    QCOMPARE(hit->value, 2.0);
    QCOMPARE(hit->threshold, 0.5);

    // Pauses that are not a breakpoint's have no hit.
    state.reason = wire::PauseReason::kStepDone;
    QVERIFY(!HitFromRunState(state, asked, recent, 3).has_value());
    state.reason = wire::PauseReason::kCommand;
    QVERIFY(!HitFromRunState(state, asked, recent, 3).has_value());
  }

  void onTheBoardSimAnOpBreakpointPausesBeforeItsBackwardStep() {
    BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
    QVERIFY2(sim.started(), qPrintable(sim.error()));
    Model demo;
    QVERIFY(ReadModelFile(DemoFile("demo.circle").toStdString(), &demo).ok());
    const Graph& graph = demo.graph();
    const uint32_t n = static_cast<uint32_t>(graph.main().operators.size());

    auto store = std::make_shared<SessionStore>();
    DeviceEventSource source(store);
    SignalLog log(&source);
    QVERIFY(source.open(sim.endpoint()).ok());
    QTRY_VERIFY_WITH_TIMEOUT(source.hasModel(), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(source.health().backward_steps >= 5, kWaitMs);
    QCOMPARE(source.state(), State::kRunning);

    // The op before the last: the backward loop reaches it right after op n-1 in every sample,
    // as long as some op at or below it trains.
    const uint32_t watched = n - 2;
    const std::map<uint16_t, TrainRank> trained = source.announcedModel().trainedOps();
    QVERIFY(!trained.empty() && trained.begin()->first <= watched);

    BreakpointSet set;
    set.ops = {watched, 500};  // 500 lies past the model: the board refuses that one
    set.gradient_enabled = true;
    set.gradient_measure = GradientMeasure::kL2Norm;  // a board cannot compare the L2 norm
    QVERIFY(source.setBreakpoints(set));
    QCOMPARE(source.breakpoints(), set);

    QTRY_VERIFY_WITH_TIMEOUT(source.state() == State::kPaused && !log.hits.isEmpty(), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        log.anyErrorContains(QStringLiteral("op #500"), QStringLiteral("invalid argument")),
        kWaitMs);
    QVERIFY2(log.anyErrorContains(QStringLiteral("gradient"), QStringLiteral("L2 norm")),
             qPrintable(log.errors.join(QLatin1Char('\n'))));
    QCOMPARE(log.hits.size(), 1);
    QCOMPARE(log.hit_ops.front(), watched);
    BreakpointHit expected;
    expected.kind = BreakpointKind::kOpIndex;
    expected.op_index = watched;
    expected.backward_step = n - 1 - watched;
    const QString reason = DescribeHit(expected, &graph);  // names the op from the file
    QCOMPARE(log.hits.front(), reason);
    QVERIFY(StoreHasMessage(*store, reason));

    // Paused before the op's backward step: it began and did not end, and the last backward
    // step that ran is the previous one in backward order.
    const auto snapshot = store->snapshot();
    QVERIFY(snapshot->progress.has_backward_step);
    QCOMPARE(snapshot->progress.op_index, watched);
    QVERIFY(snapshot->progress.backward_step_running);
    QVERIFY(!snapshot->progress.done_ops.empty());
    QCOMPARE(snapshot->progress.done_ops.back(), watched + 1);
    const uint64_t paused_at = source.health().backward_steps;
    QTest::qWait(kQuietMs);
    QCOMPARE(source.health().backward_steps, paused_at);
    QCOMPARE(source.state(), State::kPaused);

    // Cleared, the run goes on through whole samples without stopping again.
    QVERIFY(source.setBreakpoints(BreakpointSet{}));
    source.resume();
    QTRY_VERIFY_WITH_TIMEOUT(source.health().backward_steps >= paused_at + 3 * n, kWaitMs);
    QCOMPARE(source.state(), State::kRunning);
    QCOMPARE(log.hits.size(), 1);
  }

  void onTheBoardSimAGradientThresholdNamesTheTensor() {
    BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
    QVERIFY2(sim.started(), qPrintable(sim.error()));
    DeviceEventSource source(std::make_shared<SessionStore>());
    SignalLog log(&source);
    QVERIFY(source.open(sim.endpoint()).ok());
    QTRY_VERIFY_WITH_TIMEOUT(source.hasModel(), kWaitMs);

    BreakpointSet set;
    set.gradient_enabled = true;
    set.gradient_measure = GradientMeasure::kMaxAbs;
    set.gradient_threshold = 0.0f;  // any nonzero gradient exceeds it
    QVERIFY(source.setBreakpoints(set));
    QTRY_VERIFY_WITH_TIMEOUT(source.state() == State::kPaused && !log.hits.isEmpty(), kWaitMs);
    const QString& reason = log.hits.front();
    QVERIFY2(reason.startsWith(QLatin1String("breakpoint: the gradient max |g| of tensor ")) &&
                 reason.contains(QLatin1String("above the threshold 0")),
             qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("(op #%1 ").arg(log.hit_ops.front())),
             qPrintable(reason));
    QVERIFY2(log.errors.isEmpty(), qPrintable(log.errors.join(QLatin1Char('\n'))));
  }
};

}  // namespace trainscope

QTEST_MAIN(trainscope::DeviceBreakpointTest)
#include "device_breakpoint_test.moc"
