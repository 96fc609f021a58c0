// SPDX-License-Identifier: Apache-2.0
//
// SyntheticStream: generates a plausible training event stream for any Graph without running a
// model, one unit at a time (sample begin, one forward op, the loss, one backward step, sample
// end, the optimizer step). It follows onert-micro's shape of a train step: forward over every
// op, backward from the last op through the trained range (ResolveTrainability), activations kept
// for backward, gradient buffers allocated per backward step and freed after it, weight gradients
// handed to the optimizer, gradient statistics and update ratios per optimizer step. The numbers
// (loss, gradient norms) are made up but deterministic for a given seed.
//
// Used by SyntheticEventSource (demo, screenshots) and by tests that need a realistic stream.
//
//   SyntheticStream stream(graph.main(), SyntheticOptions{});
//   EventBatch batch;
//   while (stream.next(&batch) != SyntheticStream::Unit::kOptimizerStep) {}
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "ui/session/event_batch.h"
#include "ui/session/trainability.h"

namespace trainscope {

struct SyntheticOptions {
  uint32_t batch_size = 4;
  uint32_t samples_per_epoch = 32;
  uint64_t seed = 1;
  float learning_rate = 0.01f;
  // Optimizer step whose gradients contain NaN (0: never), to show how NaN/Inf look.
  uint32_t nan_at_optimizer_step = 0;
};

class SyntheticStream {
 public:
  enum class Unit {
    kSampleBegin,
    kForwardOp,
    kLoss,
    kBackwardStep,  // one backward step, begin and end
    kSampleEnd,
    kOptimizerStep,
    kEpochEnd,
  };

  SyntheticStream(const Subgraph& subgraph, const SyntheticOptions& options);

  // Appends the events of the next unit to `out` and says which unit it was.
  Unit next(EventBatch* out);

  // Takes effect at the next optimizer-step boundary (immediately before the first sample).
  void setTrainability(const TrainabilityConfig& config);
  const TrainabilityConfig& appliedTrainability() const { return applied_; }
  const std::vector<OpTrainability>& trainability() const { return resolved_; }

  uint32_t optimizerStep() const { return optimizer_step_; }  // the step being accumulated
  uint32_t epoch() const { return epoch_; }
  uint64_t samplesDone() const { return samples_done_; }

 private:
  enum class Next { kSampleBegin, kForward, kLoss, kBackward, kSampleEnd, kOptimizer, kEpochEnd };
  struct Live {
    int32_t tensor;
    MemoryCategory category;
    uint64_t offset;
    uint64_t bytes;
  };

  void applyTrainability();
  void emitSampleBegin(EventBatch* out);
  void emitForward(EventBatch* out);
  void emitLoss(EventBatch* out);
  void emitBackward(EventBatch* out);
  void emitSampleEnd(EventBatch* out);
  void emitOptimizer(EventBatch* out);
  void emitEpochEnd(EventBatch* out);

  void alloc(EventBatch* out, Phase phase, uint32_t step, int32_t tensor, MemoryCategory category,
             uint64_t bytes);
  void release(EventBatch* out, Phase phase, uint32_t step, int32_t tensor,
               MemoryCategory category);
  void summarize(EventBatch* out, Phase phase, uint32_t step);
  uint64_t placeInArena(uint64_t bytes) const;
  bool isLive(int32_t tensor, MemoryCategory category) const;
  uint64_t tensorBytes(int32_t tensor) const;
  bool isConstant(int32_t tensor) const;
  float noise(float spread);

  Subgraph subgraph_;
  SyntheticOptions options_;
  TrainabilityConfig applied_;
  TrainabilityConfig pending_;
  bool has_pending_ = false;
  std::vector<OpTrainability> resolved_;
  uint32_t backward_layers_ = 0;
  std::vector<int32_t> last_forward_use_;  // per tensor
  std::vector<bool> keep_for_backward_;    // per tensor
  std::vector<bool> graph_output_;         // per tensor

  std::mt19937_64 random_;
  Next next_ = Next::kSampleBegin;
  uint32_t forward_op_ = 0;
  uint32_t backward_step_ = 0;
  uint32_t tick_ = 0;
  uint64_t peak_ = 0;
  std::vector<Live> live_;
  uint32_t epoch_ = 1;
  uint32_t optimizer_step_ = 1;
  uint32_t sample_in_batch_ = 0;
  uint32_t sample_in_epoch_ = 0;
  uint64_t samples_done_ = 0;
  double epoch_loss_sum_ = 0.0;
};

}  // namespace trainscope
