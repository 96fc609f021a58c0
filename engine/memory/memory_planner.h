// SPDX-License-Identifier: Apache-2.0
//
// MemoryPlanner: the one small interface every allocator model is fed through. Buffers are
// given as (bytes, first tick, last tick), live on both ends; Plan() then computes the result.
// HeapAccounting (one heap block per buffer) and the arena planners implement it, so the same
// timeline yields both numbers the user sees.
//
// ArenaPlanner adds what a static allocator needs: an offset per buffer inside one contiguous
// arena, the arena size and the lower bound no placement can beat (the most bytes live at any
// tick, each rounded up to the alignment).
//
//   GreedyArenaPlanner planner;
//   uint32_t a = 0, b = 0;
//   TS_RETURN_IF_ERROR(planner.AddBuffer(1024, 0, 3, &a));
//   TS_RETURN_IF_ERROR(planner.AddBuffer(512, 2, 5, &b));
//   TS_RETURN_IF_ERROR(planner.Plan());
//   uint64_t where = planner.offset(b);  // 16-byte aligned, never overlaps a while both live
//
// Adding a buffer after Plan() invalidates the plan until Plan() runs again.
#pragma once

#include <cstdint>

#include "engine/core/status.h"

namespace trainscope {

// Larger ticks or sizes are refused: ticks index per-tick tables, and sizes must stay far from
// overflow when offsets are added up.
inline constexpr uint32_t kMaxPlannerTicks = 1u << 24;
inline constexpr uint64_t kMaxPlannerBufferBytes = uint64_t{1} << 48;

class MemoryPlanner {
 public:
  virtual ~MemoryPlanner() = default;

  // kInvalidArgument when last_tick < first_tick or a tick or size exceeds the limits above.
  // `id` (may be null) receives the buffer's id: 0, 1, 2, ... in the order of the calls.
  virtual Status AddBuffer(uint64_t bytes, uint32_t first_tick, uint32_t last_tick,
                           uint32_t* id = nullptr) = 0;
  virtual Status Plan() = 0;
  virtual void Clear() = 0;
  virtual uint32_t buffer_count() const = 0;
  virtual bool planned() const = 0;
  // Heap: the peak of live bytes. Arena: the arena size.
  virtual uint64_t peak_bytes() const = 0;
};

class ArenaPlanner : public MemoryPlanner {
 public:
  static constexpr uint64_t kAlignment = 16;

  uint64_t peak_bytes() const override { return arena_bytes(); }
  virtual uint64_t offset(uint32_t id) const = 0;  // 0 for an unknown id or before Plan()
  virtual uint64_t arena_bytes() const = 0;
  virtual uint64_t lower_bound_bytes() const = 0;

  // Share of the arena that is never needed at the worst tick: 1 - lower bound / arena size.
  double fragmentation() const {
    const uint64_t arena = arena_bytes();
    return arena == 0 ? 0.0
                      : 1.0 - static_cast<double>(lower_bound_bytes()) / static_cast<double>(arena);
  }
};

// The argument checks of AddBuffer, shared by the implementations.
Status CheckPlannerBuffer(uint64_t bytes, uint32_t first_tick, uint32_t last_tick);

inline uint64_t AlignUp(uint64_t bytes, uint64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

}  // namespace trainscope
