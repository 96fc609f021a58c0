// SPDX-License-Identifier: Apache-2.0
//
// The agent must run on boards without a heap: this binary replaces the global operator new
// with a counting one and checks that a whole session through the agent allocates nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "serial/agent/agent.h"
#include "serial/protocol/frame_encoder.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<int> allocations{0};
}  // namespace

void* operator new(size_t size) {
  if (counting.load()) ++allocations;
  void* p = std::malloc(size ? size : 1);
  if (p == nullptr) std::abort();
  return p;
}
void* operator new[](size_t size) {
  return operator new(size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, size_t) noexcept {
  std::free(p);
}

namespace trainscope {
namespace {

uint8_t uart_bytes[1 << 16];
size_t uart_fill = 0;
size_t UartWrite(void*, const uint8_t* data, size_t size) {
  const size_t n = size < sizeof uart_bytes - uart_fill ? size : sizeof uart_bytes - uart_fill;
  for (size_t i = 0; i < n; ++i) uart_bytes[uart_fill + i] = data[i];
  uart_fill += n;
  return n;
}

struct PollState {
  Agent* agent;
  uint8_t resume[32];
  size_t resume_size;
  int polls;
  int paused_polls;
};
// The firmware's poll: the desktop answers a pause with RESUME on the second poll.
void Poll(void* context) {
  auto* state = static_cast<PollState*>(context);
  ++state->polls;
  if (state->agent->paused() && ++state->paused_polls == 2) {
    state->agent->Receive(state->resume, state->resume_size);
  }
}

const char* Name(void*, wire::NameKind, uint32_t) {
  return "dense/kernel";
}

TEST(AgentAllocation, AWholeSessionAllocatesNothing) {
  // Commands are prepared before counting starts (the desktop side is not under test).
  wire::FrameEncoder desktop;
  uint8_t pause[32], breakpoint[48], trainability[40];
  PollState poll{nullptr, {}, 0, 0, 0};
  const size_t pause_size =
      desktop.Encode(wire::BasicCommand{wire::MessageType::kPause, 1}, pause, sizeof pause);
  const size_t breakpoint_size =
      desktop.Encode(wire::SetBreakpointCommand{2, wire::BreakpointKind::kNanInf, true, 0, 0, 0},
                     breakpoint, sizeof breakpoint);
  const size_t trainability_size = desktop.Encode(
      wire::SetTrainabilityCommand{3, wire::TrainabilityMode::kSetOp, TrainRank::kAll, 1},
      trainability, sizeof trainability);
  poll.resume_size = desktop.Encode(wire::BasicCommand{wire::MessageType::kResume, 4}, poll.resume,
                                    sizeof poll.resume);

  static uint8_t tx[1024];  // small on purpose: drops happen too
  AgentConfig config;
  config.capabilities = wire::capability::kAllDefined;
  config.tx_storage = tx;
  config.tx_storage_size = sizeof tx;
  config.write = &UartWrite;
  config.poll = &Poll;
  config.poll_context = &poll;
  config.lookup_name = &Name;
  const wire::OpSummary ops[3] = {
      {9, true, TrainRank::kAll}, {19, false, TrainRank::kAll}, {9, true, TrainRank::kOnlyBias}};

  alignas(Agent) static unsigned char agent_storage[sizeof(Agent)];
  counting = true;
  Agent* agent = new (agent_storage) Agent(config);  // placement: no allocation
  poll.agent = agent;
  agent->Start();
  agent->AnnounceModel(0x1234, 12, ops, 3);
  agent->Receive(breakpoint, breakpoint_size);
  agent->Receive(trainability, trainability_size);
  for (uint32_t sample = 0; sample < 20; ++sample) {
    agent->OnSample(SampleEvent{0, 1, sample, true});
    for (uint32_t op = 0; op < 3; ++op) agent->OnForwardOp(ForwardOpEvent{op, 9, 1000});
    for (uint32_t op = 3; op-- > 0;) {
      agent->OnBackwardStep(BackwardStepEvent{2 - op, op, 9, true, TrainRank::kAll, op == 0, true});
      agent->OnMemory(MemoryEvent{op, Phase::kBackward, 2 - op, static_cast<int32_t>(op), {}, 64});
      agent->OnMemorySummary(MemorySummaryEvent{op, Phase::kBackward, 2 - op, 640, 1280});
      agent->OnBackwardStep(
          BackwardStepEvent{2 - op, op, 9, true, TrainRank::kAll, op == 0, false});
    }
    agent->OnSample(SampleEvent{0, 1, sample, false});
    agent->OnLoss(LossEvent{1, sample, 0.25f});
  }
  GradientStatsEvent stats;
  stats.nan_count = 1;
  agent->Receive(pause, pause_size);
  agent->OnGradientStats(stats);  // paused: polls, then RESUME arrives
  agent->OnUpdateRatio(UpdateRatioEvent{1, 0, 0.1f, 1.0f, 0.1f});
  agent->OnOptimizerStep(OptimizerStepEvent{0, 1, 20});
  agent->OnMetric(MetricEvent{0, 3, 0.5f});
  agent->Log(wire::LogLevel::kInfo, "epoch done");
  agent->Tick(1000);
  TrainabilityChange change;
  const bool took_change = agent->TakeTrainabilityChange(&change);
  agent->Flush();
  counting = false;

  EXPECT_EQ(allocations.load(), 0);
  EXPECT_TRUE(took_change);
  EXPECT_EQ(poll.paused_polls, 2);
  EXPECT_FALSE(agent->paused());
  EXPECT_GT(uart_fill, 1000u);
  agent->~Agent();
}

TEST(AgentAllocation, TheCounterSeesAllocations) {
  allocations = 0;
  counting = true;
  int* p = new int(3);
  counting = false;
  EXPECT_EQ(allocations.load(), 1);
  delete p;
}

}  // namespace
}  // namespace trainscope
