// SPDX-License-Identifier: Apache-2.0
//
// GreedyArenaPlanner: an offline arena planner. Every buffer is known before Plan(), so it
// places them one at a time in a chosen order, each at the best-fitting gap (or the lowest one)
// left by the already placed buffers whose lifetimes overlap it, and tries several orders:
// size, lifetime, area, start tick, and "pressure" (the live bytes at the worst tick the buffer
// spans). A bounded, deterministic local search then swaps neighbours of the best order while
// the arena is above the lower bound. The smallest arena wins; offsets are 16-byte aligned.
//
// Cost: in a plan of up to kWalkedBuffers buffers a placement walks the placed buffers in offset
// order, O(m) each; in a larger one it asks an OccupancyTree (occupancy_tree.h) for its gap,
// O(log T) interval sets for T ticks, so a pass is about O(m log m log T) where the arena packs
// well. Both find the same gaps. That is per pass, for up to 10 greedy passes plus the search's;
// passes stop as soon as their arena can no longer be accepted, and none run once an arena equals
// the lower bound. 32000 buffers (a 4000-operator train step) plan in a few tens of milliseconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/memory/memory_planner.h"
#include "engine/memory/occupancy_tree.h"

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

  // Up to this many buffers the walk costs less than keeping the tree.
  static constexpr uint32_t kWalkedBuffers = 512;

  // A placed buffer in the offset-sorted list that small plans walk.
  struct Slot {
    uint64_t offset;
    uint64_t end;
    uint32_t first_tick;
    uint32_t last_tick;
  };

  // What a placement pass has taken so far: the walked list, or the tree of a large plan. The
  // tree spans only the ticks where some lifetime starts or ends, renumbered in order (which
  // keeps every overlap), so its size follows the buffers, not the last tick.
  struct Taken {
    bool use_tree = false;
    std::vector<Slot> slots;
    OccupancyTree tree;
    uint32_t tree_ticks = 0;
    std::vector<uint32_t> first;  // by buffer id, renumbered
    std::vector<uint32_t> last;
  };

  Status Add(uint64_t bytes, uint32_t first_tick, uint32_t last_tick, uint32_t* id);
  Status PlanAll();
  // Places the buffers in `order`; returns the arena size and fills `offsets` (by id). Stops as
  // soon as the arena exceeds `give_up_above` (the caller would reject the result anyway) and
  // then returns that larger size with `offsets` incomplete. `taken` is scratch, reused.
  uint64_t PlaceInOrder(const std::vector<uint32_t>& order, bool best_fit, uint64_t give_up_above,
                        Taken* taken, std::vector<uint64_t>* offsets) const;
  // The gap the walk over `slots` finds for `buffer`, as OccupancyTree::FindGap() describes.
  static uint64_t WalkForGap(const std::vector<Slot>& slots, const Buffer& buffer, bool best_fit);

  std::vector<Buffer> buffers_;
  std::vector<uint64_t> offsets_;
  uint64_t arena_ = 0;
  uint64_t lower_bound_ = 0;
  std::string strategy_;
  bool planned_ = false;
};

}  // namespace trainscope
