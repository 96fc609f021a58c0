// SPDX-License-Identifier: Apache-2.0
//
// TimelineArena: places every buffer of a MemoryTimeline in one contiguous arena with the offline
// planner, and binds buffers to the kernel views (forward values, gradients, kernel scratch) as
// the ticks of the timeline allocate and free them. The executors (Interpreter, Trainer) drive it
// tick by tick, so the engine really runs at the planned offsets.
//
// The arena is owned here (a host executor); its size is arena_bytes(), known before anything
// runs, which is the number a board build would reserve statically.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "engine/memory/memory_timeline.h"

namespace trainscope {

// Where kernels find tensors: indexed by tensor (and by op for scratch).
struct KernelViews {
  std::vector<void*> values;      // forward values; constants are bound once by the executor
  std::vector<float*> gradients;  // dL/dT
  std::vector<float*> scratch;    // backward temporaries by op index
};

class TimelineArena {
 public:
  // Plans `timeline` (kept by reference: it must outlive this object and not change).
  Status Plan(const MemoryTimeline& timeline);

  uint64_t arena_bytes() const { return arena_bytes_; }
  uint64_t lower_bound_bytes() const { return lower_bound_bytes_; }
  uint8_t* data(uint32_t buffer) const { return buffer_data_[buffer]; }
  uint64_t offset(uint32_t buffer) const {
    return static_cast<uint64_t>(buffer_data_[buffer] - base_);
  }

  // Binds (allocate: zero-fills everything but forward values, aliases and SkipZeroFill's
  // buffers) or unbinds the buffers whose lifetime starts (allocate) or ends at `tick`.
  // Persistent buffers are never bound or freed, yet reported. `observer` (may be null) receives a
  // MemoryEvent per buffer of the tick, after all of them are bound.
  void Bind(uint32_t tick, bool allocate, KernelViews* views, TrainingObserver* observer) const;
  // From now on `buffer` binds to `onto`'s bytes, not zero-filled: it keeps its planned place and
  // size (what a board holds) while the executor accumulates straight into `onto`. Both indices
  // must be valid after Plan(); `onto` must be live whenever `buffer` is.
  void Alias(uint32_t buffer, uint32_t onto);
  // From now on `buffer` is bound without zero-filling: its kernel writes it whole (a parameter
  // gradient in a batch's first sample, BackwardIo::parameter_gradients_unset).
  void SkipZeroFill(uint32_t buffer);

 private:
  MemoryEvent MakeMemoryEvent(uint32_t tick, uint32_t buffer, bool allocate) const;

  const MemoryTimeline* timeline_ = nullptr;
  std::vector<uint8_t> storage_;
  uint8_t* base_ = nullptr;
  std::vector<uint8_t*> buffer_data_;
  std::vector<int32_t> alias_of_;   // by buffer: the buffer whose bytes it binds to, or -1
  std::vector<uint8_t> zero_fill_;  // by buffer: 1 to zero-fill its bytes when it is bound
  std::vector<std::vector<uint32_t>> alloc_at_;
  std::vector<std::vector<uint32_t>> free_at_;
  // The MemoryEvents of alloc_at_ and free_at_, built once by Plan(): binding only forwards them.
  std::vector<std::vector<MemoryEvent>> alloc_events_;
  std::vector<std::vector<MemoryEvent>> free_events_;
  uint64_t arena_bytes_ = 0;
  uint64_t lower_bound_bytes_ = 0;
};

}  // namespace trainscope
