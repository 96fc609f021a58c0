// SPDX-License-Identifier: Apache-2.0
//
// MemoryTimeline: every buffer of one train step (or one inference) with its size, category and
// lifetime in ticks, derived by running onert-micro's plans (engine/plan/plans.h) against model
// storages the way OMTrainingRuntimeModule::trainSingleStep does (research §5.1, §9.1, §10):
//
//   per sample: graph inputs | forward op 0..n-1 | loss gradient | backward step 0..L-1
//               (plan allocs, kernel temporaries, plan frees on both storages) | the optimizer
//               takes the weight gradients | both storages are reset
//   then:       optimizer step (update, then the accumulated gradients are freed)
//
// A tick is one forward op, the loss gradient, one backward step or the optimizer step. A
// buffer is live on every tick from first_tick to last_tick inclusive: allocated before the
// first, freed after the last. With batch_size >= 2 two samples are modelled: sample 1 stands for
// every later sample, whose per-sample gradients coexist with the accumulated ones of sample 0.
// Adam m and v are persistent (live on every tick, no free): the timeline is a steady-state step.
//
// Buffer sizes are the tensors' own byte sizes (so quantized models plan too); weight gradients
// use GradientBufferBytes (halved for UP/LOWER ranks). Zero-byte tensors are skipped with a
// warning, since onert-micro refuses zero-size allocations.
//
//   MemoryTimeline timeline;
//   TimelineOptions options;
//   options.optimizer = OptimizerKind::kAdam;
//   TS_RETURN_IF_ERROR(BuildTrainingTimeline(graph.main(), selection, options, &timeline));
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/model/graph.h"
#include "engine/plan/plans.h"
#include "engine/plan/trainability.h"

namespace trainscope {

enum class TickKind : uint8_t { kForwardOp, kLossGradient, kBackwardStep, kOptimizerStep };
const char* TickKindName(TickKind kind);  // "forward", "loss", "backward", "optimizer"

struct Tick {
  TickKind kind = TickKind::kForwardOp;
  uint32_t sample = 0;    // 0, or 1 for "every later sample of the batch"
  uint32_t step = 0;      // forward: op index; backward: step i; loss and optimizer: 0
  int32_t op_index = -1;  // operator of a forward or backward tick, else -1
  // Event phase: the loss gradient counts as backward (it is backward step 0's input).
  Phase phase() const;
};

enum class BufferStorage : uint8_t { kForward, kBackward, kOptimizer, kKernel };

struct TimelineBuffer {
  int32_t tensor = -1;    // tensor index; -1 for kernel temporaries
  int32_t op_index = -1;  // temporaries: the operator whose kernel uses it
  BufferStorage storage = BufferStorage::kForward;  // where it was allocated
  MemoryCategory category = MemoryCategory::kActivation;
  uint32_t sample = 0;
  uint64_t bytes = 0;
  uint32_t first_tick = 0;
  uint32_t last_tick = 0;
  bool persistent = false;  // lives across train steps (Adam m and v)
};

// Bytes of the backward-kernel temporaries of operator `op_index` (0 = none).
using TemporaryBytesFn = uint64_t (*)(const Subgraph& subgraph, uint32_t op_index,
                                      const OpTrainability& trainability);

// onert-micro's backward temporaries: SOFTMAX's Jacobian row (output elements x 4 bytes) when it
// computes an input gradient. GRU's gate buffers are not modelled.
uint64_t OnertBackwardTemporaryBytes(const Subgraph& subgraph, uint32_t op_index,
                                     const OpTrainability& trainability);

struct TimelineOptions {
  OptimizerKind optimizer = OptimizerKind::kSgd;
  uint32_t batch_size = 1;  // samples per optimizer step; must be >= 1
  bool keep_input = false;
  TemporaryBytesFn backward_temporary_bytes = nullptr;  // nullptr: no temporaries
};

struct MemoryTimeline {
  bool training = false;
  uint32_t modelled_samples = 0;
  std::vector<Tick> ticks;
  std::vector<TimelineBuffer> buffers;  // in allocation order
  std::vector<std::string> warnings;

  // Index into `buffers` of the buffer holding `tensor` in `storage` for `sample`, or -1.
  // Kernel temporaries are found by their operator index instead of a tensor.
  int32_t Find(BufferStorage storage, int32_t tensor, uint32_t sample = 0) const;
};

Status BuildTrainingTimeline(const Subgraph& subgraph, const BackwardSelection& selection,
                             const TimelineOptions& options, MemoryTimeline* timeline);
// Forward ticks only, with the inference plan (optimizer and temporaries are ignored).
Status BuildInferenceTimeline(const Subgraph& subgraph, const TimelineOptions& options,
                              MemoryTimeline* timeline);

}  // namespace trainscope
