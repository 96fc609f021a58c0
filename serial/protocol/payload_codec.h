// SPDX-License-Identifier: Apache-2.0
//
// Typed payload encoding and decoding: one EncodePayload / DecodePayload pair per message, each
// writing or reading the little-endian fields listed in docs/protocol.md. No heap, no
// exceptions, usable by the board agent.
//
// Decoding never trusts its input: a short payload is kTruncated, an enum outside its range or a
// count over its cap is kInvalidValue, and on any failure `*out` may be partly written and must
// not be used. Bytes after the last known field are ignored, which lets a later protocol version
// append fields without breaking older readers.
//
//   uint8_t payload[wire::kMaxPayloadBytes];
//   wire::ByteWriter writer(payload, sizeof payload);
//   wire::EncodePayload(event, &writer);
//   ...
//   BackwardStepEvent decoded;
//   if (wire::DecodePayload(frame.payload, frame.payload_size, &decoded) == DecodeStatus::kOk) ...
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/events.h"
#include "serial/protocol/byte_io.h"
#include "serial/protocol/messages.h"
#include "serial/protocol/wire_format.h"

namespace trainscope::wire {

enum class DecodeStatus : uint8_t {
  kOk,
  kTruncated,     // the payload ends before the message's last field
  kInvalidValue,  // an enum, count or length outside its range
  kUnknownType,   // the frame's type is not a message this version knows
};
const char* DecodeStatusName(DecodeStatus status);

// The frame type that carries each message.
inline MessageType MessageTypeOf(const HelloMessage&) {
  return MessageType::kHello;
}
inline MessageType MessageTypeOf(const ModelAnnounceMessage&) {
  return MessageType::kModelAnnounce;
}
inline MessageType MessageTypeOf(const InternNameMessage&) {
  return MessageType::kInternName;
}
inline MessageType MessageTypeOf(const LogMessage&) {
  return MessageType::kLog;
}
inline MessageType MessageTypeOf(const HeartbeatMessage&) {
  return MessageType::kHeartbeat;
}
inline MessageType MessageTypeOf(const AckMessage&) {
  return MessageType::kAck;
}
inline MessageType MessageTypeOf(const RunStateMessage&) {
  return MessageType::kRunState;
}
inline MessageType MessageTypeOf(const DeviceMemoryMessage&) {
  return MessageType::kDeviceMemory;
}
inline MessageType MessageTypeOf(const SampleEvent&) {
  return MessageType::kSample;
}
inline MessageType MessageTypeOf(const OptimizerStepEvent&) {
  return MessageType::kOptimizerStep;
}
inline MessageType MessageTypeOf(const ForwardOpEvent&) {
  return MessageType::kForwardOp;
}
inline MessageType MessageTypeOf(const BackwardStepEvent&) {
  return MessageType::kBackwardStep;
}
inline MessageType MessageTypeOf(const MemoryEvent&) {
  return MessageType::kMemory;
}
inline MessageType MessageTypeOf(const MemorySummaryEvent&) {
  return MessageType::kMemorySummary;
}
inline MessageType MessageTypeOf(const GradientStatsEvent&) {
  return MessageType::kGradientStats;
}
inline MessageType MessageTypeOf(const UpdateRatioEvent&) {
  return MessageType::kUpdateRatio;
}
inline MessageType MessageTypeOf(const LossEvent&) {
  return MessageType::kLoss;
}
inline MessageType MessageTypeOf(const MetricEvent&) {
  return MessageType::kMetric;
}
inline MessageType MessageTypeOf(const BasicCommand& command) {
  return command.type;
}
inline MessageType MessageTypeOf(const SetBreakpointCommand&) {
  return MessageType::kSetBreakpoint;
}
inline MessageType MessageTypeOf(const SetTrainabilityCommand&) {
  return MessageType::kSetTrainability;
}
inline MessageType MessageTypeOf(const RequestTensorCommand&) {
  return MessageType::kRequestTensor;
}
inline MessageType MessageTypeOf(const TensorHeaderMessage&) {
  return MessageType::kTensorHeader;
}
inline MessageType MessageTypeOf(const TensorChunkMessage&) {
  return MessageType::kTensorChunk;
}

// Link messages and commands (link_codec.cpp). Each returns writer->ok().
bool EncodePayload(const HelloMessage& message, ByteWriter* writer);
bool EncodePayload(const ModelAnnounceMessage& message, ByteWriter* writer);
bool EncodePayload(const InternNameMessage& message, ByteWriter* writer);
bool EncodePayload(const LogMessage& message, ByteWriter* writer);
bool EncodePayload(const HeartbeatMessage& message, ByteWriter* writer);
bool EncodePayload(const AckMessage& message, ByteWriter* writer);
bool EncodePayload(const RunStateMessage& message, ByteWriter* writer);
bool EncodePayload(const DeviceMemoryMessage& message, ByteWriter* writer);
bool EncodePayload(const BasicCommand& command, ByteWriter* writer);
bool EncodePayload(const SetBreakpointCommand& command, ByteWriter* writer);
bool EncodePayload(const SetTrainabilityCommand& command, ByteWriter* writer);

DecodeStatus DecodePayload(const uint8_t* data, size_t size, HelloMessage* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, ModelAnnounceMessage* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, InternNameMessage* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, LogMessage* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, HeartbeatMessage* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, AckMessage* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, RunStateMessage* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, DeviceMemoryMessage* out);
// `type` must be one of the id-only commands; others give kUnknownType.
DecodeStatus DecodePayload(MessageType type, const uint8_t* data, size_t size, BasicCommand* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, SetBreakpointCommand* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, SetTrainabilityCommand* out);

// Tensor values (link_codec.cpp).
bool EncodePayload(const RequestTensorCommand& command, ByteWriter* writer);
bool EncodePayload(const TensorHeaderMessage& message, ByteWriter* writer);
bool EncodePayload(const TensorChunkMessage& message, ByteWriter* writer);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, RequestTensorCommand* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, TensorHeaderMessage* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, TensorChunkMessage* out);

// Training events (event_codec.cpp).
bool EncodePayload(const SampleEvent& event, ByteWriter* writer);
bool EncodePayload(const OptimizerStepEvent& event, ByteWriter* writer);
bool EncodePayload(const ForwardOpEvent& event, ByteWriter* writer);
bool EncodePayload(const BackwardStepEvent& event, ByteWriter* writer);
bool EncodePayload(const MemoryEvent& event, ByteWriter* writer);
bool EncodePayload(const MemorySummaryEvent& event, ByteWriter* writer);
bool EncodePayload(const GradientStatsEvent& event, ByteWriter* writer);
bool EncodePayload(const UpdateRatioEvent& event, ByteWriter* writer);
bool EncodePayload(const LossEvent& event, ByteWriter* writer);
bool EncodePayload(const MetricEvent& event, ByteWriter* writer);

DecodeStatus DecodePayload(const uint8_t* data, size_t size, SampleEvent* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, OptimizerStepEvent* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, ForwardOpEvent* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, BackwardStepEvent* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, MemoryEvent* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, MemorySummaryEvent* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, GradientStatsEvent* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, UpdateRatioEvent* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, LossEvent* out);
DecodeStatus DecodePayload(const uint8_t* data, size_t size, MetricEvent* out);

}  // namespace trainscope::wire
