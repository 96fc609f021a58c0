// SPDX-License-Identifier: Apache-2.0
//
// Commands from the desktop, applied by the agent: pause/resume/step, breakpoints,
// trainability changes, and their ACKs and RUN_STATE reports.
#include <gtest/gtest.h>

#include <vector>

#include "serial/agent/agent.h"
#include "tests/serial/agent_harness.h"

namespace trainscope {
namespace {

using testing::AgentHarness;
using wire::AckResult;
using wire::BasicCommand;
using wire::MessageType;
using wire::PauseReason;
using wire::RunStateKind;
using wire::SetBreakpointCommand;
using wire::SetTrainabilityCommand;

BackwardStepEvent Backward(uint32_t op_index, bool begin) {
  BackwardStepEvent event;
  event.op_index = op_index;
  event.begin = begin;
  return event;
}

// The firmware resumes after `polls_before_resume` polls while paused.
void ResumeAfter(AgentHarness& h, int polls_before_resume) {
  h.on_poll = [polls_before_resume, waited = 0](AgentHarness& self) mutable {
    if (self.agent->paused() && ++waited == polls_before_resume) {
      waited = 0;
      self.SendCommand(BasicCommand{MessageType::kResume, 0});
    }
  };
}

TEST(AgentControl, EveryCommandIsAcknowledgedWithItsId) {
  AgentHarness h;
  h.StartAgent();
  const uint16_t id = h.SendCommand(BasicCommand{MessageType::kPing, 0});
  const wire::AckMessage ack = h.LastAck();
  EXPECT_EQ(ack.command_id, id);
  EXPECT_EQ(ack.command, MessageType::kPing);
  EXPECT_EQ(ack.result, AckResult::kOk);
}

TEST(AgentControl, PauseStopsTheRunAtTheNextSafePointUntilResume) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  h.SendCommand(BasicCommand{MessageType::kPause, 0});
  EXPECT_TRUE(agent.paused());
  ResumeAfter(h, 3);
  agent.OnBackwardStep(Backward(4, false));  // waits here for three polls
  EXPECT_FALSE(agent.paused());
  EXPECT_GE(h.polls, 3);

  const auto states = h.desktop.All<wire::RunStateMessage>();
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(states[0].state, RunStateKind::kPaused);
  EXPECT_EQ(states[0].reason, PauseReason::kCommand);
  EXPECT_EQ(states[1].state, RunStateKind::kRunning);
}

TEST(AgentControl, APauseReceivedWhilePollingDuringTrainingStopsAtThatEvent) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  bool pause_sent = false;
  h.on_poll = [&](AgentHarness& self) {
    if (!pause_sent) {
      pause_sent = true;
      self.SendCommand(BasicCommand{MessageType::kPause, 0});
    } else if (self.agent->paused()) {
      self.SendCommand(BasicCommand{MessageType::kResume, 0});
    }
  };
  agent.OnSample(SampleEvent{0, 1, 0, true});
  EXPECT_TRUE(pause_sent);
  EXPECT_EQ(h.desktop.All<wire::RunStateMessage>().size(), 2u);
}

TEST(AgentControl, StepBackwardOpPausesAfterTheNextBackwardStep) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  h.SendCommand(BasicCommand{MessageType::kStepBackwardOp, 0});
  ResumeAfter(h, 1);
  agent.OnBackwardStep(Backward(5, true));
  EXPECT_TRUE(h.desktop.All<wire::RunStateMessage>().empty());
  agent.OnBackwardStep(Backward(5, false));
  const auto states = h.desktop.All<wire::RunStateMessage>();
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(states[0].reason, PauseReason::kStepDone);
  EXPECT_EQ(states[0].op_index, 5u);
  // Resumed: the next step does not stop.
  agent.OnBackwardStep(Backward(4, false));
  EXPECT_EQ(h.desktop.All<wire::RunStateMessage>().size(), 2u);
}

TEST(AgentControl, ACommandSentAgainUnderItsIdIsAnsweredAgainButAppliedOnce) {
  AgentHarness h;
  h.config.poll = nullptr;  // the agent reports but never waits: each step is one event
  Agent& agent = h.StartAgent();
  h.SendCommand(BasicCommand{MessageType::kPause, 0});
  const uint16_t step = h.SendCommand(BasicCommand{MessageType::kStepBackwardOp, 0});
  EXPECT_FALSE(agent.paused());
  agent.OnBackwardStep(Backward(4, false));
  ASSERT_TRUE(agent.paused());  // the step is done

  // The ACK was lost on the way back, so the desktop sends the same STEP again: applying it
  // would run one op too many.
  h.SendCommandWithId(BasicCommand{MessageType::kStepBackwardOp, 0}, step);
  EXPECT_TRUE(agent.paused());
  EXPECT_EQ(h.LastAck().command_id, step);
  EXPECT_EQ(h.LastAck().result, AckResult::kOk);
  EXPECT_EQ(agent.stats().repeated_commands, 1u);

  // The same id with another type is another command; so is the next id.
  h.SendCommandWithId(BasicCommand{MessageType::kPing, 0}, step);
  EXPECT_EQ(agent.stats().repeated_commands, 1u);
  h.SendCommand(BasicCommand{MessageType::kStepBackwardOp, 0});
  EXPECT_FALSE(agent.paused());
}

TEST(AgentControl, ARepeatKeepsTheFirstAnswer) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  SetBreakpointCommand bad;
  bad.kind = wire::BreakpointKind::kGradientAbove;
  bad.threshold = -1.0f;
  const uint16_t id = h.SendCommand(bad);
  EXPECT_EQ(h.LastAck().result, AckResult::kInvalidArgument);
  h.SendCommandWithId(bad, id);
  EXPECT_EQ(h.LastAck().result, AckResult::kInvalidArgument);
  EXPECT_EQ(agent.stats().repeated_commands, 1u);
  EXPECT_EQ(agent.stats().commands_rejected, 1u);  // answered twice, judged once
}

TEST(AgentControl, RequestHelloStartsANewDesktopWhoseIdsMayRepeatTheLastOnes) {
  AgentHarness h;
  h.config.poll = nullptr;
  Agent& agent = h.StartAgent();
  h.SendCommandWithId(BasicCommand{MessageType::kRequestHello, 0}, 10);
  h.SendCommandWithId(BasicCommand{MessageType::kPause, 0}, 11);
  ASSERT_TRUE(agent.paused());
  h.SendCommandWithId(BasicCommand{MessageType::kResume, 0}, 12);
  ASSERT_FALSE(agent.paused());
  // The first desktop quits; a second one happens to number from 8, so its fourth command
  // reuses the id of the first desktop's PAUSE.
  h.SendCommandWithId(BasicCommand{MessageType::kRequestHello, 0}, 8);
  h.SendCommandWithId(BasicCommand{MessageType::kPause, 0}, 9);
  h.SendCommandWithId(BasicCommand{MessageType::kResume, 0}, 10);
  ASSERT_FALSE(agent.paused());
  h.SendCommandWithId(BasicCommand{MessageType::kPause, 0}, 11);
  EXPECT_TRUE(agent.paused());
  EXPECT_EQ(agent.stats().repeated_commands, 0u);
  EXPECT_EQ(h.desktop.All<wire::HelloMessage>().size(), 3u);  // Start() and both requests
}

// A memory report is sent once per desktop: unchanged figures are not repeated, but a new session
// (Start() for a new peer) hears them again even though nothing changed.
TEST(AgentControl, ANewSessionHearsTheUnchangedMemoryReport) {
  AgentHarness h;
  h.config.poll = nullptr;
  Agent& agent = h.StartAgent();
  wire::DeviceMemoryMessage memory;
  memory.heap_peak_bytes = 4096;
  memory.source = wire::MemorySource::kAccounted;
  agent.ReportDeviceMemory(memory);
  agent.ReportDeviceMemory(memory);
  EXPECT_EQ(h.desktop.All<wire::DeviceMemoryMessage>().size(), 1u);
  agent.Start();
  agent.ReportDeviceMemory(memory);
  EXPECT_EQ(h.desktop.All<wire::DeviceMemoryMessage>().size(), 2u);
}

TEST(AgentControl, ADesktopAskingAgainForItsModelKeepsItsRepeatsRecognised) {
  AgentHarness h;
  h.config.poll = nullptr;
  Agent& agent = h.StartAgent();
  h.SendCommandWithId(BasicCommand{MessageType::kRequestHello, 0}, 500);
  h.SendCommandWithId(BasicCommand{MessageType::kPause, 0}, 501);
  h.SendCommandWithId(BasicCommand{MessageType::kStepBackwardOp, 0}, 502);
  agent.OnBackwardStep(Backward(3, false));
  ASSERT_TRUE(agent.paused());
  // The announcement was lost: the same desktop asks again (its next id), then resends the STEP
  // whose ACK was lost too. Applying it would run a second op.
  h.SendCommandWithId(BasicCommand{MessageType::kRequestHello, 0}, 503);
  h.SendCommandWithId(BasicCommand{MessageType::kStepBackwardOp, 0}, 502);
  EXPECT_TRUE(agent.paused());
  EXPECT_EQ(agent.stats().repeated_commands, 1u);
  // Many more requests (a lossy line) push out nothing: the STEP is still a repeat after RESUME.
  for (uint16_t id = 504; id < 540; ++id) {
    h.SendCommandWithId(BasicCommand{MessageType::kRequestHello, 0}, id);
  }
  h.SendCommandWithId(BasicCommand{MessageType::kResume, 0}, 540);
  ASSERT_FALSE(agent.paused());
  h.SendCommandWithId(BasicCommand{MessageType::kStepBackwardOp, 0}, 502);
  agent.OnBackwardStep(Backward(2, false));
  EXPECT_FALSE(agent.paused());  // applied again, this STEP would have stopped the run here
  EXPECT_EQ(agent.stats().repeated_commands, 2u);
}

TEST(AgentControl, AResentRequestHelloIsTheSameDesktop) {
  AgentHarness h;
  h.config.poll = nullptr;
  Agent& agent = h.StartAgent();
  h.SendCommandWithId(BasicCommand{MessageType::kRequestHello, 0}, 900);
  h.SendCommandWithId(BasicCommand{MessageType::kPause, 0}, 901);
  h.SendCommandWithId(BasicCommand{MessageType::kResume, 0}, 902);
  ASSERT_FALSE(agent.paused());
  // The first ACK was lost, so REQUEST_HELLO 900 comes again after the others: it must not make
  // the agent forget them, or the RESUME resent next would apply after this PAUSE.
  h.SendCommandWithId(BasicCommand{MessageType::kRequestHello, 0}, 900);
  h.SendCommandWithId(BasicCommand{MessageType::kPause, 0}, 903);
  ASSERT_TRUE(agent.paused());
  h.SendCommandWithId(BasicCommand{MessageType::kResume, 0}, 902);
  EXPECT_TRUE(agent.paused());
  EXPECT_EQ(agent.stats().repeated_commands, 1u);
}

TEST(AgentControl, EveryHeartbeatRepeatsTheRunStateUnderItsTransitionNumber) {
  AgentHarness h;
  h.config.poll = nullptr;
  Agent& agent = h.StartAgent();
  agent.Tick(wire::kHeartbeatPeriodMs);
  auto states = h.desktop.All<wire::RunStateMessage>();
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].state, RunStateKind::kRunning);
  EXPECT_EQ(states[0].transition, 1u);  // running since boot

  h.SendCommand(BasicCommand{MessageType::kPause, 0});
  agent.Tick(2 * wire::kHeartbeatPeriodMs);
  agent.Tick(2 * wire::kHeartbeatPeriodMs + 1);  // no heartbeat due: nothing repeated
  states = h.desktop.All<wire::RunStateMessage>();
  ASSERT_EQ(states.size(), 3u);
  EXPECT_EQ(states[1].state, RunStateKind::kPaused);  // the change itself
  EXPECT_EQ(states[1].transition, 2u);
  EXPECT_EQ(states[2], states[1]);  // its repeat: a desktop that lost the first learns it here

  h.SendCommand(BasicCommand{MessageType::kResume, 0});
  agent.Tick(3 * wire::kHeartbeatPeriodMs);
  states = h.desktop.All<wire::RunStateMessage>();
  ASSERT_EQ(states.size(), 5u);
  EXPECT_EQ(states[3].state, RunStateKind::kRunning);
  EXPECT_EQ(states[3].transition, 3u);
  EXPECT_EQ(states[4], states[3]);
}

TEST(AgentControl, StepSampleAndStepBatchStopAtTheirBoundaries) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  ResumeAfter(h, 1);
  h.SendCommand(BasicCommand{MessageType::kStepSample, 0});
  agent.OnSample(SampleEvent{0, 1, 0, true});
  agent.OnBackwardStep(Backward(1, false));
  EXPECT_TRUE(h.desktop.All<wire::RunStateMessage>().empty());
  agent.OnSample(SampleEvent{0, 1, 0, false});
  EXPECT_EQ(h.desktop.All<wire::RunStateMessage>().size(), 2u);

  h.SendCommand(BasicCommand{MessageType::kStepBatch, 0});
  agent.OnSample(SampleEvent{0, 2, 0, false});
  EXPECT_EQ(h.desktop.All<wire::RunStateMessage>().size(), 2u);
  agent.OnOptimizerStep(OptimizerStepEvent{0, 2, 1});
  const auto states = h.desktop.All<wire::RunStateMessage>();
  ASSERT_EQ(states.size(), 4u);
  EXPECT_EQ(states[2].reason, PauseReason::kStepDone);
  EXPECT_EQ(states[2].optimizer_step, 2u);
}

TEST(AgentControl, OpBreakpointStopsBeforeTheWatchedOpRunsAndCanBeCleared) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  const wire::OpSummary ops[6] = {};
  agent.AnnounceModel(1, 10, ops, 6);
  ResumeAfter(h, 1);
  h.SendCommand(SetBreakpointCommand{0, wire::BreakpointKind::kOpIndex, true, 3, 0, 0});
  EXPECT_EQ(h.LastAck().result, AckResult::kOk);
  for (uint32_t op = 5; op-- > 0;) agent.OnBackwardStep(Backward(op, true));
  auto states = h.desktop.All<wire::RunStateMessage>();
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(states[0].reason, PauseReason::kOpBreakpoint);
  EXPECT_EQ(states[0].op_index, 3u);

  h.SendCommand(SetBreakpointCommand{0, wire::BreakpointKind::kOpIndex, false, 3, 0, 0});
  agent.OnBackwardStep(Backward(3, true));
  EXPECT_EQ(h.desktop.All<wire::RunStateMessage>().size(), 2u);
}

TEST(AgentControl, BreakpointArgumentsAreCheckedAndSlotsAreLimited) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  const wire::OpSummary ops[20] = {};
  agent.AnnounceModel(1, 10, ops, 20);
  h.SendCommand(SetBreakpointCommand{0, wire::BreakpointKind::kOpIndex, true, 20, 0, 0});
  EXPECT_EQ(h.LastAck().result, AckResult::kInvalidArgument);
  for (uint32_t op = 0; op < ControlState::kMaxOpBreakpoints; ++op) {
    h.SendCommand(SetBreakpointCommand{0, wire::BreakpointKind::kOpIndex, true, op, 0, 0});
    EXPECT_EQ(h.LastAck().result, AckResult::kOk);
  }
  h.SendCommand(SetBreakpointCommand{0, wire::BreakpointKind::kOpIndex, true, 19, 0, 0});
  EXPECT_EQ(h.LastAck().result, AckResult::kNoRoom);
  h.SendCommand(
      SetBreakpointCommand{0, wire::BreakpointKind::kOpIndex, false, wire::kAllOps, 0, 0});
  h.SendCommand(SetBreakpointCommand{0, wire::BreakpointKind::kOpIndex, true, 19, 0, 0});
  EXPECT_EQ(h.LastAck().result, AckResult::kOk);
  h.SendCommand(SetBreakpointCommand{0, wire::BreakpointKind::kGradientAbove, true, 0, -1.0f, 0});
  EXPECT_EQ(h.LastAck().result, AckResult::kInvalidArgument);
}

TEST(AgentControl, NanAndGradientBreakpointsStopAtTheOffendingTensor) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  ResumeAfter(h, 1);
  h.SendCommand(SetBreakpointCommand{0, wire::BreakpointKind::kNanInf, true, 0, 0, 0});
  h.SendCommand(SetBreakpointCommand{0, wire::BreakpointKind::kGradientAbove, true, 0, 10.0f, 0});
  GradientStatsEvent fine;
  fine.tensor = 1;
  fine.max_abs = 9.5f;
  agent.OnGradientStats(fine);
  EXPECT_TRUE(h.desktop.All<wire::RunStateMessage>().empty());

  GradientStatsEvent with_inf = fine;
  with_inf.tensor = 2;
  with_inf.op_index = 6;
  with_inf.inf_count = 1;
  agent.OnGradientStats(with_inf);
  GradientStatsEvent large = fine;
  large.tensor = 3;
  large.max_abs = 12.0f;
  agent.OnGradientStats(large);

  const auto states = h.desktop.All<wire::RunStateMessage>();
  ASSERT_EQ(states.size(), 4u);
  EXPECT_EQ(states[0].reason, PauseReason::kNanInfBreakpoint);
  EXPECT_EQ(states[0].tensor, 2);
  EXPECT_EQ(states[0].op_index, 6u);
  EXPECT_EQ(states[2].reason, PauseReason::kGradientBreakpoint);
  EXPECT_EQ(states[2].tensor, 3);
  EXPECT_EQ(states[2].value, 12.0f);
}

TEST(AgentControl, ArenaBreakpointFiresWhenTheBudgetIsFirstExceeded) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  ResumeAfter(h, 1);
  h.SendCommand(SetBreakpointCommand{0, wire::BreakpointKind::kArenaAbove, true, 0, 0, 1000});
  const uint64_t series[] = {500, 900, 1200, 1500, 800, 1100};  // crosses twice
  for (uint64_t bytes : series)
    agent.OnMemorySummary(MemorySummaryEvent{0, Phase::kForward, 0, bytes, bytes});
  const auto states = h.desktop.All<wire::RunStateMessage>();
  ASSERT_EQ(states.size(), 4u);
  EXPECT_EQ(states[0].reason, PauseReason::kArenaBreakpoint);
  EXPECT_EQ(states[0].bytes, 1200u);
  EXPECT_EQ(states[2].bytes, 1100u);
}

TEST(AgentControl, TrainabilityChangesAreQueuedForTheOptimizerBoundary) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  const wire::OpSummary ops[8] = {};
  agent.AnnounceModel(1, 10, ops, 8);
  h.SendCommand(
      SetTrainabilityCommand{0, wire::TrainabilityMode::kSetOp, TrainRank::kUpperHalf, 7});
  h.SendCommand(SetTrainabilityCommand{0, wire::TrainabilityMode::kLastLayers, TrainRank::kAll, 3});
  h.SendCommand(SetTrainabilityCommand{0, wire::TrainabilityMode::kClearOp, TrainRank::kAll, 8});
  EXPECT_EQ(h.LastAck().result, AckResult::kInvalidArgument);

  TrainabilityChange change;
  ASSERT_TRUE(agent.TakeTrainabilityChange(&change));
  EXPECT_EQ(change.mode, wire::TrainabilityMode::kSetOp);
  EXPECT_EQ(change.rank, TrainRank::kUpperHalf);
  EXPECT_EQ(change.value, 7u);
  ASSERT_TRUE(agent.TakeTrainabilityChange(&change));
  EXPECT_EQ(change.mode, wire::TrainabilityMode::kLastLayers);
  EXPECT_EQ(change.value, 3u);
  EXPECT_FALSE(agent.TakeTrainabilityChange(&change));

  for (size_t i = 0; i < ControlState::kMaxPendingTrainability; ++i) {
    h.SendCommand(SetTrainabilityCommand{0, wire::TrainabilityMode::kClearOp, TrainRank::kAll, 1});
  }
  EXPECT_EQ(h.LastAck().result, AckResult::kOk);
  h.SendCommand(SetTrainabilityCommand{0, wire::TrainabilityMode::kClearOp, TrainRank::kAll, 1});
  EXPECT_EQ(h.LastAck().result, AckResult::kNoRoom);
}

TEST(AgentControl, CommandsOutsideTheAdvertisedCapabilitiesAreUnsupported) {
  AgentHarness h(wire::capability::kLossMetric);
  Agent& agent = h.StartAgent();
  h.SendCommand(BasicCommand{MessageType::kPause, 0});
  EXPECT_EQ(h.LastAck().result, AckResult::kUnsupported);
  EXPECT_FALSE(agent.paused());
  h.SendCommand(SetTrainabilityCommand{});
  EXPECT_EQ(h.LastAck().result, AckResult::kUnsupported);
  h.SendCommand(SetBreakpointCommand{});
  EXPECT_EQ(h.LastAck().result, AckResult::kUnsupported);
  h.SendCommand(BasicCommand{MessageType::kRequestMemoryPlan, 0});
  EXPECT_EQ(h.LastAck().result, AckResult::kUnsupported);
  EXPECT_FALSE(agent.TakeMemoryPlanRequest());
  h.SendCommand(BasicCommand{MessageType::kPing, 0});
  EXPECT_EQ(h.LastAck().result, AckResult::kOk);
}

TEST(AgentControl, MemoryPlanRequestIsHandedToTheFirmwareOnce) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  h.SendCommand(BasicCommand{MessageType::kRequestMemoryPlan, 0});
  EXPECT_TRUE(agent.TakeMemoryPlanRequest());
  EXPECT_FALSE(agent.TakeMemoryPlanRequest());
}

TEST(AgentControl, MalformedCommandsAreAnsweredButNotApplied) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  // SET_TRAINABILITY with a payload cut to its command id.
  const uint8_t payload[] = {0x34, 0x12};
  uint8_t frame[64];
  const size_t n = h.encoder.EncodeRaw(MessageType::kSetTrainability, 0, payload, sizeof payload,
                                       frame, sizeof frame);
  agent.Receive(frame, n);
  const wire::AckMessage ack = h.LastAck();
  EXPECT_EQ(ack.command_id, 0x1234);
  EXPECT_EQ(ack.result, AckResult::kMalformed);
  TrainabilityChange change;
  EXPECT_FALSE(agent.TakeTrainabilityChange(&change));
  EXPECT_EQ(agent.stats().commands_rejected, 1u);
}

TEST(AgentControl, CommandsFromANewerDesktopGetUnknownCommand) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  const uint8_t payload[] = {0x21, 0x00, 0xAB};
  uint8_t frame[64];
  const size_t n = h.encoder.EncodeRaw(static_cast<MessageType>(0x5A), 0, payload, sizeof payload,
                                       frame, sizeof frame);
  agent.Receive(frame, n);
  const wire::AckMessage ack = h.LastAck();
  EXPECT_EQ(ack.command_id, 0x21);
  EXPECT_EQ(static_cast<uint8_t>(ack.command), 0x5A);
  EXPECT_EQ(ack.result, AckResult::kUnknownCommand);
}

TEST(AgentControl, BoardMessagesEchoedBackAreIgnoredNotAnswered) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  // A loopback (TX wired to RX) must not start an endless ACK exchange.
  const std::vector<uint8_t> own_output = h.wire_bytes;
  agent.Receive(own_output.data(), own_output.size());
  EXPECT_TRUE(h.desktop.All<wire::AckMessage>().empty());
  EXPECT_EQ(agent.stats().ignored_frames, 1u);  // the HELLO
}

TEST(AgentControl, LineNoiseIsCountedAndReportedInTheHeartbeat) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  const uint8_t noise[] = {0x05, 0x77, 0x13, 0x00};
  agent.Receive(noise, sizeof noise);
  EXPECT_EQ(agent.rx_counters().frames_bad, 1u);
  agent.Tick(5000);
  EXPECT_EQ(h.desktop.All<wire::HeartbeatMessage>().back().bad_command_frames, 1u);
}

TEST(AgentControl, WithoutAPollCallbackTheAgentReportsButNeverWaits) {
  AgentHarness h;
  h.config.poll = nullptr;
  Agent& agent = h.StartAgent();
  h.SendCommand(BasicCommand{MessageType::kPause, 0});
  agent.OnBackwardStep(Backward(1, false));  // returns at once
  EXPECT_TRUE(agent.paused());
  EXPECT_EQ(h.desktop.All<wire::RunStateMessage>().size(), 1u);
}

}  // namespace
}  // namespace trainscope
