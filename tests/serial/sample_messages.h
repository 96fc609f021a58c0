// SPDX-License-Identifier: Apache-2.0
//
// Test helpers for the serial tests: one filled-in value of every protocol message (every field
// away from its default, so a field the codec forgets shows up), and field-by-field equality for
// the event structs, which have no operator== of their own.
#pragma once

#include <cstring>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "engine/core/events.h"
#include "serial/protocol/message.h"
#include "serial/protocol/messages.h"

namespace trainscope::testing {

inline bool SameFloat(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

inline bool EventsEqual(const SampleEvent& a, const SampleEvent& b) {
  return a.epoch == b.epoch && a.optimizer_step == b.optimizer_step && a.sample == b.sample &&
         a.begin == b.begin;
}
inline bool EventsEqual(const OptimizerStepEvent& a, const OptimizerStepEvent& b) {
  return a.epoch == b.epoch && a.optimizer_step == b.optimizer_step && a.batch_size == b.batch_size;
}
inline bool EventsEqual(const ForwardOpEvent& a, const ForwardOpEvent& b) {
  return a.op_index == b.op_index && a.opcode == b.opcode && a.duration_ns == b.duration_ns;
}
inline bool EventsEqual(const BackwardStepEvent& a, const BackwardStepEvent& b) {
  return a.step == b.step && a.op_index == b.op_index && a.opcode == b.opcode &&
         a.trainable == b.trainable && a.rank == b.rank && a.is_last_layer == b.is_last_layer &&
         a.begin == b.begin && a.duration_ns == b.duration_ns;
}
inline bool EventsEqual(const MemoryEvent& a, const MemoryEvent& b) {
  return a.tick == b.tick && a.phase == b.phase && a.step == b.step && a.tensor == b.tensor &&
         a.category == b.category && a.bytes == b.bytes && a.offset == b.offset &&
         a.alloc == b.alloc;
}
inline bool EventsEqual(const MemorySummaryEvent& a, const MemorySummaryEvent& b) {
  return a.tick == b.tick && a.phase == b.phase && a.step == b.step &&
         a.current_bytes == b.current_bytes && a.peak_bytes == b.peak_bytes;
}
inline bool EventsEqual(const GradientStatsEvent& a, const GradientStatsEvent& b) {
  if (a.optimizer_step != b.optimizer_step || a.op_index != b.op_index || a.tensor != b.tensor ||
      !SameFloat(a.l2, b.l2) || !SameFloat(a.max_abs, b.max_abs) || !SameFloat(a.mean, b.mean) ||
      a.nan_count != b.nan_count || a.inf_count != b.inf_count) {
    return false;
  }
  return std::memcmp(a.histogram, b.histogram, sizeof a.histogram) == 0;
}
inline bool EventsEqual(const UpdateRatioEvent& a, const UpdateRatioEvent& b) {
  return a.optimizer_step == b.optimizer_step && a.tensor == b.tensor &&
         SameFloat(a.update_norm, b.update_norm) && SameFloat(a.weight_norm, b.weight_norm) &&
         SameFloat(a.ratio, b.ratio);
}
inline bool EventsEqual(const LossEvent& a, const LossEvent& b) {
  return a.optimizer_step == b.optimizer_step && a.sample == b.sample &&
         SameFloat(a.value, b.value);
}
inline bool EventsEqual(const MetricEvent& a, const MetricEvent& b) {
  return a.epoch == b.epoch && a.metric == b.metric && SameFloat(a.value, b.value);
}
template <class T>
bool EventsEqual(const T& a, const T& b) {
  return a == b;  // protocol structs have operator==
}

inline bool SameMessage(const wire::Message& a, const wire::Message& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& left) {
        using T = std::decay_t<decltype(left)>;
        return EventsEqual(left, std::get<T>(b));
      },
      a);
}

inline std::string Describe(const wire::Message& message) {
  const char* name = wire::MessageTypeName(wire::MessageTypeOf(message));
  return name ? name : "unknown";
}

// One value per message type, each field set to something other than its default.
inline std::vector<wire::Message> OneOfEachMessage() {
  using namespace wire;
  std::vector<Message> all;

  HelloMessage hello;
  hello.agent_name.Assign("nucleo-f767 trainer");
  hello.capabilities = capability::kAllDefined;
  hello.ram_bytes = 524288;
  hello.arena_bytes = 196608;
  all.push_back(hello);

  ModelAnnounceMessage announce;
  announce.model_hash = 0x0123456789ABCDEFull;
  announce.op_count = 70;
  announce.tensor_count = 131;
  announce.first_op = 6;
  announce.entry_count = 5;
  announce.ops[0] = {3, true, TrainRank::kUpperHalf};
  announce.ops[1] = {-5, false, TrainRank::kAll};
  announce.ops[2] = {9, true, TrainRank::kLowerHalf};
  announce.ops[3] = {25, false, TrainRank::kAll};
  announce.ops[4] = {9, true, TrainRank::kOnlyBias};
  announce.optimizer = 1;  // Adam
  announce.batch_size = 4;
  all.push_back(announce);

  InternNameMessage name;
  name.kind = NameKind::kOperator;
  name.id = 42;
  name.name.Assign("sequential/dense_1/MatMul");
  all.push_back(name);

  LogMessage log;
  log.level = LogLevel::kWarning;
  log.text.Assign("arena almost full: 190 KiB of 192 KiB");
  all.push_back(log);

  all.push_back(HeartbeatMessage{123456, 17, 3900, 2});
  all.push_back(AckMessage{0xBEEF, MessageType::kSetBreakpoint, AckResult::kNoRoom});
  all.push_back(RunStateMessage{RunStateKind::kPaused, PauseReason::kGradientBreakpoint, 7, 12, 33,
                                1234.5f, 40960});
  all.push_back(DeviceMemoryMessage{151000, 3100, 9800, 196608, 88000, 12400, 10080, 0,
                                    MemorySource::kMeasured});

  all.push_back(SampleEvent{3, 41, 5, false});
  all.push_back(OptimizerStepEvent{2, 40, 16});
  all.push_back(ForwardOpEvent{4, 9, 123456789012ull});
  all.push_back(BackwardStepEvent{2, 7, 3, true, TrainRank::kLowerHalf, true, false, 987654});
  all.push_back(MemoryEvent{901, Phase::kBackward, 3, 17, MemoryCategory::kWeightGradient,
                            0x1'0000'0040ull, 0x2'0000'0080ull, false});
  all.push_back(MemorySummaryEvent{902, Phase::kOptimizer, 0, 150000, 0x3'0000'0000ull});
  GradientStatsEvent stats;
  stats.optimizer_step = 40;
  stats.op_index = 7;
  stats.tensor = 12;
  stats.l2 = 0.75f;
  stats.max_abs = 0.5f;
  stats.mean = -0.0125f;
  stats.nan_count = 1;
  stats.inf_count = 2;
  for (int i = 0; i < kGradientHistogramBins; ++i) stats.histogram[i] = 1000u * i + 7u;
  all.push_back(stats);
  all.push_back(UpdateRatioEvent{40, 12, 0.001f, 2.5f, 0.0004f});
  all.push_back(LossEvent{40, 3, 0.6931f});
  all.push_back(MetricEvent{2, 3, 0.875f});

  for (MessageType type :
       {MessageType::kPing, MessageType::kPause, MessageType::kResume, MessageType::kStepBackwardOp,
        MessageType::kStepSample, MessageType::kStepBatch, MessageType::kRequestMemoryPlan,
        MessageType::kRequestHello}) {
    all.push_back(BasicCommand{type, static_cast<uint16_t>(0x100 + static_cast<int>(type))});
  }
  all.push_back(SetBreakpointCommand{77, BreakpointKind::kGradientAbove, false, 9, 3.5f, 65536});
  all.push_back(
      SetTrainabilityCommand{78, TrainabilityMode::kLastLayers, TrainRank::kUpperHalf, 3});
  all.push_back(RequestTensorCommand{79, 12, TensorAspect::kAdamV});
  TensorHeaderMessage header;
  header.command_id = 79;
  header.tensor = 12;
  header.aspect = TensorAspect::kAdamV;
  header.rank = static_cast<uint8_t>(kMaxTensorRank);  // the largest header
  for (size_t d = 0; d < kMaxTensorRank; ++d) header.dims[d] = 2;
  header.value_count = 64;
  std::string reason(kMaxTensorReasonBytes, 'r');
  header.reason.Assign(reason.c_str());
  all.push_back(header);
  TensorChunkMessage chunk;  // the largest chunk, NaN and Inf bit patterns included
  chunk.command_id = 79;
  chunk.offset = 48;
  chunk.count = static_cast<uint8_t>(kMaxTensorChunkValues);
  for (size_t i = 0; i < kMaxTensorChunkValues; ++i) chunk.values[i] = 0.5f * static_cast<float>(i);
  chunk.values[3] = std::numeric_limits<float>::quiet_NaN();
  chunk.values[4] = -std::numeric_limits<float>::infinity();
  all.push_back(chunk);
  return all;
}

}  // namespace trainscope::testing
