// SPDX-License-Identifier: Apache-2.0
//
// The protocol's own messages: link messages sent by the board (HELLO, MODEL_ANNOUNCE, ...) and
// the commands sent by the desktop. Training events travel as the structs of
// engine/core/events.h unchanged, so they are not repeated here.
//
// Every struct is a fixed-size value (strings are BoundedString, op lists are arrays with a
// count), so the board agent can build and parse them without a heap. Field order and widths on
// the wire are in docs/protocol.md; payload_codec.h converts between the two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/core/events.h"
#include "serial/protocol/wire_format.h"

namespace trainscope::wire {

// A string of at most N bytes, stored NUL-terminated. On the wire: u8 length, then the bytes.
template <size_t N>
struct BoundedString {
  static_assert(N <= 255, "the length travels as one byte");
  static constexpr size_t kCapacity = N;

  uint8_t size = 0;
  char data[N + 1] = {};

  // Copies at most N bytes of `text`; longer text is cut (the board cannot send more anyway).
  void Assign(const char* text) { Assign(text, text ? std::strlen(text) : 0); }
  void Assign(const char* bytes, size_t length) {
    size = static_cast<uint8_t>(length > N ? N : length);
    if (size > 0) std::memcpy(data, bytes, size);
    data[size] = '\0';
  }
  const char* c_str() const { return data; }
  friend bool operator==(const BoundedString& a, const BoundedString& b) {
    return a.size == b.size && std::memcmp(a.data, b.data, a.size) == 0;
  }
};

inline constexpr size_t kMaxAgentNameBytes = 32;
inline constexpr size_t kMaxInternedNameBytes = 63;
inline constexpr size_t kMaxLogTextBytes = 200;
// Ops per MODEL_ANNOUNCE frame; a bigger model is announced in several frames (first_op grows).
inline constexpr size_t kMaxOpsPerAnnounce = 64;

// First record of every session; also sent again after the board restarts.
struct HelloMessage {
  uint32_t magic = kHelloMagic;
  uint16_t protocol_version = kProtocolVersion;
  BoundedString<kMaxAgentNameBytes> agent_name;
  uint32_t capabilities = 0;  // capability:: bits
  uint32_t ram_bytes = 0;     // total RAM of the board (0 = unknown)
  uint32_t arena_bytes = 0;   // RAM the firmware sets aside for training buffers (0 = unknown)
};

struct OpSummary {
  int16_t opcode = 0;  // circle builtin code (negative for circle-only operators)
  bool trainable = false;
  TrainRank rank = TrainRank::kAll;
};

inline constexpr uint8_t kOptimizerUnknown = 0xFF;

struct ModelAnnounceMessage {
  uint64_t model_hash = 0;  // ModelHash() of the model bytes as loaded, before training
  uint32_t op_count = 0;
  uint32_t tensor_count = 0;
  uint32_t first_op = 0;     // index of ops[0] in the model
  uint16_t entry_count = 0;  // valid entries in ops
  OpSummary ops[kMaxOpsPerAnnounce] = {};
  // Appended after the entries (absent from older boards and traces: the defaults below).
  uint8_t optimizer = kOptimizerUnknown;  // the trainer's OptimizerKind
  uint32_t batch_size = 0;                // samples per optimizer step; 0 = unknown
};

enum class NameKind : uint8_t { kTensor = 0, kOperator = 1 };
inline constexpr uint8_t kNameKindCount = 2;

struct InternNameMessage {
  NameKind kind = NameKind::kTensor;
  uint32_t id = 0;  // tensor index or operator index in the model
  BoundedString<kMaxInternedNameBytes> name;
};

enum class LogLevel : uint8_t { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };
inline constexpr uint8_t kLogLevelCount = 4;

struct LogMessage {
  LogLevel level = LogLevel::kInfo;
  BoundedString<kMaxLogTextBytes> text;
};

struct HeartbeatMessage {
  uint32_t uptime_ms = 0;
  uint32_t dropped_frames = 0;      // frames the agent discarded since HELLO (TX ring full)
  uint32_t queue_peak_bytes = 0;    // highest TX ring fill since HELLO
  uint32_t bad_command_frames = 0;  // frames from the desktop that failed CRC/COBS/length
};

enum class AckResult : uint8_t {
  kOk = 0,
  kUnknownCommand = 1,   // the type is a command this agent does not know
  kInvalidArgument = 2,  // e.g. an op index past the model's op count
  kUnsupported = 3,      // the firmware did not advertise the capability
  kNoRoom = 4,           // no free breakpoint slot / trainability queue entry
  kMalformed = 5,        // the payload could not be decoded
};
inline constexpr uint8_t kAckResultCount = 6;
const char* AckResultName(AckResult result);

struct AckMessage {
  uint16_t command_id = 0;
  MessageType command = MessageType::kPing;  // the type of the command being answered
  AckResult result = AckResult::kOk;
};

enum class RunStateKind : uint8_t { kRunning = 0, kPaused = 1 };
enum class PauseReason : uint8_t {
  kNone = 0,
  kCommand = 1,             // PAUSE
  kStepDone = 2,            // a STEP_* command reached its boundary
  kOpBreakpoint = 3,        // backward step about to run a watched op
  kNanInfBreakpoint = 4,    // a gradient held NaN or Inf
  kArenaBreakpoint = 5,     // current bytes exceeded the budget
  kGradientBreakpoint = 6,  // max |g| exceeded the threshold
};
inline constexpr uint8_t kPauseReasonCount = 7;
const char* PauseReasonName(PauseReason reason);

// What the board is doing apart from pausing: its training schedule's stage.
enum class BoardActivity : uint8_t {
  kUnknown = 0,   // an older board, which does not say
  kTraining = 1,  // working through its schedule
  kFinished = 2,  // the schedule is done; it answers commands and trains no more
  kWaiting = 3,   // not training yet: waiting for a desktop
  kHalted = 4,    // stopped by an error it cannot continue from (its LOG says which)
};
inline constexpr uint8_t kBoardActivityCount = 5;
const char* BoardActivityName(BoardActivity activity);  // "training", "finished", ...

// Sent whenever the board starts or stops waiting, so the desktop shows why it stopped.
struct RunStateMessage {
  RunStateKind state = RunStateKind::kRunning;
  PauseReason reason = PauseReason::kNone;
  uint32_t op_index = 0;        // op being stepped or hit (breakpoints, STEP_BACKWARD_OP)
  uint32_t optimizer_step = 0;  // the step in progress
  int32_t tensor = -1;          // tensor that tripped a gradient breakpoint
  float value = 0.0f;           // max |g| for a gradient breakpoint
  uint32_t bytes = 0;           // current bytes for an arena breakpoint
  // Numbers the board's run-state changes from 1 at boot. The board repeats its current state
  // with every HEARTBEAT, under the same number, so a desktop recovers a lost report and tells a
  // repeat from a new pause. 0: an older board that sends only changes and no number.
  uint32_t transition = 0;
  // Appended after `transition` (only with a transition number): training, finished, ...
  BoardActivity activity = BoardActivity::kUnknown;
};

enum class MemorySource : uint8_t {
  kMeasured = 0,   // the board measured itself: allocator high-water, painted stack, linker map
  kAccounted = 1,  // the sum of the buffers the board knows it allocated (a simulator)
};
inline constexpr uint8_t kMemorySourceCount = 2;

// The RAM the board really used, sent after greeting and whenever a figure grew (at most once a
// second). Heap, stack and static RAM add up to what the firmware needs; the categories say what
// the heap holds besides the planned arena, so a desktop can explain measured against planned.
struct DeviceMemoryMessage {
  uint32_t heap_peak_bytes = 0;   // highest heap use since boot
  uint32_t stack_peak_bytes = 0;  // deepest stack since boot (0: not measured)
  uint32_t static_bytes = 0;      // .data + .bss, the agent's TX ring among them on a firmware
  uint32_t ram_bytes = 0;         // RAM the firmware may use in all (0 = unknown)
  uint32_t predicted_heap_peak_bytes = 0;  // the plan: the arena the trainer allocates
  // What the heap holds besides that arena, as the board allocated it.
  uint32_t model_bytes = 0;  // the model's bytes and the trainer's copy of its constants
  uint32_t data_bytes = 0;   // the training samples and targets
  uint32_t agent_bytes = 0;  // the agent and its TX ring, when they live on the heap
  MemorySource source = MemorySource::kMeasured;
};

// What the firmware needs in all: heap peak + stack peak + static RAM (saturating).
uint32_t DeviceMemoryTotal(const DeviceMemoryMessage& message);

// PING, PAUSE, RESUME, STEP_BACKWARD_OP, STEP_SAMPLE, STEP_BATCH, REQUEST_MEMORY_PLAN and
// REQUEST_HELLO: the payload is only the command id, so one struct carries the type.
struct BasicCommand {
  MessageType type = MessageType::kPing;
  uint16_t command_id = 0;
};

enum class BreakpointKind : uint8_t {
  kOpIndex = 0,        // pause before the backward step of op `op_index`
  kNanInf = 1,         // pause when a gradient holds NaN or Inf
  kArenaAbove = 2,     // pause when current bytes exceed `budget_bytes`
  kGradientAbove = 3,  // pause when max |g| exceeds `threshold`
};
inline constexpr uint8_t kBreakpointKindCount = 4;
inline constexpr uint32_t kAllOps = 0xFFFFFFFFu;  // clearing kOpIndex with this clears every op

struct SetBreakpointCommand {
  uint16_t command_id = 0;
  BreakpointKind kind = BreakpointKind::kOpIndex;
  bool enable = true;  // false clears
  uint32_t op_index = 0;
  float threshold = 0.0f;
  uint32_t budget_bytes = 0;
};

enum class TrainabilityMode : uint8_t {
  kSetOp = 0,       // op `value` trains with `rank`
  kClearOp = 1,     // op `value` stops training (it still propagates gradients)
  kLastLayers = 2,  // exactly the last `value` ops train, all with `rank`
};
inline constexpr uint8_t kTrainabilityModeCount = 3;

struct SetTrainabilityCommand {
  uint16_t command_id = 0;
  TrainabilityMode mode = TrainabilityMode::kSetOp;
  TrainRank rank = TrainRank::kAll;
  uint32_t value = 0;
};

// Which of a tensor's values REQUEST_TENSOR asks for (the engine's TensorAspect, same values).
enum class TensorAspect : uint8_t { kValue = 0, kGradient = 1, kAdamM = 2, kAdamV = 3 };
inline constexpr uint8_t kTensorAspectCount = 4;

// REQUEST_TENSOR: the values of one tensor as the board holds it where it waits now (paused, or
// the next safe point while running). Answered by ACK, then TENSOR_HEADER and TENSOR_CHUNKs.
struct RequestTensorCommand {
  uint16_t command_id = 0;
  int32_t tensor = 0;
  TensorAspect aspect = TensorAspect::kValue;
};

enum class TensorReadResult : uint8_t {
  kOk = 0,
  kNotHeld = 1,      // not in the board's memory at this point of the step (the reason says why)
  kUnsupported = 2,  // not float32, or a rank above kMaxTensorRank
  kNoSuchTensor = 3,
};
inline constexpr uint8_t kTensorReadResultCount = 4;
const char* TensorReadResultName(TensorReadResult result);  // "ok", "not held", ...

inline constexpr size_t kMaxTensorRank = 6;
inline constexpr size_t kMaxTensorReasonBytes = 120;
// Values per TENSOR_CHUNK: 199 payload bytes, so a chunk fits the agent's frame buffer.
inline constexpr size_t kMaxTensorChunkValues = 48;
inline constexpr size_t kMaxTensorChunkPayloadBytes = 7 + 4 * kMaxTensorChunkValues;
inline constexpr size_t kMaxTensorHeaderPayloadBytes =
    9 + 4 * kMaxTensorRank + 4 + 1 + kMaxTensorReasonBytes;
// A header announcing more is refused by the desktop: 64 MiB of float32.
inline constexpr uint32_t kMaxTensorValues = 16u << 20;

struct TensorHeaderMessage {
  uint16_t command_id = 0;  // of the REQUEST_TENSOR answered
  int32_t tensor = 0;
  TensorAspect aspect = TensorAspect::kValue;
  TensorReadResult result = TensorReadResult::kOk;
  uint8_t rank = 0;
  int32_t dims[kMaxTensorRank] = {};
  uint32_t value_count = 0;  // 0 unless result is kOk; then TENSOR_CHUNKs carry them in order
  BoundedString<kMaxTensorReasonBytes> reason;  // why not, for any result but kOk
};

struct TensorChunkMessage {
  uint16_t command_id = 0;
  uint32_t offset = 0;  // index of values[0] in the tensor
  uint8_t count = 0;
  float values[kMaxTensorChunkValues] = {};
};

bool operator==(const HelloMessage& a, const HelloMessage& b);
bool operator==(const OpSummary& a, const OpSummary& b);
bool operator==(const ModelAnnounceMessage& a, const ModelAnnounceMessage& b);
bool operator==(const InternNameMessage& a, const InternNameMessage& b);
bool operator==(const LogMessage& a, const LogMessage& b);
bool operator==(const HeartbeatMessage& a, const HeartbeatMessage& b);
bool operator==(const AckMessage& a, const AckMessage& b);
bool operator==(const RunStateMessage& a, const RunStateMessage& b);
bool operator==(const DeviceMemoryMessage& a, const DeviceMemoryMessage& b);
bool operator==(const BasicCommand& a, const BasicCommand& b);
bool operator==(const SetBreakpointCommand& a, const SetBreakpointCommand& b);
bool operator==(const SetTrainabilityCommand& a, const SetTrainabilityCommand& b);
bool operator==(const RequestTensorCommand& a, const RequestTensorCommand& b);
bool operator==(const TensorHeaderMessage& a, const TensorHeaderMessage& b);
bool operator==(const TensorChunkMessage& a, const TensorChunkMessage& b);

// 64-bit FNV-1a: the model hash of MODEL_ANNOUNCE and trace headers. Cheap enough for a board
// to run once over its model at import.
constexpr uint64_t kFnv1a64Offset = 0xCBF29CE484222325ull;
inline uint64_t ModelHash(const uint8_t* data, size_t size, uint64_t hash = kFnv1a64Offset) {
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 0x100000001B3ull;
  return hash;
}

}  // namespace trainscope::wire
