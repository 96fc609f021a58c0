// SPDX-License-Identifier: Apache-2.0
//
// AgentHarness wires an Agent to a pretend desktop: the agent's UART writer feeds a host
// StreamDecoder + MessageRouter that records every message, and SendCommand() encodes commands
// the way the desktop does and hands them to Agent::Receive.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "serial/agent/agent.h"
#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/message.h"
#include "serial/protocol/message_router.h"
#include "serial/protocol/stream_decoder.h"

namespace trainscope::testing {

// Records every decoded message in arrival order, events and link messages alike.
class RecordingDesktop : public TrainingObserver, public wire::LinkHandler {
 public:
  void OnSample(const SampleEvent& e) override { messages.push_back(e); }
  void OnOptimizerStep(const OptimizerStepEvent& e) override { messages.push_back(e); }
  void OnForwardOp(const ForwardOpEvent& e) override { messages.push_back(e); }
  void OnBackwardStep(const BackwardStepEvent& e) override { messages.push_back(e); }
  void OnMemory(const MemoryEvent& e) override { messages.push_back(e); }
  void OnMemorySummary(const MemorySummaryEvent& e) override { messages.push_back(e); }
  void OnGradientStats(const GradientStatsEvent& e) override { messages.push_back(e); }
  void OnUpdateRatio(const UpdateRatioEvent& e) override { messages.push_back(e); }
  void OnLoss(const LossEvent& e) override { messages.push_back(e); }
  void OnMetric(const MetricEvent& e) override { messages.push_back(e); }
  void OnHello(const wire::HelloMessage& m) override { messages.push_back(m); }
  void OnModelAnnounce(const wire::ModelAnnounceMessage& m) override { messages.push_back(m); }
  void OnInternName(const wire::InternNameMessage& m) override { messages.push_back(m); }
  void OnLog(const wire::LogMessage& m) override { messages.push_back(m); }
  void OnHeartbeat(const wire::HeartbeatMessage& m) override { messages.push_back(m); }
  void OnAck(const wire::AckMessage& m) override { messages.push_back(m); }
  void OnRunState(const wire::RunStateMessage& m) override { messages.push_back(m); }
  void OnDeviceMemory(const wire::DeviceMemoryMessage& m) override { messages.push_back(m); }
  void OnTensorHeader(const wire::TensorHeaderMessage& m) override { messages.push_back(m); }
  void OnTensorChunk(const wire::TensorChunkMessage& m) override { messages.push_back(m); }

  template <class T>
  std::vector<T> All() const {
    std::vector<T> found;
    for (const wire::Message& m : messages) {
      if (const T* value = std::get_if<T>(&m)) found.push_back(*value);
    }
    return found;
  }

  std::vector<wire::Message> messages;
};

class AgentHarness {
 public:
  explicit AgentHarness(uint32_t capabilities = wire::capability::kAllDefined,
                        size_t tx_size = 8192)
      : tx_storage(tx_size) {
    config.name = "test-board";
    config.capabilities = capabilities;
    config.ram_bytes = 262144;
    config.arena_bytes = 65536;
    config.tx_storage = tx_storage.data();
    config.tx_storage_size = tx_storage.size();
    config.write = &AgentHarness::Write;
    config.write_context = this;
    config.poll = &AgentHarness::Poll;
    config.poll_context = this;
  }

  // Creates the agent from `config` (tweak it first) and starts it.
  Agent& StartAgent() {
    agent = std::make_unique<Agent>(config);
    agent->Start();
    return *agent;
  }

  uint16_t SendCommand(const wire::Message& command) {
    return SendCommandWithId(command, next_id++);
  }

  // As a desktop resending a command whose ACK it did not get: the id it used before.
  uint16_t SendCommandWithId(const wire::Message& command, uint16_t id) {
    wire::Message with_id = command;
    std::visit([&](auto& value) { SetId(&value, id); }, with_id);
    std::vector<uint8_t> bytes(wire::kMaxWireFrameBytes);
    bytes.resize(wire::EncodeMessage(with_id, &encoder, bytes.data(), bytes.size()));
    agent->Receive(bytes.data(), bytes.size());
    return id;
  }

  wire::AckMessage LastAck() const {
    const auto acks = desktop.All<wire::AckMessage>();
    EXPECT_FALSE(acks.empty());
    return acks.empty() ? wire::AckMessage{} : acks.back();
  }

  AgentConfig config;
  std::vector<uint8_t> tx_storage;
  std::unique_ptr<Agent> agent;
  std::vector<uint8_t> wire_bytes;  // everything the agent wrote
  RecordingDesktop desktop;
  wire::MessageRouter router{&desktop, &desktop};
  wire::StreamDecoder decoder;
  wire::FrameEncoder encoder;
  uint16_t next_id = 100;
  int polls = 0;
  std::function<void(AgentHarness&)> on_poll;  // what the "firmware" does while polled

 private:
  static size_t Write(void* context, const uint8_t* data, size_t size) {
    auto* self = static_cast<AgentHarness*>(context);
    self->wire_bytes.insert(self->wire_bytes.end(), data, data + size);
    self->decoder.Push(data, size, &self->router);
    return size;
  }
  static void Poll(void* context) {
    auto* self = static_cast<AgentHarness*>(context);
    ++self->polls;
    if (self->on_poll) self->on_poll(*self);
  }
  template <class T>
  static void SetId(T* value, uint16_t id) {
    if constexpr (std::is_same_v<T, wire::BasicCommand> ||
                  std::is_same_v<T, wire::SetBreakpointCommand> ||
                  std::is_same_v<T, wire::SetTrainabilityCommand> ||
                  std::is_same_v<T, wire::RequestTensorCommand>) {
      value->command_id = id;
    }
  }
};

}  // namespace trainscope::testing
