// SPDX-License-Identifier: Apache-2.0
//
// The agent's output stream: what a board sends is what the desktop decodes, event for event.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "serial/agent/agent.h"
#include "tests/serial/agent_harness.h"
#include "tests/serial/sample_messages.h"

namespace trainscope {
namespace {

using testing::AgentHarness;
using testing::SameMessage;

// Feeds every event alternative of the sample messages to `observer`, returns them in order.
std::vector<wire::Message> FeedAllEvents(TrainingObserver* observer) {
  std::vector<wire::Message> fed;
  for (const wire::Message& m : testing::OneOfEachMessage()) {
    bool is_event = true;
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, SampleEvent>)
            observer->OnSample(v);
          else if constexpr (std::is_same_v<T, OptimizerStepEvent>)
            observer->OnOptimizerStep(v);
          else if constexpr (std::is_same_v<T, ForwardOpEvent>)
            observer->OnForwardOp(v);
          else if constexpr (std::is_same_v<T, BackwardStepEvent>)
            observer->OnBackwardStep(v);
          else if constexpr (std::is_same_v<T, MemoryEvent>)
            observer->OnMemory(v);
          else if constexpr (std::is_same_v<T, MemorySummaryEvent>)
            observer->OnMemorySummary(v);
          else if constexpr (std::is_same_v<T, GradientStatsEvent>)
            observer->OnGradientStats(v);
          else if constexpr (std::is_same_v<T, UpdateRatioEvent>)
            observer->OnUpdateRatio(v);
          else if constexpr (std::is_same_v<T, LossEvent>)
            observer->OnLoss(v);
          else if constexpr (std::is_same_v<T, MetricEvent>)
            observer->OnMetric(v);
          else
            is_event = false;
        },
        m);
    if (is_event) fed.push_back(m);
  }
  return fed;
}

TEST(AgentStream, StartsWithHelloAndTheDesktopSeesEveryEventUnchanged) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  const std::vector<wire::Message> fed = FeedAllEvents(&agent);
  ASSERT_EQ(fed.size(), 10u);

  ASSERT_FALSE(h.wire_bytes.empty());
  EXPECT_EQ(h.wire_bytes[0], 0x00);  // the leading delimiter
  ASSERT_EQ(h.desktop.messages.size(), 1 + fed.size());
  const auto* hello = std::get_if<wire::HelloMessage>(&h.desktop.messages[0]);
  ASSERT_NE(hello, nullptr);
  EXPECT_STREQ(hello->agent_name.c_str(), "test-board");
  EXPECT_EQ(hello->capabilities, wire::capability::kAllDefined);
  EXPECT_EQ(hello->ram_bytes, 262144u);
  EXPECT_EQ(hello->arena_bytes, 65536u);
  EXPECT_EQ(hello->protocol_version, wire::kProtocolVersion);
  for (size_t i = 0; i < fed.size(); ++i) {
    EXPECT_TRUE(SameMessage(fed[i], h.desktop.messages[i + 1])) << testing::Describe(fed[i]);
  }
  EXPECT_EQ(h.decoder.counters().frames_bad, 0u);
  EXPECT_EQ(h.decoder.counters().frames_dropped, 0u);
}

TEST(AgentStream, EventMaskLeavesOutUnwantedEvents) {
  AgentHarness h;
  h.config.event_mask =
      wire::EventMaskBit(wire::MessageType::kLoss) | wire::EventMaskBit(wire::MessageType::kSample);
  Agent& agent = h.StartAgent();
  FeedAllEvents(&agent);
  EXPECT_EQ(h.desktop.All<LossEvent>().size(), 1u);
  EXPECT_EQ(h.desktop.All<SampleEvent>().size(), 1u);
  EXPECT_EQ(h.desktop.messages.size(), 3u);  // HELLO + the two wanted events
}

TEST(AgentStream, LargeModelsAreAnnouncedInSeveralFrames) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  std::vector<wire::OpSummary> ops(150);
  for (size_t i = 0; i < ops.size(); ++i) {
    ops[i] = {static_cast<int16_t>(i % 7), i % 3 == 0, static_cast<TrainRank>(i % 4)};
  }
  agent.AnnounceModel(0xABCDEF, 300, ops.data(), static_cast<uint32_t>(ops.size()));
  const auto announces = h.desktop.All<wire::ModelAnnounceMessage>();
  ASSERT_EQ(announces.size(), 3u);
  size_t next = 0;
  for (const auto& a : announces) {
    EXPECT_EQ(a.model_hash, 0xABCDEFu);
    EXPECT_EQ(a.op_count, 150u);
    EXPECT_EQ(a.tensor_count, 300u);
    EXPECT_EQ(a.first_op, next);
    for (size_t i = 0; i < a.entry_count; ++i) EXPECT_TRUE(a.ops[i] == ops[next + i]);
    next += a.entry_count;
  }
  EXPECT_EQ(next, 150u);
}

const char* NameOf(void*, wire::NameKind kind, uint32_t id) {
  static std::string name;
  name = (kind == wire::NameKind::kTensor ? "tensor_" : "op_") + std::to_string(id);
  return id == 99 ? nullptr : name.c_str();
}

TEST(AgentStream, NamesAreInternedOnceBeforeTheFirstEventThatUsesThem) {
  AgentHarness h;
  h.config.lookup_name = &NameOf;
  Agent& agent = h.StartAgent();
  for (int round = 0; round < 3; ++round) {
    agent.OnMemory(MemoryEvent{1, Phase::kForward, 0, 5});
    agent.OnMemory(MemoryEvent{2, Phase::kForward, 0, 6});
    agent.OnMemory(MemoryEvent{3, Phase::kForward, 0, 99});  // no name: nothing interned
    agent.OnMemory(MemoryEvent{4, Phase::kForward, 0, -1});  // no tensor
    agent.OnBackwardStep(BackwardStepEvent{0, 2, 9});
  }
  agent.InternName(wire::NameKind::kTensor, 5, "ignored: already sent");
  const auto names = h.desktop.All<wire::InternNameMessage>();
  ASSERT_EQ(names.size(), 3u);
  EXPECT_STREQ(names[0].name.c_str(), "tensor_5");
  EXPECT_STREQ(names[1].name.c_str(), "tensor_6");
  EXPECT_STREQ(names[2].name.c_str(), "op_2");
  EXPECT_EQ(names[2].kind, wire::NameKind::kOperator);
  // The name precedes the event that refers to it.
  ASSERT_GE(h.desktop.messages.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<wire::InternNameMessage>(h.desktop.messages[1]));
  EXPECT_TRUE(std::holds_alternative<MemoryEvent>(h.desktop.messages[2]));
}

TEST(AgentStream, RequestHelloResendsHelloModelAndNames) {
  AgentHarness h;
  h.config.lookup_name = &NameOf;
  Agent& agent = h.StartAgent();
  const wire::OpSummary ops[2] = {{9, true, TrainRank::kAll}, {25, false, TrainRank::kAll}};
  agent.AnnounceModel(77, 4, ops, 2);
  agent.OnMemory(MemoryEvent{1, Phase::kForward, 0, 3});
  h.SendCommand(wire::BasicCommand{wire::MessageType::kRequestHello, 0});
  agent.OnMemory(MemoryEvent{2, Phase::kForward, 0, 3});
  EXPECT_EQ(h.desktop.All<wire::HelloMessage>().size(), 2u);
  EXPECT_EQ(h.desktop.All<wire::ModelAnnounceMessage>().size(), 2u);
  EXPECT_EQ(h.desktop.All<wire::InternNameMessage>().size(), 2u);
  EXPECT_EQ(h.LastAck().result, wire::AckResult::kOk);
}

TEST(AgentStream, HeartbeatComesOncePerPeriodAndReportsDrops) {
  AgentHarness h(wire::capability::kAllDefined, 300);
  Agent& agent = h.StartAgent();
  agent.Tick(500);
  EXPECT_TRUE(h.desktop.All<wire::HeartbeatMessage>().empty());
  agent.Tick(1000);
  agent.Tick(1500);
  ASSERT_EQ(h.desktop.All<wire::HeartbeatMessage>().size(), 1u);
  EXPECT_EQ(h.desktop.All<wire::HeartbeatMessage>()[0].uptime_ms, 1000u);

  // A UART that takes nothing: statistics pile up and the oldest are dropped.
  h.config.write = [](void*, const uint8_t*, size_t) -> size_t { return 0; };
  Agent& stuck = h.StartAgent();
  for (uint32_t i = 0; i < 50; ++i) stuck.OnMemory(MemoryEvent{i});
  EXPECT_GT(stuck.tx_ring().dropped_frames(), 0u);
  EXPECT_EQ(stuck.tx_ring().dropped_link_frames(), 0u);
}

// A UART that takes nothing while `uart_busy` is set, then everything.
bool uart_busy = false;
size_t BusyUartWrite(void* context, const uint8_t* data, size_t size) {
  if (uart_busy) return 0;
  auto* harness = static_cast<AgentHarness*>(context);
  harness->wire_bytes.insert(harness->wire_bytes.end(), data, data + size);
  harness->decoder.Push(data, size, &harness->router);
  return size;
}

TEST(AgentStream, DroppedStatisticsShowUpAsSequenceGapsOnTheDesktop) {
  AgentHarness h(wire::capability::kAllDefined, 400);
  h.config.write = &BusyUartWrite;
  uart_busy = true;
  Agent& agent = h.StartAgent();
  for (uint32_t i = 0; i < 40; ++i) agent.OnMemory(MemoryEvent{i});
  uart_busy = false;
  agent.Flush();

  const uint32_t dropped = agent.tx_ring().dropped_frames();
  ASSERT_GT(dropped, 0u);
  EXPECT_EQ(h.decoder.counters().frames_dropped, dropped);
  const auto memory = h.desktop.All<MemoryEvent>();
  ASSERT_FALSE(memory.empty());
  EXPECT_EQ(memory.back().tick, 39u);  // the newest survive
  EXPECT_EQ(memory.size() + dropped, 40u);
  EXPECT_EQ(h.desktop.All<wire::HelloMessage>().size(), 1u);  // the link frame survived
}

// docs/protocol.md budgets a fully instrumented backward step of a trainable FULLY_CONNECTED op
// (onert-micro's backward plan: allocate input, weight and bias gradients; free the output
// gradient and the saved output activation) at 304 bytes on the wire.
TEST(AgentStream, AnInstrumentedBackwardStepCostsTheDocumentedBytes) {
  AgentHarness h;
  Agent& agent = h.StartAgent();
  const size_t before = h.wire_bytes.size();
  agent.OnBackwardStep(BackwardStepEvent{1, 4, 9, true, TrainRank::kAll, false, true});
  for (int32_t tensor : {7, 8, 9}) {
    agent.OnMemory(MemoryEvent{40, Phase::kBackward, 1, tensor, MemoryCategory::kWeightGradient,
                               4096, 0, true});
  }
  for (int32_t tensor : {10, 11}) {
    agent.OnMemory(
        MemoryEvent{41, Phase::kBackward, 1, tensor, MemoryCategory::kActivation, 64, 0, false});
  }
  agent.OnMemorySummary(MemorySummaryEvent{41, Phase::kBackward, 1, 20480, 30720});
  agent.OnBackwardStep(BackwardStepEvent{1, 4, 9, true, TrainRank::kAll, false, false, 52000});
  const size_t step_bytes = h.wire_bytes.size() - before;
  EXPECT_EQ(step_bytes, 304u);
  // 115200 baud, 8N1: 11520 bytes/s, so at least 37 such steps per second.
  EXPECT_GE(11520 / step_bytes, 37u);
}

}  // namespace
}  // namespace trainscope
