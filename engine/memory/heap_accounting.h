// SPDX-License-Identifier: Apache-2.0
//
// HeapAccounting: one heap block per buffer, counted the way a *correct* OM_MEMORY_ESTIMATE
// build of onert-micro would (research §10.5): every allocation adds its size, every free
// subtracts exactly the same size (no drift from un-sized frees), the peak is the running
// maximum. Allocations of a tick happen before its frees, so the bytes live during a tick are
// what the counter shows at its highest point within that tick.
//
//   HeapAccounting heap;
//   TS_RETURN_IF_ERROR(AddTimeline(timeline, &heap));
//   TS_RETURN_IF_ERROR(heap.Plan());
//   printf("peak %llu bytes at tick %u\n", heap.peak_bytes(), heap.peak_tick());
#pragma once

#include <cstdint>
#include <vector>

#include "engine/memory/memory_planner.h"

namespace trainscope {

// Overrides are defined in the class for the same reason as in GreedyArenaPlanner: no key
// function, so RTTI-enabled users get the type info the -fno-rtti library does not emit.
class HeapAccounting final : public MemoryPlanner {
 public:
  Status AddBuffer(uint64_t bytes, uint32_t first_tick, uint32_t last_tick,
                   uint32_t* id = nullptr) override {
    return Add(bytes, first_tick, last_tick, id);
  }
  Status Plan() override { return PlanAll(); }
  void Clear() override { *this = HeapAccounting(); }
  uint32_t buffer_count() const override { return static_cast<uint32_t>(buffers_.size()); }
  bool planned() const override { return planned_; }
  uint64_t peak_bytes() const override { return peak_; }

  uint32_t peak_tick() const { return peak_tick_; }  // first tick reaching the peak
  uint32_t tick_count() const {                      // last tick used + 1
    return static_cast<uint32_t>(live_.size());
  }
  uint64_t current_bytes(uint32_t tick) const;     // live during `tick`; 0 past the end
  uint64_t peak_bytes_until(uint32_t tick) const;  // running peak up to and including `tick`

 private:
  Status Add(uint64_t bytes, uint32_t first_tick, uint32_t last_tick, uint32_t* id);
  Status PlanAll();

  struct Buffer {
    uint64_t bytes;
    uint32_t first_tick;
    uint32_t last_tick;
  };
  std::vector<Buffer> buffers_;
  std::vector<uint64_t> live_;
  std::vector<uint64_t> running_peak_;
  uint64_t peak_ = 0;
  uint32_t peak_tick_ = 0;
  bool planned_ = false;
};

// Bytes live per tick for buffers of any aligned size: the lower bound of every arena.
// `alignment` 1 gives the heap numbers.
std::vector<uint64_t> LiveBytesPerTick(const std::vector<uint64_t>& bytes,
                                       const std::vector<uint32_t>& first_ticks,
                                       const std::vector<uint32_t>& last_ticks, uint64_t alignment);

}  // namespace trainscope
