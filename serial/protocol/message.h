// SPDX-License-Identifier: Apache-2.0
//
// Message: every message of the protocol as one std::variant value, for host code that wants a
// single type to store, compare or forward (tests, trace tools, the session layer). The board
// agent does not use this header; it encodes and decodes the concrete structs directly.
//
// The variant holds only fixed-size structs, so it allocates nothing either; it is about as
// large as its biggest member (MODEL_ANNOUNCE, ~300 bytes).
//
//   wire::Message message;
//   if (wire::DecodeMessage(frame, &message) == wire::DecodeStatus::kOk &&
//       std::holds_alternative<LossEvent>(message)) { ... }
#pragma once

#include <cstddef>
#include <cstdint>
#include <variant>

#include "engine/core/events.h"
#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/messages.h"
#include "serial/protocol/stream_decoder.h"

namespace trainscope::wire {

using Message =
    std::variant<HelloMessage, ModelAnnounceMessage, InternNameMessage, LogMessage,
                 HeartbeatMessage, AckMessage, RunStateMessage, DeviceMemoryMessage, SampleEvent,
                 OptimizerStepEvent, ForwardOpEvent, BackwardStepEvent, MemoryEvent,
                 MemorySummaryEvent, GradientStatsEvent, UpdateRatioEvent, LossEvent, MetricEvent,
                 BasicCommand, SetBreakpointCommand, SetTrainabilityCommand, RequestTensorCommand,
                 TensorHeaderMessage, TensorChunkMessage>;

MessageType MessageTypeOf(const Message& message);

// Decodes a frame's payload by its type. On failure `*out` is unspecified.
DecodeStatus DecodeMessage(const FrameView& frame, Message* out);

// Encodes with the type's default flags; returns bytes written or 0 when they do not fit.
size_t EncodeMessage(const Message& message, FrameEncoder* encoder, uint8_t* out, size_t capacity);

}  // namespace trainscope::wire
