// SPDX-License-Identifier: Apache-2.0
//
// Payloads of the link messages and commands. Field order here is the wire order documented in
// docs/protocol.md; keep the two in step.
#include "serial/protocol/payload_codec.h"

namespace trainscope::wire {
namespace {

template <size_t N>
void PutString(const BoundedString<N>& text, ByteWriter* writer) {
  const uint8_t size = text.size > N ? static_cast<uint8_t>(N) : text.size;
  writer->U8(size);
  writer->Bytes(text.data, size);
}

// A length over the field's cap is a lie about the payload, not a long name: reject it.
template <size_t N>
bool GetString(ByteReader* reader, BoundedString<N>* text) {
  const uint8_t size = reader->U8();
  if (!reader->ok()) return true;  // reported as kTruncated by the caller
  if (size > N) return false;
  char bytes[N] = {};
  reader->Bytes(bytes, size);
  text->Assign(bytes, reader->ok() ? size : 0);
  return true;
}

DecodeStatus Finish(const ByteReader& reader, bool values_valid) {
  if (!reader.ok()) return DecodeStatus::kTruncated;
  return values_valid ? DecodeStatus::kOk : DecodeStatus::kInvalidValue;
}

bool IsIdOnlyCommand(MessageType type) {
  switch (type) {
    case MessageType::kPing:
    case MessageType::kPause:
    case MessageType::kResume:
    case MessageType::kStepBackwardOp:
    case MessageType::kStepSample:
    case MessageType::kStepBatch:
    case MessageType::kRequestMemoryPlan:
    case MessageType::kRequestHello:
      return true;
    default:
      return false;
  }
}

}  // namespace

const char* DecodeStatusName(DecodeStatus status) {
  switch (status) {
    case DecodeStatus::kOk:
      return "ok";
    case DecodeStatus::kTruncated:
      return "payload too short";
    case DecodeStatus::kInvalidValue:
      return "field value out of range";
    case DecodeStatus::kUnknownType:
      return "unknown message type";
  }
  return "unknown decode status";
}

bool EncodePayload(const HelloMessage& message, ByteWriter* writer) {
  writer->U32(message.magic);
  writer->U16(message.protocol_version);
  PutString(message.agent_name, writer);
  writer->U32(message.capabilities);
  writer->U32(message.ram_bytes);
  writer->U32(message.arena_bytes);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, HelloMessage* out) {
  ByteReader reader(data, size);
  out->magic = reader.U32();
  out->protocol_version = reader.U16();
  const bool name_ok = GetString(&reader, &out->agent_name);
  out->capabilities = reader.U32();
  out->ram_bytes = reader.U32();
  out->arena_bytes = reader.U32();
  return Finish(reader, name_ok && out->magic == kHelloMagic);
}

constexpr size_t kAnnounceSetupBytes = 5;  // optimizer u8, batch_size u32

bool EncodePayload(const ModelAnnounceMessage& message, ByteWriter* writer) {
  if (message.entry_count > kMaxOpsPerAnnounce) return false;
  writer->U64(message.model_hash);
  writer->U32(message.op_count);
  writer->U32(message.tensor_count);
  writer->U32(message.first_op);
  writer->U8(static_cast<uint8_t>(message.entry_count));
  for (size_t i = 0; i < message.entry_count; ++i) {
    const OpSummary& op = message.ops[i];
    writer->I16(op.opcode);
    writer->U8(static_cast<uint8_t>((op.trainable ? 1u : 0u) | (static_cast<unsigned>(op.rank) & 3u)
                                                                   << 1));
  }
  // An unknown setup is written as older boards wrote it: without the appended fields, so every
  // announcement has one encoding.
  if (message.optimizer != kOptimizerUnknown || message.batch_size != 0) {
    writer->U8(message.optimizer);
    writer->U32(message.batch_size);
  }
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, ModelAnnounceMessage* out) {
  ByteReader reader(data, size);
  out->model_hash = reader.U64();
  out->op_count = reader.U32();
  out->tensor_count = reader.U32();
  out->first_op = reader.U32();
  out->entry_count = reader.U8();
  if (!reader.ok()) return DecodeStatus::kTruncated;
  // The entries must describe ops that exist: first_op + entry_count <= op_count.
  const bool counts_ok = out->entry_count <= kMaxOpsPerAnnounce && out->first_op <= out->op_count &&
                         out->entry_count <= out->op_count - out->first_op;
  if (!counts_ok) return DecodeStatus::kInvalidValue;
  for (size_t i = 0; i < out->entry_count; ++i) {
    OpSummary& op = out->ops[i];
    op.opcode = reader.I16();
    const uint8_t bits = reader.U8();
    op.trainable = (bits & 1u) != 0;
    op.rank = static_cast<TrainRank>((bits >> 1) & 3u);  // two bits: every value is a rank
  }
  // The training setup was appended later: a payload without all of it is an older board's (as
  // trailing bytes are ignored, a partial setup is too).
  if (reader.ok() && reader.remaining() >= kAnnounceSetupBytes) {
    out->optimizer = reader.U8();
    out->batch_size = reader.U32();
  }
  return Finish(reader, true);
}

bool EncodePayload(const InternNameMessage& message, ByteWriter* writer) {
  writer->U8(static_cast<uint8_t>(message.kind));
  writer->U32(message.id);
  PutString(message.name, writer);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, InternNameMessage* out) {
  ByteReader reader(data, size);
  const uint8_t kind = reader.U8();
  out->kind = static_cast<NameKind>(kind);
  out->id = reader.U32();
  const bool name_ok = GetString(&reader, &out->name);
  return Finish(reader, name_ok && kind < kNameKindCount);
}

bool EncodePayload(const LogMessage& message, ByteWriter* writer) {
  writer->U8(static_cast<uint8_t>(message.level));
  PutString(message.text, writer);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, LogMessage* out) {
  ByteReader reader(data, size);
  const uint8_t level = reader.U8();
  out->level = static_cast<LogLevel>(level);
  const bool text_ok = GetString(&reader, &out->text);
  return Finish(reader, text_ok && level < kLogLevelCount);
}

bool EncodePayload(const HeartbeatMessage& message, ByteWriter* writer) {
  writer->U32(message.uptime_ms);
  writer->U32(message.dropped_frames);
  writer->U32(message.queue_peak_bytes);
  writer->U32(message.bad_command_frames);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, HeartbeatMessage* out) {
  ByteReader reader(data, size);
  out->uptime_ms = reader.U32();
  out->dropped_frames = reader.U32();
  out->queue_peak_bytes = reader.U32();
  out->bad_command_frames = reader.U32();
  return Finish(reader, true);
}

bool EncodePayload(const AckMessage& message, ByteWriter* writer) {
  writer->U16(message.command_id);
  writer->U8(static_cast<uint8_t>(message.command));
  writer->U8(static_cast<uint8_t>(message.result));
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, AckMessage* out) {
  ByteReader reader(data, size);
  out->command_id = reader.U16();
  out->command = static_cast<MessageType>(reader.U8());
  const uint8_t result = reader.U8();
  out->result = static_cast<AckResult>(result);
  // The command byte is echoed as received, even when it is a type this side does not know.
  return Finish(reader, result < kAckResultCount);
}

bool EncodePayload(const RunStateMessage& message, ByteWriter* writer) {
  writer->U8(static_cast<uint8_t>(message.state));
  writer->U8(static_cast<uint8_t>(message.reason));
  writer->U32(message.op_index);
  writer->U32(message.optimizer_step);
  writer->I32(message.tensor);
  writer->F32(message.value);
  writer->U32(message.bytes);
  if (message.transition != 0) {
    writer->U32(message.transition);
    if (message.activity != BoardActivity::kUnknown) {
      writer->U8(static_cast<uint8_t>(message.activity));
    }
  }
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, RunStateMessage* out) {
  ByteReader reader(data, size);
  const uint8_t state = reader.U8();
  const uint8_t reason = reader.U8();
  out->state = static_cast<RunStateKind>(state);
  out->reason = static_cast<PauseReason>(reason);
  out->op_index = reader.U32();
  out->optimizer_step = reader.U32();
  out->tensor = reader.I32();
  out->value = reader.F32();
  out->bytes = reader.U32();
  // `transition` was appended later: an older board's report ends before it.
  const bool numbered = reader.ok() && reader.remaining() >= sizeof(uint32_t);
  out->transition = numbered ? reader.U32() : 0;
  // So was `activity`, after it, and only ever with a transition number (the encoder writes
  // neither for transition 0, so neither is read then).
  const uint8_t activity =
      out->transition != 0 && reader.ok() && reader.remaining() >= 1 ? reader.U8() : 0;
  out->activity = static_cast<BoardActivity>(activity);
  return Finish(reader, state <= 1 && reason < kPauseReasonCount && activity < kBoardActivityCount);
}

bool EncodePayload(const DeviceMemoryMessage& message, ByteWriter* writer) {
  writer->U32(message.heap_peak_bytes);
  writer->U32(message.stack_peak_bytes);
  writer->U32(message.static_bytes);
  writer->U32(message.ram_bytes);
  writer->U32(message.predicted_heap_peak_bytes);
  writer->U32(message.model_bytes);
  writer->U32(message.data_bytes);
  writer->U32(message.agent_bytes);
  writer->U8(static_cast<uint8_t>(message.source));
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, DeviceMemoryMessage* out) {
  ByteReader reader(data, size);
  out->heap_peak_bytes = reader.U32();
  out->stack_peak_bytes = reader.U32();
  out->static_bytes = reader.U32();
  out->ram_bytes = reader.U32();
  out->predicted_heap_peak_bytes = reader.U32();
  out->model_bytes = reader.U32();
  out->data_bytes = reader.U32();
  out->agent_bytes = reader.U32();
  const uint8_t source = reader.U8();
  out->source = static_cast<MemorySource>(source);
  return Finish(reader, source < kMemorySourceCount);
}

bool EncodePayload(const BasicCommand& command, ByteWriter* writer) {
  if (!IsIdOnlyCommand(command.type)) return false;
  writer->U16(command.command_id);
  return writer->ok();
}

DecodeStatus DecodePayload(MessageType type, const uint8_t* data, size_t size, BasicCommand* out) {
  if (!IsIdOnlyCommand(type)) return DecodeStatus::kUnknownType;
  ByteReader reader(data, size);
  out->type = type;
  out->command_id = reader.U16();
  return Finish(reader, true);
}

bool EncodePayload(const SetBreakpointCommand& command, ByteWriter* writer) {
  writer->U16(command.command_id);
  writer->U8(static_cast<uint8_t>(command.kind));
  writer->U8(command.enable ? 1 : 0);
  writer->U32(command.op_index);
  writer->F32(command.threshold);
  writer->U32(command.budget_bytes);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, SetBreakpointCommand* out) {
  ByteReader reader(data, size);
  out->command_id = reader.U16();
  const uint8_t kind = reader.U8();
  out->kind = static_cast<BreakpointKind>(kind);
  out->enable = reader.U8() != 0;
  out->op_index = reader.U32();
  out->threshold = reader.F32();
  out->budget_bytes = reader.U32();
  return Finish(reader, kind < kBreakpointKindCount);
}

bool EncodePayload(const SetTrainabilityCommand& command, ByteWriter* writer) {
  writer->U16(command.command_id);
  writer->U8(static_cast<uint8_t>(command.mode));
  writer->U8(static_cast<uint8_t>(command.rank));
  writer->U32(command.value);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, SetTrainabilityCommand* out) {
  ByteReader reader(data, size);
  out->command_id = reader.U16();
  const uint8_t mode = reader.U8();
  const uint8_t rank = reader.U8();
  out->mode = static_cast<TrainabilityMode>(mode);
  out->rank = static_cast<TrainRank>(rank);
  out->value = reader.U32();
  return Finish(reader, mode < kTrainabilityModeCount && rank < kTrainRankCount);
}

bool EncodePayload(const RequestTensorCommand& command, ByteWriter* writer) {
  writer->U16(command.command_id);
  writer->I32(command.tensor);
  writer->U8(static_cast<uint8_t>(command.aspect));
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, RequestTensorCommand* out) {
  ByteReader reader(data, size);
  out->command_id = reader.U16();
  out->tensor = reader.I32();
  const uint8_t aspect = reader.U8();
  out->aspect = static_cast<TensorAspect>(aspect);
  return Finish(reader, aspect < kTensorAspectCount);
}

bool EncodePayload(const TensorHeaderMessage& message, ByteWriter* writer) {
  if (message.rank > kMaxTensorRank) return false;
  writer->U16(message.command_id);
  writer->I32(message.tensor);
  writer->U8(static_cast<uint8_t>(message.aspect));
  writer->U8(static_cast<uint8_t>(message.result));
  writer->U8(message.rank);
  for (size_t d = 0; d < message.rank; ++d) writer->I32(message.dims[d]);
  writer->U32(message.value_count);
  PutString(message.reason, writer);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, TensorHeaderMessage* out) {
  ByteReader reader(data, size);
  out->command_id = reader.U16();
  out->tensor = reader.I32();
  const uint8_t aspect = reader.U8();
  const uint8_t result = reader.U8();
  out->aspect = static_cast<TensorAspect>(aspect);
  out->result = static_cast<TensorReadResult>(result);
  out->rank = reader.U8();
  if (out->rank > kMaxTensorRank)
    return reader.ok() ? DecodeStatus::kInvalidValue : DecodeStatus::kTruncated;
  for (size_t d = 0; d < out->rank; ++d) out->dims[d] = reader.I32();
  out->value_count = reader.U32();
  const bool reason_ok = GetString(&reader, &out->reason);
  return Finish(reader, reason_ok && aspect < kTensorAspectCount &&
                            result < kTensorReadResultCount &&
                            out->value_count <= kMaxTensorValues);
}

bool EncodePayload(const TensorChunkMessage& message, ByteWriter* writer) {
  if (message.count > kMaxTensorChunkValues) return false;
  writer->U16(message.command_id);
  writer->U32(message.offset);
  writer->U8(message.count);
  for (size_t i = 0; i < message.count; ++i) writer->F32(message.values[i]);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, TensorChunkMessage* out) {
  ByteReader reader(data, size);
  out->command_id = reader.U16();
  out->offset = reader.U32();
  out->count = reader.U8();
  if (out->count > kMaxTensorChunkValues) {
    return reader.ok() ? DecodeStatus::kInvalidValue : DecodeStatus::kTruncated;
  }
  for (size_t i = 0; i < out->count; ++i) out->values[i] = reader.F32();
  return Finish(reader, true);
}

}  // namespace trainscope::wire
