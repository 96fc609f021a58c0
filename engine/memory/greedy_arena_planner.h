// SPDX-License-Identifier: Apache-2.0
//
// GreedyArenaPlanner: an offline arena planner. Every buffer is known before Plan(), so it
// places them one at a time in a chosen order, each at the best-fitting gap (or the lowest one)
// left by the already placed buffers whose lifetimes overlap it, and tries several orders:
// size, lifetime, area, start tick, and "pressure" (the live bytes at the worst tick the buffer
// spans). A bounded, deterministic local search then swaps neighbours of the best order while
// the arena is above the lower bound. The smallest arena wins; offsets are 16-byte aligned.
//
// Cost: O(m^2) per placement pass for m buffers (the placed buffers are kept sorted by offset,
// so each placement is one linear walk), for up to 10 greedy passes plus the search's passes;
// passes stop as soon as their arena can no longer be accepted, and none run once an arena
// equals the lower bound. 2400 buffers (a 300-operator train step) plan in a few milliseconds.
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

  // A placed buffer in the pass's offset-sorted list: walking it in order visits the gaps
  // bottom-up without sorting the conflicts of every buffer again.
  struct Slot {
    uint64_t offset;
    uint64_t end;
    uint32_t first_tick;
    uint32_t last_tick;
  };

  Status Add(uint64_t bytes, uint32_t first_tick, uint32_t last_tick, uint32_t* id);
  Status PlanAll();
  // Places the buffers in `order`; returns the arena size and fills `offsets` (by id). Stops as
  // soon as the arena exceeds `give_up_above` (the caller would reject the result anyway) and
  // then returns that larger size with `offsets` incomplete. `slots` is scratch, reused.
  uint64_t PlaceInOrder(const std::vector<uint32_t>& order, bool best_fit, uint64_t give_up_above,
                        std::vector<Slot>* slots, std::vector<uint64_t>* offsets) const;

  std::vector<Buffer> buffers_;
  std::vector<uint64_t> offsets_;
  uint64_t arena_ = 0;
  uint64_t lower_bound_ = 0;
  std::string strategy_;
  bool planned_ = false;
};

}  // namespace trainscope
