// SPDX-License-Identifier: Apache-2.0
//
// REQUEST_TENSOR on the agent: the answer comes in order, in bounded chunks, bit for bit (NaN and
// Inf included), through a TX ring far smaller than the tensor; refusals carry the board's reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/serial/agent_harness.h"

namespace trainscope::testing {
namespace {

struct FakeTensors {
  std::vector<float> values;
};

wire::TensorReadResult Read(void* context, int32_t tensor, wire::TensorAspect,
                            AgentTensorView* view) {
  auto* tensors = static_cast<FakeTensors*>(context);
  if (tensor != 3) {
    view->reason = "not held at this point of the step";
    return wire::TensorReadResult::kNotHeld;
  }
  view->values = tensors->values.data();
  view->count = static_cast<uint32_t>(tensors->values.size());
  view->rank = 2;
  view->dims[0] = 10;
  view->dims[1] = static_cast<int32_t>(tensors->values.size() / 10);
  return wire::TensorReadResult::kOk;
}

TEST(AgentTensor, ALargeTensorGoesThroughASmallRingInOrderAndBitForBit) {
  FakeTensors tensors;
  for (int i = 0; i < 1000; ++i) tensors.values.push_back(0.25f * static_cast<float>(i) - 7.0f);
  tensors.values[17] = std::numeric_limits<float>::quiet_NaN();
  tensors.values[500] = -std::numeric_limits<float>::infinity();
  AgentHarness h(wire::capability::kAllDefined, 1024);  // 4000 value bytes through 1 KiB
  h.config.read_tensor = &Read;
  h.config.read_context = &tensors;
  h.StartAgent();
  const uint16_t id = h.SendCommand(wire::RequestTensorCommand{0, 3, wire::TensorAspect::kValue});
  h.agent->FinishTensorTransfer();
  EXPECT_EQ(h.LastAck().result, wire::AckResult::kOk);
  const auto headers = h.desktop.All<wire::TensorHeaderMessage>();
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(headers[0].command_id, id);
  EXPECT_EQ(headers[0].value_count, 1000u);
  std::vector<float> received;
  for (const wire::TensorChunkMessage& chunk : h.desktop.All<wire::TensorChunkMessage>()) {
    EXPECT_EQ(chunk.offset, received.size());
    EXPECT_LE(chunk.count, wire::kMaxTensorChunkValues);
    received.insert(received.end(), chunk.values, chunk.values + chunk.count);
  }
  ASSERT_EQ(received.size(), tensors.values.size());
  EXPECT_EQ(std::memcmp(received.data(), tensors.values.data(), 4000), 0);
  EXPECT_FALSE(h.agent->sending_tensor());
  EXPECT_EQ(h.agent->stats().tensors_sent, 1u);
  EXPECT_EQ(h.agent->tx_ring().dropped_link_frames(), 0u);
}

TEST(AgentTensor, AnEmptyTensorIsAHeaderWithoutChunks) {
  FakeTensors tensors;  // no values
  AgentHarness h;
  h.config.read_tensor = &Read;
  h.config.read_context = &tensors;
  h.StartAgent();
  h.SendCommand(wire::RequestTensorCommand{0, 3, wire::TensorAspect::kValue});
  h.agent->FinishTensorTransfer();
  const auto headers = h.desktop.All<wire::TensorHeaderMessage>();
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(headers[0].result, wire::TensorReadResult::kOk);
  EXPECT_EQ(headers[0].value_count, 0u);
  EXPECT_TRUE(h.desktop.All<wire::TensorChunkMessage>().empty());
  EXPECT_FALSE(h.agent->sending_tensor());
  EXPECT_EQ(h.agent->stats().tensors_sent, 1u);
}

TEST(AgentTensor, RefusalsCarryTheReasonAndAFirmwareWithoutTheCapabilitySaysSo) {
  FakeTensors tensors;
  AgentHarness h;
  h.config.read_tensor = &Read;
  h.config.read_context = &tensors;
  h.StartAgent();
  h.SendCommand(wire::RequestTensorCommand{0, 8, wire::TensorAspect::kGradient});
  const auto headers = h.desktop.All<wire::TensorHeaderMessage>();
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(headers[0].result, wire::TensorReadResult::kNotHeld);
  EXPECT_STREQ(headers[0].reason.c_str(), "not held at this point of the step");
  EXPECT_TRUE(h.desktop.All<wire::TensorChunkMessage>().empty());

  AgentHarness without(wire::capability::kAllDefined & ~wire::capability::kTensorValues);
  without.config.read_tensor = &Read;
  without.config.read_context = &tensors;
  without.StartAgent();
  without.SendCommand(wire::RequestTensorCommand{0, 3, wire::TensorAspect::kValue});
  EXPECT_EQ(without.LastAck().result, wire::AckResult::kUnsupported);
  EXPECT_TRUE(without.desktop.All<wire::TensorHeaderMessage>().empty());
}

}  // namespace
}  // namespace trainscope::testing
