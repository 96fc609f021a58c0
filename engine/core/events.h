// SPDX-License-Identifier: Apache-2.0
//
// The training event vocabulary: everything TrainScope shows is a stream of these plain structs.
// Three sources produce exactly this stream: the embedded engine (through TrainingObserver), a
// board running the serial agent (decoded frames) and a recorded trace (replayed frames), so every
// view and report works the same on all three.
//
// Numbering: `step` in backward events is the backward step i of onert-micro's runBackward loop
// (0 = the last operator); `op_index` is the operator k = n-1-i in file order. `optimizer_step`
// counts optimizer updates from 1, like onert-micro's num_step.
#pragma once

#include <cstdint>

namespace trainscope {

// How much of an operator's parameters train (onert-micro's OpTrainableRankType, same codes).
enum class TrainRank : uint8_t {
  kAll = 0,        // ALL: weights and bias
  kOnlyBias = 1,   // ONLY_BIAS
  kUpperHalf = 2,  // UP_1_2_PART: rows [0, d0/2) of the weights, plus the bias
  kLowerHalf = 3,  // LOWER_1_2_PART: rows [d0/2, d0) of the weights, plus the bias
};
inline constexpr uint8_t kTrainRankCount = 4;
const char* TrainRankName(TrainRank rank);  // "ALL", "ONLY_BIAS", "UP_1_2_PART", ...

enum class Phase : uint8_t { kForward = 0, kBackward = 1, kOptimizer = 2 };
const char* PhaseName(Phase phase);

enum class MemoryCategory : uint8_t {
  kInput = 0,
  kActivation,
  kActivationKept,  // forward output or input saved for the backward pass
  kActivationGradient,
  kWeightGradient,  // accumulated over the batch until the optimizer step
  kOptimizerState,  // Adam m and v
  kLossGradient,
  kTemporary,
};
inline constexpr uint8_t kMemoryCategoryCount = 8;
const char* MemoryCategoryName(MemoryCategory category);

struct SampleEvent {
  uint32_t epoch = 0;
  uint32_t optimizer_step = 0;  // the step this sample contributes to
  uint32_t sample = 0;          // index within the batch
  bool begin = true;            // false: the sample's backward pass finished
};

struct OptimizerStepEvent {
  uint32_t epoch = 0;
  uint32_t optimizer_step = 0;
  uint32_t batch_size = 0;
};

struct ForwardOpEvent {
  uint32_t op_index = 0;
  int32_t opcode = 0;
  uint64_t duration_ns = 0;
};

struct BackwardStepEvent {
  uint32_t step = 0;      // i
  uint32_t op_index = 0;  // k = n-1-i
  int32_t opcode = 0;
  bool trainable = false;
  TrainRank rank = TrainRank::kAll;
  bool is_last_layer = false;  // the op computes no input gradient
  bool begin = true;           // false: the step finished
  uint64_t duration_ns = 0;    // set on the end event
};

struct MemoryEvent {
  uint32_t tick = 0;  // position in the train step's timeline (forward, backward, optimizer)
  Phase phase = Phase::kForward;
  uint32_t step = 0;  // forward op index, backward step i, or 0 for the optimizer
  int32_t tensor = -1;
  MemoryCategory category = MemoryCategory::kActivation;
  uint64_t bytes = 0;
  uint64_t offset = 0;  // arena offset of the planned allocator
  bool alloc = true;    // false: free
};

struct MemorySummaryEvent {
  uint32_t tick = 0;
  Phase phase = Phase::kForward;
  uint32_t step = 0;
  uint64_t current_bytes = 0;
  uint64_t peak_bytes = 0;
};

inline constexpr int kGradientHistogramBins = 16;
// Bin b of the histogram counts |g| in [10^(b-12), 10^(b-11)); bin 0 also takes smaller values
// (and exact zeros), bin 15 larger ones. NaN and Inf are counted separately.
int GradientHistogramBin(float magnitude);

struct GradientStatsEvent {
  uint32_t optimizer_step = 0;
  uint32_t op_index = 0;
  int32_t tensor = -1;
  float l2 = 0.0f;
  float max_abs = 0.0f;
  float mean = 0.0f;
  uint32_t nan_count = 0;
  uint32_t inf_count = 0;
  uint32_t histogram[kGradientHistogramBins] = {};
};

struct UpdateRatioEvent {
  uint32_t optimizer_step = 0;
  int32_t tensor = -1;
  float update_norm = 0.0f;  // ||dW|| applied by the optimizer
  float weight_norm = 0.0f;  // ||W|| before the update
  float ratio = 0.0f;        // update_norm / weight_norm (0 when the weights are all zero)
};

struct LossEvent {
  uint32_t optimizer_step = 0;
  uint32_t sample = 0;
  float value = 0.0f;
};

struct MetricEvent {
  uint32_t epoch = 0;
  uint8_t metric = 0;  // the engine's metric enum
  float value = 0.0f;
};

// One bit per TrainingObserver method, for TrainingObserver::wanted_events().
inline constexpr uint32_t kEventSample = 1u << 0;
inline constexpr uint32_t kEventOptimizerStep = 1u << 1;
inline constexpr uint32_t kEventForwardOp = 1u << 2;
inline constexpr uint32_t kEventBackwardStep = 1u << 3;
inline constexpr uint32_t kEventMemory = 1u << 4;
inline constexpr uint32_t kEventMemorySummary = 1u << 5;
inline constexpr uint32_t kEventGradientStats = 1u << 6;
inline constexpr uint32_t kEventUpdateRatio = 1u << 7;
inline constexpr uint32_t kEventLoss = 1u << 8;
inline constexpr uint32_t kEventMetric = 1u << 9;
inline constexpr uint32_t kAllEvents = (1u << 10) - 1;
// The per-op detail of a step: what TrainingObserver::StepDetail() chooses for a whole optimizer
// step. The rest (samples, losses, the optimizer step, metrics) is reported always.
inline constexpr uint32_t kDetailEvents = kEventForwardOp | kEventBackwardStep | kEventMemory |
                                          kEventMemorySummary | kEventGradientStats |
                                          kEventUpdateRatio;

// The engine calls these from its own thread. Every method defaults to doing nothing, so an
// observer overrides what it needs. With no observer attached the engine skips the calls and the
// work that only feeds them (timestamps, gradient statistics, update norms), so instrumentation
// costs nothing; an observer that leaves a bit out of wanted_events() likewise saves that event's
// work (the engine may then skip its calls, or not).
//
// Detail is chosen per optimizer step: a viewer that repaints 15 times a second needs the per-op
// detail of a few steps a second, not of the thousands a small model trains in that time, and its
// cost (gradient statistics over every weight, clock reads around every op) can be larger than
// the step itself. StepDetail() is asked once, before the step's first event; a step without
// detail still reports its samples, losses and the optimizer step, so a consumer sees every step
// and the detail of the ones it asked for (DetailBudget picks them by time). A step may also
// carry part of it: a breakpoint on gradients needs their statistics in every step, not the
// memory events and op times.
class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  // Read once when the observer is attached (Trainer::set_observer), so it must not change
  // while attached.
  virtual uint32_t wanted_events() const { return kAllEvents; }
  // Which of kDetailEvents optimizer step `optimizer_step` reports (of those wanted_events()
  // asks for): kDetailEvents for all of it (the default), 0 for none, or some.
  virtual uint32_t StepDetail(uint32_t /*optimizer_step*/) { return kDetailEvents; }
  virtual void OnSample(const SampleEvent&) {}
  virtual void OnOptimizerStep(const OptimizerStepEvent&) {}
  virtual void OnForwardOp(const ForwardOpEvent&) {}
  virtual void OnBackwardStep(const BackwardStepEvent&) {}
  virtual void OnMemory(const MemoryEvent&) {}
  virtual void OnMemorySummary(const MemorySummaryEvent&) {}
  virtual void OnGradientStats(const GradientStatsEvent&) {}
  virtual void OnUpdateRatio(const UpdateRatioEvent&) {}
  virtual void OnLoss(const LossEvent&) {}
  virtual void OnMetric(const MetricEvent&) {}
};

}  // namespace trainscope
