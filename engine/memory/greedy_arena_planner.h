// SPDX-License-Identifier: Apache-2.0
//
// GreedyArenaPlanner: an offline arena planner. Every buffer is known before Plan(), so it
// places them one at a time in a chosen order, each at the best-fitting gap (or the lowest one)
// left by the already placed buffers whose lifetimes overlap it, and tries several orders:
// size, lifetime, area, start tick, and "pressure" (the live bytes at the worst tick the buffer
// spans). A bounded, deterministic local search then swaps neighbours of the best order while
// the arena is above the lower bound. The smallest arena wins; offsets are 16-byte aligned.
//
// Cost: O(strategies x m^2 log m) for m buffers; a few hundred buffers plan in milliseconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/memory/memory_planner.h"

namespace trainscope {

// Every override is defined in the class: with no out-of-line virtual function there is no key
// function, so code built with RTTI (UBSan's vptr checks) emits the type info that the
// -fno-rtti engine library cannot provide.
class GreedyArenaPlanner final : public ArenaPlanner {
 public:
  Status AddBuffer(uint64_t bytes, uint32_t first_tick, uint32_t last_tick,
                   uint32_t* id = nullptr) override {
    return Add(bytes, first_tick, last_tick, id);
  }
  Status Plan() override { return PlanAll(); }
  void Clear() override { *this = GreedyArenaPlanner(); }
  uint32_t buffer_count() const override { return static_cast<uint32_t>(buffers_.size()); }
  bool planned() const override { return planned_; }

  uint64_t offset(uint32_t id) const override {
    return planned_ && id < offsets_.size() ? offsets_[id] : 0;
  }
  uint64_t arena_bytes() const override { return arena_; }
  uint64_t lower_bound_bytes() const override { return lower_bound_; }

  // Which order produced the plan, e.g. "size/best-fit" or "pressure/first-fit+search".
  const std::string& strategy() const { return strategy_; }

 private:
  struct Buffer {
    uint64_t size;  // aligned
    uint32_t first_tick;
    uint32_t last_tick;
  };

  Status Add(uint64_t bytes, uint32_t first_tick, uint32_t last_tick, uint32_t* id);
  Status PlanAll();
  // Places the buffers in `order`; returns the arena size and fills `offsets` (by id).
  uint64_t PlaceInOrder(const std::vector<uint32_t>& order, bool best_fit,
                        std::vector<uint64_t>* offsets) const;

  std::vector<Buffer> buffers_;
  std::vector<uint64_t> offsets_;
  uint64_t arena_ = 0;
  uint64_t lower_bound_ = 0;
  std::string strategy_;
  bool planned_ = false;
};

}  // namespace trainscope
