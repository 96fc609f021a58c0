// SPDX-License-Identifier: Apache-2.0
#include "serial/agent/agent.h"

#include "serial/protocol/payload_codec.h"

namespace trainscope {

using wire::MessageType;

namespace {
// Types 0x40-0x7F are commands, known or from a newer desktop; the rest flow board->desktop.
constexpr uint8_t kFirstCommandType = 0x40;
constexpr uint8_t kLastCommandType = 0x7F;

bool EventWanted(uint32_t mask, MessageType type) {
  return (mask & wire::EventMaskBit(type)) != 0;
}
}  // namespace

static_assert(kAgentMaxPayloadBytes >= 2 + wire::kMaxLogTextBytes, "LOG must fit");
static_assert(kAgentMaxPayloadBytes >= 6 + wire::kMaxInternedNameBytes, "INTERN_NAME must fit");
static_assert(kAgentMaxPayloadBytes >= 19 + wire::kMaxAgentNameBytes, "HELLO must fit");
static_assert(kAgentMaxPayloadBytes >= 96, "GRADIENT_STATS must fit");
static_assert(kAgentMaxPayloadBytes >= wire::kMaxTensorChunkPayloadBytes, "TENSOR_CHUNK must fit");
static_assert(kAgentMaxPayloadBytes >= wire::kMaxTensorHeaderPayloadBytes,
              "TENSOR_HEADER must fit");
static_assert(kAgentRxFrameBytes >= wire::CobsMaxEncodedSize(4 + 16 + 4), "commands must fit");

Agent::Agent(const AgentConfig& config)
    : config_(config),
      ring_(config.tx_storage, config.tx_storage_size),
      control_(config.capabilities) {
  rx_.set_deliver_unknown_types(true);
}

template <class Message>
void Agent::Send(const Message& message) {
  const MessageType type = wire::MessageTypeOf(message);
  const size_t size = encoder_.Encode(message, frame_, sizeof frame_);
  if (size == 0) {
    ++stats_.encode_failures;
    return;
  }
  if (ring_.Push(frame_, size, (wire::DefaultFlags(type) & wire::kFlagLossy) != 0)) {
    ++stats_.frames_queued;
  }
  Flush();
}

size_t Agent::Flush() {
  return ring_.Drain(config_.write, config_.write_context);
}

void Agent::Start() {
  const uint8_t delimiter = 0;
  ring_.Push(&delimiter, 1, false);
  sent_names_.Clear();
  encoder_.set_next_sequence(0);  // a new session: the desktop re-bases on HELLO anyway
  // Nor has this desktop heard the memory report: the next ReportDeviceMemory() sends it even
  // when nothing changed since the last desktop heard it.
  has_device_memory_ = false;
  started_ = true;
  SendHello();
}

void Agent::SendHello() {
  wire::HelloMessage hello;
  hello.agent_name.Assign(config_.name);
  hello.capabilities = config_.capabilities;
  hello.ram_bytes = config_.ram_bytes;
  hello.arena_bytes = config_.arena_bytes;
  Send(hello);
}

void Agent::AnnounceModel(uint64_t model_hash, uint32_t tensor_count, const wire::OpSummary* ops,
                          uint32_t op_count) {
  model_hash_ = model_hash;
  tensor_count_ = tensor_count;
  ops_ = ops;
  op_count_ = ops ? op_count : 0;
  control_.set_op_count(op_count_);
  SendModelAnnounce();
}

void Agent::SendModelAnnounce() {
  wire::ModelAnnounceMessage announce;
  announce.model_hash = model_hash_;
  announce.op_count = op_count_;
  announce.tensor_count = tensor_count_;
  announce.optimizer = optimizer_;
  announce.batch_size = batch_size_;
  uint32_t first = 0;
  do {  // an op-less model still gets one announcement
    const uint32_t left = op_count_ - first;
    const uint32_t count = left < wire::kMaxOpsPerAnnounce ? left : wire::kMaxOpsPerAnnounce;
    announce.first_op = first;
    announce.entry_count = static_cast<uint16_t>(count);
    for (uint32_t i = 0; i < count; ++i) announce.ops[i] = ops_[first + i];
    Send(announce);
    first += count;
  } while (first < op_count_);
}

void Agent::InternName(wire::NameKind kind, uint32_t id, const char* name) {
  if (name == nullptr || !sent_names_.Mark(kind, id)) return;
  wire::InternNameMessage message;
  message.kind = kind;
  message.id = id;
  message.name.Assign(name);
  Send(message);
}

void Agent::LookUpName(wire::NameKind kind, int64_t id) {
  if (config_.lookup_name == nullptr || id < 0 || id > 0xFFFFFFFF) return;
  const uint32_t index = static_cast<uint32_t>(id);
  // Mark first: the lookup runs once per id even when it has no name to give.
  if (!sent_names_.Mark(kind, index)) return;
  const char* name = config_.lookup_name(config_.lookup_context, kind, index);
  if (name == nullptr) return;
  wire::InternNameMessage message;
  message.kind = kind;
  message.id = index;
  message.name.Assign(name);
  Send(message);
}

void Agent::Log(wire::LogLevel level, const char* text) {
  wire::LogMessage message;
  message.level = level;
  message.text.Assign(text);
  Send(message);
}

void Agent::ReportDeviceMemory(const wire::DeviceMemoryMessage& memory) {
  if (has_device_memory_ && memory == device_memory_) return;
  device_memory_ = memory;
  has_device_memory_ = true;
  Send(memory);
}

void Agent::Tick(uint32_t now_ms) {
  if (!started_ || now_ms - last_heartbeat_ms_ < wire::kHeartbeatPeriodMs) return;
  last_heartbeat_ms_ = now_ms;
  wire::HeartbeatMessage heartbeat;
  heartbeat.uptime_ms = now_ms;
  heartbeat.dropped_frames = ring_.dropped_frames() + ring_.dropped_link_frames();
  heartbeat.queue_peak_bytes = static_cast<uint32_t>(ring_.peak_bytes());
  heartbeat.bad_command_frames = static_cast<uint32_t>(rx_.counters().frames_bad);
  Send(heartbeat);
  Send(control_.run_state());
}

void Agent::Receive(const uint8_t* data, size_t size) {
  rx_.Push(data, size, this);
  SendTensorChunks();
  if (control_.TakeHelloRequest()) {
    sent_names_.Clear();
    SendHello();
    if (ops_ != nullptr || model_hash_ != 0) SendModelAnnounce();
    if (has_device_memory_) Send(device_memory_);
  }
  ReportRunState();
}

void Agent::Acknowledge(const wire::FrameView& frame, uint16_t command_id, wire::AckResult result) {
  ++(result == wire::AckResult::kOk ? stats_.commands_applied : stats_.commands_rejected);
  Send(wire::AckMessage{command_id, frame.type, result});
}

void Agent::OnFrame(const wire::FrameView& frame) {
  // Every command starts with its id, so even a malformed one can be answered.
  const uint16_t command_id =
      frame.payload_size >= 2 ? static_cast<uint16_t>(frame.payload[0] | (frame.payload[1] << 8))
                              : 0;
  const uint8_t type = static_cast<uint8_t>(frame.type);
  if (type < kFirstCommandType || type > kLastCommandType) {
    ++stats_.ignored_frames;  // not a command (e.g. our own output echoed back): never answer
    return;
  }
  if (!wire::IsCommandMessage(frame.type)) {
    Acknowledge(frame, command_id, wire::AckResult::kUnknownCommand);
    return;
  }
  if (const wire::AckResult* first = recent_commands_.Find(command_id, frame.type)) {
    ++stats_.repeated_commands;
    Send(wire::AckMessage{command_id, frame.type, *first});
    return;
  }
  wire::AckResult result = wire::AckResult::kMalformed;
  wire::RequestTensorCommand tensor_request;  // answered once its ACK is out
  if (frame.type == MessageType::kSetBreakpoint) {
    wire::SetBreakpointCommand command;
    if (wire::DecodePayload(frame.payload, frame.payload_size, &command) ==
        wire::DecodeStatus::kOk) {
      result = control_.Apply(command);
    }
  } else if (frame.type == MessageType::kRequestTensor) {
    if (wire::DecodePayload(frame.payload, frame.payload_size, &tensor_request) ==
        wire::DecodeStatus::kOk) {
      result = AcceptTensorRequest();
    }
  } else if (frame.type == MessageType::kSetTrainability) {
    wire::SetTrainabilityCommand command;
    if (wire::DecodePayload(frame.payload, frame.payload_size, &command) ==
        wire::DecodeStatus::kOk) {
      result = control_.Apply(command);
    }
  } else {
    wire::BasicCommand command;
    if (wire::DecodePayload(frame.type, frame.payload, frame.payload_size, &command) ==
        wire::DecodeStatus::kOk) {
      result = control_.Apply(command);
    }
  }
  if (frame.type == MessageType::kRequestHello && result == wire::AckResult::kOk) {
    recent_commands_.OnRequestHello(command_id);  // a new desktop may reuse the last one's ids
  }
  recent_commands_.Remember(command_id, frame.type, result);
  Acknowledge(frame, command_id, result);
  // The ACK settles the command; the header that follows answers it.
  if (frame.type == MessageType::kRequestTensor && result == wire::AckResult::kOk) {
    StartTensorTransfer(tensor_request);
  }
}

wire::AckResult Agent::AcceptTensorRequest() const {
  if ((config_.capabilities & wire::capability::kTensorValues) == 0 ||
      config_.read_tensor == nullptr) {
    return wire::AckResult::kUnsupported;
  }
  return transfer_.active ? wire::AckResult::kNoRoom : wire::AckResult::kOk;  // one at a time
}

void Agent::StartTensorTransfer(const wire::RequestTensorCommand& command) {
  AgentTensorView view;
  const wire::TensorReadResult read =
      config_.read_tensor(config_.read_context, command.tensor, command.aspect, &view);
  wire::TensorHeaderMessage header;
  header.command_id = command.command_id;
  header.tensor = command.tensor;
  header.aspect = command.aspect;
  header.result = read;
  if (read == wire::TensorReadResult::kOk &&
      (view.rank > wire::kMaxTensorRank || (view.values == nullptr && view.count > 0))) {
    header.result = wire::TensorReadResult::kUnsupported;
    view.reason = "the firmware described the tensor wrongly";
  }
  if (header.result == wire::TensorReadResult::kOk) {
    header.rank = view.rank;
    for (size_t d = 0; d < view.rank; ++d) header.dims[d] = view.dims[d];
    header.value_count = view.count;
  } else {
    header.reason.Assign(view.reason != nullptr ? view.reason : "");
  }
  Send(header);
  transfer_.active = header.result == wire::TensorReadResult::kOk && view.count > 0;
  transfer_.command_id = command.command_id;
  transfer_.values = view.values;
  transfer_.count = transfer_.active ? view.count : 0;
  transfer_.sent = 0;
  if (header.result == wire::TensorReadResult::kOk && view.count == 0) ++stats_.tensors_sent;
}

void Agent::SendTensorChunks() {
  constexpr size_t kChunkRecordBytes =
      TxRing::kRecordHeaderBytes + wire::WireFrameSize(wire::kMaxTensorChunkPayloadBytes);
  while (transfer_.active && ring_.free_bytes() >= 2 * kChunkRecordBytes) {
    wire::TensorChunkMessage chunk;
    chunk.command_id = transfer_.command_id;
    chunk.offset = transfer_.sent;
    const uint32_t left = transfer_.count - transfer_.sent;
    chunk.count = static_cast<uint8_t>(
        left < wire::kMaxTensorChunkValues ? left : wire::kMaxTensorChunkValues);
    for (size_t i = 0; i < chunk.count; ++i) chunk.values[i] = transfer_.values[transfer_.sent + i];
    Send(chunk);
    transfer_.sent += chunk.count;
    if (transfer_.sent == transfer_.count) {
      transfer_.active = false;
      ++stats_.tensors_sent;
      stats_.tensor_bytes_sent += uint64_t{4} * transfer_.count;
    }
  }
}

void Agent::ReportRunState() {
  wire::RunStateMessage state;
  if (control_.TakeRunStateChange(&state)) Send(state);
}

void Agent::WaitWhilePaused() {
  if (config_.poll == nullptr || in_poll_) return;
  in_poll_ = true;
  while (control_.paused() || sending_tensor()) {
    Flush();
    SendTensorChunks();
    config_.poll(config_.poll_context);
    ReportRunState();
  }
  in_poll_ = false;
}

void Agent::FinishTensorTransfer() {
  if (!sending_tensor()) return;
  if (config_.poll == nullptr || in_poll_) {
    SendTensorChunks();
    return;
  }
  in_poll_ = true;
  while (sending_tensor()) {
    Flush();
    SendTensorChunks();
    if (sending_tensor()) config_.poll(config_.poll_context);
  }
  in_poll_ = false;
}

void Agent::SafePoint() {
  ReportRunState();
  if (config_.poll != nullptr && !in_poll_ && !control_.paused()) {
    in_poll_ = true;  // a PAUSE that arrives here stops the run at this very point
    config_.poll(config_.poll_context);
    in_poll_ = false;
    ReportRunState();
  }
  WaitWhilePaused();
}

void Agent::OnSample(const SampleEvent& event) {
  if (EventWanted(config_.event_mask, MessageType::kSample)) Send(event);
  control_.OnSample(event);
  SafePoint();
}

void Agent::OnOptimizerStep(const OptimizerStepEvent& event) {
  if (EventWanted(config_.event_mask, MessageType::kOptimizerStep)) Send(event);
  control_.OnOptimizerStep(event);
  SafePoint();
}

void Agent::OnForwardOp(const ForwardOpEvent& event) {
  if (!EventWanted(config_.event_mask, MessageType::kForwardOp)) return;
  LookUpName(wire::NameKind::kOperator, event.op_index);
  Send(event);
}

void Agent::OnBackwardStep(const BackwardStepEvent& event) {
  if (EventWanted(config_.event_mask, MessageType::kBackwardStep)) {
    LookUpName(wire::NameKind::kOperator, event.op_index);
    Send(event);
  }
  control_.OnBackwardStep(event);
  SafePoint();
}

void Agent::OnMemory(const MemoryEvent& event) {
  if (!EventWanted(config_.event_mask, MessageType::kMemory)) return;
  LookUpName(wire::NameKind::kTensor, event.tensor);
  Send(event);
}

void Agent::OnMemorySummary(const MemorySummaryEvent& event) {
  if (EventWanted(config_.event_mask, MessageType::kMemorySummary)) Send(event);
  control_.OnMemorySummary(event);
  if (control_.paused()) SafePoint();  // polling per allocation would be too often
}

void Agent::OnGradientStats(const GradientStatsEvent& event) {
  if (EventWanted(config_.event_mask, MessageType::kGradientStats)) {
    LookUpName(wire::NameKind::kTensor, event.tensor);
    Send(event);
  }
  control_.OnGradientStats(event);
  if (control_.paused()) SafePoint();
}

void Agent::OnUpdateRatio(const UpdateRatioEvent& event) {
  if (!EventWanted(config_.event_mask, MessageType::kUpdateRatio)) return;
  LookUpName(wire::NameKind::kTensor, event.tensor);
  Send(event);
}

void Agent::OnLoss(const LossEvent& event) {
  if (EventWanted(config_.event_mask, MessageType::kLoss)) Send(event);
}

void Agent::OnMetric(const MetricEvent& event) {
  if (EventWanted(config_.event_mask, MessageType::kMetric)) Send(event);
}

}  // namespace trainscope
