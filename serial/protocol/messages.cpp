// SPDX-License-Identifier: Apache-2.0
#include "serial/protocol/messages.h"

namespace trainscope::wire {

const char* AckResultName(AckResult result) {
  switch (result) {
    case AckResult::kOk:
      return "ok";
    case AckResult::kUnknownCommand:
      return "unknown command";
    case AckResult::kInvalidArgument:
      return "invalid argument";
    case AckResult::kUnsupported:
      return "not supported by this firmware";
    case AckResult::kNoRoom:
      return "no room left on the board";
    case AckResult::kMalformed:
      return "malformed command";
  }
  return "unknown result";
}

const char* PauseReasonName(PauseReason reason) {
  switch (reason) {
    case PauseReason::kNone:
      return "none";
    case PauseReason::kCommand:
      return "pause command";
    case PauseReason::kStepDone:
      return "step done";
    case PauseReason::kOpBreakpoint:
      return "op breakpoint";
    case PauseReason::kNanInfBreakpoint:
      return "NaN/Inf breakpoint";
    case PauseReason::kArenaBreakpoint:
      return "arena budget breakpoint";
    case PauseReason::kGradientBreakpoint:
      return "gradient threshold breakpoint";
  }
  return "unknown reason";
}

bool operator==(const HelloMessage& a, const HelloMessage& b) {
  return a.magic == b.magic && a.protocol_version == b.protocol_version &&
         a.agent_name == b.agent_name && a.capabilities == b.capabilities &&
         a.ram_bytes == b.ram_bytes && a.arena_bytes == b.arena_bytes;
}

bool operator==(const OpSummary& a, const OpSummary& b) {
  return a.opcode == b.opcode && a.trainable == b.trainable && a.rank == b.rank;
}

bool operator==(const ModelAnnounceMessage& a, const ModelAnnounceMessage& b) {
  if (a.model_hash != b.model_hash || a.op_count != b.op_count ||
      a.tensor_count != b.tensor_count || a.first_op != b.first_op ||
      a.entry_count != b.entry_count || a.entry_count > kMaxOpsPerAnnounce ||
      a.optimizer != b.optimizer || a.batch_size != b.batch_size) {
    return false;
  }
  for (size_t i = 0; i < a.entry_count; ++i) {
    if (!(a.ops[i] == b.ops[i])) return false;
  }
  return true;
}

bool operator==(const InternNameMessage& a, const InternNameMessage& b) {
  return a.kind == b.kind && a.id == b.id && a.name == b.name;
}

bool operator==(const LogMessage& a, const LogMessage& b) {
  return a.level == b.level && a.text == b.text;
}

bool operator==(const HeartbeatMessage& a, const HeartbeatMessage& b) {
  return a.uptime_ms == b.uptime_ms && a.dropped_frames == b.dropped_frames &&
         a.queue_peak_bytes == b.queue_peak_bytes && a.bad_command_frames == b.bad_command_frames;
}

bool operator==(const AckMessage& a, const AckMessage& b) {
  return a.command_id == b.command_id && a.command == b.command && a.result == b.result;
}

bool operator==(const RunStateMessage& a, const RunStateMessage& b) {
  return a.state == b.state && a.reason == b.reason && a.op_index == b.op_index &&
         a.optimizer_step == b.optimizer_step && a.tensor == b.tensor &&
         std::memcmp(&a.value, &b.value, sizeof a.value) == 0 && a.bytes == b.bytes &&
         a.transition == b.transition && a.activity == b.activity;
}

const char* BoardActivityName(BoardActivity activity) {
  switch (activity) {
    case BoardActivity::kUnknown:
      return "unknown";
    case BoardActivity::kTraining:
      return "training";
    case BoardActivity::kFinished:
      return "finished";
    case BoardActivity::kWaiting:
      return "waiting";
    case BoardActivity::kHalted:
      return "halted";
  }
  return "unknown";
}

uint32_t DeviceMemoryTotal(const DeviceMemoryMessage& message) {
  const uint64_t total =
      uint64_t{message.heap_peak_bytes} + message.stack_peak_bytes + message.static_bytes;
  return total > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(total);
}

bool operator==(const DeviceMemoryMessage& a, const DeviceMemoryMessage& b) {
  return a.heap_peak_bytes == b.heap_peak_bytes && a.stack_peak_bytes == b.stack_peak_bytes &&
         a.static_bytes == b.static_bytes && a.ram_bytes == b.ram_bytes &&
         a.predicted_heap_peak_bytes == b.predicted_heap_peak_bytes &&
         a.model_bytes == b.model_bytes && a.data_bytes == b.data_bytes &&
         a.agent_bytes == b.agent_bytes && a.source == b.source;
}

bool operator==(const BasicCommand& a, const BasicCommand& b) {
  return a.type == b.type && a.command_id == b.command_id;
}

bool operator==(const SetBreakpointCommand& a, const SetBreakpointCommand& b) {
  return a.command_id == b.command_id && a.kind == b.kind && a.enable == b.enable &&
         a.op_index == b.op_index &&
         std::memcmp(&a.threshold, &b.threshold, sizeof a.threshold) == 0 &&
         a.budget_bytes == b.budget_bytes;
}

bool operator==(const SetTrainabilityCommand& a, const SetTrainabilityCommand& b) {
  return a.command_id == b.command_id && a.mode == b.mode && a.rank == b.rank && a.value == b.value;
}

bool operator==(const RequestTensorCommand& a, const RequestTensorCommand& b) {
  return a.command_id == b.command_id && a.tensor == b.tensor && a.aspect == b.aspect;
}

const char* TensorReadResultName(TensorReadResult result) {
  switch (result) {
    case TensorReadResult::kOk:
      return "ok";
    case TensorReadResult::kNotHeld:
      return "not held";
    case TensorReadResult::kUnsupported:
      return "unsupported";
    case TensorReadResult::kNoSuchTensor:
      return "no such tensor";
  }
  return "?";
}

bool operator==(const TensorHeaderMessage& a, const TensorHeaderMessage& b) {
  if (a.command_id != b.command_id || a.tensor != b.tensor || a.aspect != b.aspect ||
      a.result != b.result || a.rank != b.rank || a.value_count != b.value_count ||
      !(a.reason == b.reason)) {
    return false;
  }
  for (size_t d = 0; d < a.rank && d < kMaxTensorRank; ++d) {
    if (a.dims[d] != b.dims[d]) return false;
  }
  return true;
}

bool operator==(const TensorChunkMessage& a, const TensorChunkMessage& b) {
  return a.command_id == b.command_id && a.offset == b.offset && a.count == b.count &&
         std::memcmp(a.values, b.values,
                     sizeof(float) *
                         (a.count <= kMaxTensorChunkValues ? a.count : kMaxTensorChunkValues)) == 0;
}

}  // namespace trainscope::wire
