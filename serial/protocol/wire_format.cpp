// SPDX-License-Identifier: Apache-2.0
#include "serial/protocol/wire_format.h"

#include "serial/protocol/messages.h"

namespace trainscope::wire {
namespace {

struct TypeInfo {
  MessageType type;
  const char* name;
  uint16_t max_payload;  // must match the codecs; the round-trip tests check it
};

constexpr TypeInfo kTypes[] = {
    {MessageType::kHello, "HELLO", 51},
    {MessageType::kModelAnnounce, "MODEL_ANNOUNCE", 21 + 3 * 64 + 5},
    {MessageType::kInternName, "INTERN_NAME", 69},
    {MessageType::kLog, "LOG", 202},
    {MessageType::kHeartbeat, "HEARTBEAT", 16},
    {MessageType::kAck, "ACK", 4},
    {MessageType::kRunState, "RUN_STATE", 27},
    {MessageType::kDeviceMemory, "DEVICE_MEMORY", 33},
    {MessageType::kTensorHeader, "TENSOR_HEADER", kMaxTensorHeaderPayloadBytes},
    {MessageType::kTensorChunk, "TENSOR_CHUNK", kMaxTensorChunkPayloadBytes},
    {MessageType::kSample, "SAMPLE", 13},
    {MessageType::kOptimizerStep, "OPTIMIZER_STEP", 12},
    {MessageType::kForwardOp, "FORWARD_OP", 16},
    {MessageType::kBackwardStep, "BACKWARD_STEP", 22},
    {MessageType::kMemory, "MEMORY", 31},
    {MessageType::kMemorySummary, "MEMORY_SUMMARY", 25},
    {MessageType::kGradientStats, "GRADIENT_STATS", 96},
    {MessageType::kUpdateRatio, "UPDATE_RATIO", 20},
    {MessageType::kLoss, "LOSS", 12},
    {MessageType::kMetric, "METRIC", 9},
    {MessageType::kPing, "PING", 2},
    {MessageType::kPause, "PAUSE", 2},
    {MessageType::kResume, "RESUME", 2},
    {MessageType::kStepBackwardOp, "STEP_BACKWARD_OP", 2},
    {MessageType::kStepSample, "STEP_SAMPLE", 2},
    {MessageType::kStepBatch, "STEP_BATCH", 2},
    {MessageType::kSetBreakpoint, "SET_BREAKPOINT", 16},
    {MessageType::kSetTrainability, "SET_TRAINABILITY", 8},
    {MessageType::kRequestMemoryPlan, "REQUEST_MEMORY_PLAN", 2},
    {MessageType::kRequestHello, "REQUEST_HELLO", 2},
    {MessageType::kRequestTensor, "REQUEST_TENSOR", 7},
};

const TypeInfo* Find(uint8_t raw_type) {
  for (const TypeInfo& info : kTypes) {
    if (static_cast<uint8_t>(info.type) == raw_type) return &info;
  }
  return nullptr;
}

}  // namespace

const char* MessageTypeName(MessageType type) {
  const TypeInfo* info = Find(static_cast<uint8_t>(type));
  return info ? info->name : nullptr;
}

bool IsKnownMessageType(uint8_t raw_type) {
  return Find(raw_type) != nullptr;
}

size_t MaxPayloadSize(MessageType type) {
  const TypeInfo* info = Find(static_cast<uint8_t>(type));
  return info ? info->max_payload : 0;
}

}  // namespace trainscope::wire
