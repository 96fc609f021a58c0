// SPDX-License-Identifier: Apache-2.0
//
// The constants of the TrainScope wire protocol (docs/protocol.md is the normative description).
//
// A frame on the wire is COBS(type, flags, sequence, payload, crc32) followed by one 0x00
// delimiter. Everything here is constexpr so a board build pays nothing for it; the only
// functions are name lookups and classification of message types.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trainscope::wire {

// Bumped when a message changes incompatibly. Additive changes (new message types, fields
// appended to a payload) keep the version: decoders skip unknown types and ignore trailing bytes.
inline constexpr uint16_t kProtocolVersion = 1;
// First field of HELLO: the bytes 'T' 'S' 'A' 'G' read as a little-endian u32.
inline constexpr uint32_t kHelloMagic = 0x47415354u;

inline constexpr size_t kFrameHeaderBytes = 4;  // type u8, flags u8, sequence u16
inline constexpr size_t kFrameCrcBytes = 4;     // CRC-32 of header and payload
inline constexpr size_t kMaxPayloadBytes = 1024;
inline constexpr size_t kMinUnstuffedFrameBytes = kFrameHeaderBytes + kFrameCrcBytes;
inline constexpr size_t kMaxUnstuffedFrameBytes =
    kFrameHeaderBytes + kMaxPayloadBytes + kFrameCrcBytes;

// Upper bound of COBS output for `size` input bytes (one code byte per 254 bytes, plus one).
constexpr size_t CobsMaxEncodedSize(size_t size) {
  return size + size / 254 + 1;
}

// Largest frame on the wire, delimiter included.
inline constexpr size_t kMaxWireFrameBytes = CobsMaxEncodedSize(kMaxUnstuffedFrameBytes) + 1;
// Wire bytes a frame adds around its payload when the payload is shorter than 254 - 8 bytes.
inline constexpr size_t kSmallFrameOverheadBytes = kFrameHeaderBytes + kFrameCrcBytes + 2;

inline constexpr uint32_t kHeartbeatPeriodMs = 1000;
// The desktop declares the link silent after this many heartbeat periods without any frame.
inline constexpr uint32_t kHeartbeatMissesBeforeSilent = 3;

// Frame flag bits. Senders set reserved bits to zero; receivers ignore them.
inline constexpr uint8_t kFlagLossy = 0x01;  // the sender may drop this kind of frame under load

enum class MessageType : uint8_t {
  // Board -> desktop: link messages (never dropped by the agent).
  kHello = 0x01,
  kModelAnnounce = 0x02,
  kInternName = 0x03,
  kLog = 0x04,
  kHeartbeat = 0x05,
  kAck = 0x06,
  kRunState = 0x07,
  kDeviceMemory = 0x08,
  kTensorHeader = 0x09,  // the answer to REQUEST_TENSOR: shape and count, or why not
  kTensorChunk = 0x0A,   // up to 48 of its values
  // Board -> desktop: training events, one per struct of engine/core/events.h.
  kSample = 0x10,
  kOptimizerStep = 0x11,
  kForwardOp = 0x12,
  kBackwardStep = 0x13,
  kMemory = 0x14,
  kMemorySummary = 0x15,
  kGradientStats = 0x16,
  kUpdateRatio = 0x17,
  kLoss = 0x18,
  kMetric = 0x19,
  // Desktop -> board: commands. Every command payload starts with a u16 command id.
  kPing = 0x40,
  kPause = 0x41,
  kResume = 0x42,
  kStepBackwardOp = 0x43,
  kStepSample = 0x44,
  kStepBatch = 0x45,
  kSetBreakpoint = 0x46,
  kSetTrainability = 0x47,
  kRequestMemoryPlan = 0x48,
  kRequestHello = 0x49,  // re-send HELLO, MODEL_ANNOUNCE and names (desktop attached late)
  kRequestTensor = 0x4A,
  // 0x4B-0x7F: reserved for future commands; a board answers them with ACK UNKNOWN_COMMAND.
};

// "HELLO", "BACKWARD_STEP", ... or nullptr for a type this version does not define.
const char* MessageTypeName(MessageType type);
bool IsKnownMessageType(uint8_t raw_type);
// Largest payload this version encodes for a type (0 for unknown types); buffers are sized
// from it, and it is what the size budget in docs/protocol.md adds up.
size_t MaxPayloadSize(MessageType type);
inline bool IsEventMessage(MessageType type) {
  return static_cast<uint8_t>(type) >= 0x10 && static_cast<uint8_t>(type) <= 0x19;
}
inline bool IsCommandMessage(MessageType type) {
  return static_cast<uint8_t>(type) >= 0x40 && static_cast<uint8_t>(type) <= 0x4A;
}
// Bit of HELLO's event mask / the agent's stream mask for an event type (0 for non-events).
inline uint32_t EventMaskBit(MessageType type) {
  return IsEventMessage(type) ? (1u << (static_cast<uint8_t>(type) - 0x10)) : 0u;
}
inline constexpr uint32_t kAllEventsMask = (1u << 10) - 1;

// Flags a sender puts on a frame of this type: the agent may drop high-rate events when its
// queue is full, but never link messages or the SAMPLE / OPTIMIZER_STEP markers that give the
// stream its structure.
inline uint8_t DefaultFlags(MessageType type) {
  const bool marker = type == MessageType::kSample || type == MessageType::kOptimizerStep;
  return IsEventMessage(type) && !marker ? kFlagLossy : uint8_t{0};
}

// HELLO capability bits: what the board's firmware implements.
namespace capability {
inline constexpr uint32_t kForwardOps = 1u << 0;     // FORWARD_OP events with durations
inline constexpr uint32_t kBackwardSteps = 1u << 1;  // BACKWARD_STEP begin/end
inline constexpr uint32_t kMemoryEvents = 1u << 2;   // MEMORY and MEMORY_SUMMARY
inline constexpr uint32_t kGradientStats = 1u << 3;  // GRADIENT_STATS
inline constexpr uint32_t kUpdateRatio = 1u << 4;    // UPDATE_RATIO
inline constexpr uint32_t kLossMetric = 1u << 5;     // LOSS and METRIC
inline constexpr uint32_t kPauseStep = 1u << 6;      // PAUSE, RESUME, STEP_*
inline constexpr uint32_t kBreakpoints = 1u << 7;    // SET_BREAKPOINT
inline constexpr uint32_t kTrainability = 1u << 8;   // SET_TRAINABILITY
inline constexpr uint32_t kMemoryPlan = 1u << 9;     // REQUEST_MEMORY_PLAN
inline constexpr uint32_t kDurations = 1u << 10;     // duration_ns fields are measured, not 0
// The durations are an emulator's time (QEMU -icount: instructions, not cycles).
inline constexpr uint32_t kEmulatedTime = 1u << 11;
inline constexpr uint32_t kTensorValues = 1u << 12;  // REQUEST_TENSOR
inline constexpr uint32_t kAllDefined = (1u << 13) - 1;
}  // namespace capability

}  // namespace trainscope::wire
