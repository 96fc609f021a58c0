// SPDX-License-Identifier: Apache-2.0
//
// OccupancyTree: the arena offsets taken over time during one placement pass of an offline
// planner, answering "where does a buffer of this size and lifetime go" without walking every
// buffer placed so far.
//
// A buffer placed at [begin, end) with lifetime [first, last] is stored in a segment tree over
// ticks: in the `own` offsets of the O(log T) nodes that tile its lifetime, and in the `below`
// offsets of those nodes and of every node above them. Each node keeps offsets as merged, sorted
// intervals. The buffers whose lifetime meets [first, last] are exactly those stored at a node
// whose range meets it: `below` of the nodes tiling [first, last] plus `own` of the nodes above
// them. The gaps between the union of those offsets are what a walk over the overlapping
// buffers, sorted by offset, would see; FindGap() visits them bottom-up and picks one the way
// GreedyArenaPlanner's walk did (first fit: the lowest gap that holds the buffer; best fit: the
// smallest such gap, the lowest among equals; neither: the top of the union).
//
// Cost: O(log T) interval insertions per placement, and per query O(log T) sets times the gaps
// visited, which stay few in a well-packed arena.
//
//   OccupancyTree tree;
//   tree.Reset(ticks);
//   const uint64_t offset = tree.FindGap(first, last, size, /*best_fit=*/true);
//   tree.Add(first, last, offset, offset + size);
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainscope {

class OccupancyTree {
 public:
  // Empties the tree for lifetimes within [0, ticks); keeps the allocations of earlier passes.
  void Reset(uint32_t ticks);

  // Takes [begin, end) on ticks first..last (first <= last < ticks, begin < end).
  void Add(uint32_t first, uint32_t last, uint64_t begin, uint64_t end);

  // The offset for `size` bytes (> 0) on ticks first..last, as described above.
  uint64_t FindGap(uint32_t first, uint32_t last, uint64_t size, bool best_fit);

 private:
  struct Interval {
    uint64_t begin;
    uint64_t end;
  };
  using Intervals = std::vector<Interval>;

  static void Insert(Intervals* set, uint64_t begin, uint64_t end);
  void AddAt(uint32_t node, uint32_t lo, uint32_t hi, uint32_t first, uint32_t last, uint64_t begin,
             uint64_t end);
  void CollectAt(uint32_t node, uint32_t lo, uint32_t hi, uint32_t first, uint32_t last);
  void Touch(uint32_t node);

  uint32_t leaves_ = 0;  // a power of two >= ticks
  std::vector<Intervals> own_;
  std::vector<Intervals> below_;
  std::vector<uint32_t> touched_;  // nodes holding something, emptied by Reset()
  std::vector<uint8_t> is_touched_;
  // Scratch of FindGap: the sets that meet the query and a position in each.
  std::vector<const Intervals*> sets_;
  std::vector<size_t> positions_;
};

}  // namespace trainscope
