// SPDX-License-Identifier: Apache-2.0
#include "engine/memory/greedy_arena_planner.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include "engine/memory/heap_accounting.h"

namespace trainscope {
namespace {

constexpr uint32_t kSearchIterations = 256;

// Small deterministic generator: plans must not change from run to run.
class XorShift {
 public:
  uint32_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return static_cast<uint32_t>(state_ >> 32);
  }
  uint32_t Below(uint32_t bound) { return bound == 0 ? 0 : Next() % bound; }

 private:
  uint64_t state_ = 0x9e3779b97f4a7c15ull;
};

// Maxima of ranges of `values` in constant time: level L holds the maximum of every run of 2^L.
class RangeMax {
 public:
  explicit RangeMax(const std::vector<uint64_t>& values) {
    levels_.push_back(values);
    for (size_t width = 1; 2 * width <= values.size(); width *= 2) {
      const std::vector<uint64_t>& previous = levels_.back();
      std::vector<uint64_t> next(previous.size() - width);
      for (size_t i = 0; i < next.size(); ++i) next[i] = std::max(previous[i], previous[i + width]);
      levels_.push_back(std::move(next));
    }
  }

  // The maximum of values[first..last], first <= last < values.size().
  uint64_t Max(uint32_t first, uint32_t last) const {
    uint32_t level = 0;
    while ((2u << level) <= last - first + 1) ++level;
    return std::max(levels_[level][first], levels_[level][last + 1 - (1u << level)]);
  }

 private:
  std::vector<std::vector<uint64_t>> levels_;
};

}  // namespace

Status GreedyArenaPlanner::Add(uint64_t bytes, uint32_t first_tick, uint32_t last_tick,
                               uint32_t* id) {
  TS_RETURN_IF_ERROR(CheckPlannerBuffer(bytes, first_tick, last_tick));
  if (id != nullptr) *id = static_cast<uint32_t>(buffers_.size());
  buffers_.push_back(Buffer{AlignUp(bytes, kAlignment), first_tick, last_tick});
  planned_ = false;
  return Status::Ok();
}

uint64_t GreedyArenaPlanner::WalkForGap(const std::vector<Slot>& slots, const Buffer& buffer,
                                        bool best_fit) {
  // Walk the placed buffers bottom-up, skipping those that never meet this one. Slots with equal
  // offsets may come in any order: after the first, the cursor is past their offset, so they only
  // move it to the highest end, which does not depend on the order.
  uint64_t cursor = 0;
  uint64_t chosen = 0;
  uint64_t chosen_gap = 0;
  bool found = false;
  for (const Slot& slot : slots) {
    if (slot.first_tick > buffer.last_tick || buffer.first_tick > slot.last_tick) continue;
    if (slot.offset >= cursor) {
      const uint64_t gap = slot.offset - cursor;
      if (gap >= buffer.size && (!found || (best_fit && gap < chosen_gap))) {
        chosen = cursor;
        chosen_gap = gap;
        found = true;
        // First fit takes the lowest gap; best fit cannot beat an exact fit (ties keep the
        // lower gap).
        if (!best_fit || gap == buffer.size) break;
      }
    }
    cursor = std::max(cursor, slot.end);
  }
  return found ? chosen : cursor;
}

uint64_t GreedyArenaPlanner::PlaceInOrder(const std::vector<uint32_t>& order, bool best_fit,
                                          uint64_t give_up_above, Taken* taken,
                                          std::vector<uint64_t>* offsets) const {
  offsets->assign(buffers_.size(), 0);
  if (taken->use_tree) {
    taken->tree.Reset(taken->tree_ticks);
  } else {
    taken->slots.clear();
  }
  uint64_t arena = 0;
  for (uint32_t id : order) {
    const Buffer& buffer = buffers_[id];
    if (buffer.size == 0) continue;
    const uint64_t chosen = taken->use_tree ? taken->tree.FindGap(taken->first[id], taken->last[id],
                                                                  buffer.size, best_fit)
                                            : WalkForGap(taken->slots, buffer, best_fit);
    (*offsets)[id] = chosen;
    arena = std::max(arena, chosen + buffer.size);
    if (arena > give_up_above) return arena;
    if (taken->use_tree) {
      taken->tree.Add(taken->first[id], taken->last[id], chosen, chosen + buffer.size);
      continue;
    }
    const auto position =
        std::upper_bound(taken->slots.begin(), taken->slots.end(), chosen,
                         [](uint64_t offset, const Slot& slot) { return offset < slot.offset; });
    taken->slots.insert(position,
                        Slot{chosen, chosen + buffer.size, buffer.first_tick, buffer.last_tick});
  }
  return arena;
}

Status GreedyArenaPlanner::PlanAll() {
  const uint32_t m = static_cast<uint32_t>(buffers_.size());
  std::vector<uint64_t> sizes;
  std::vector<uint32_t> first, last;
  for (const Buffer& b : buffers_) {
    sizes.push_back(b.size);
    first.push_back(b.first_tick);
    last.push_back(b.last_tick);
  }
  const std::vector<uint64_t> live = LiveBytesPerTick(sizes, first, last, 1);
  lower_bound_ = live.empty() ? 0 : *std::max_element(live.begin(), live.end());

  // Pressure: the most bytes live on any tick of the buffer's lifetime.
  std::vector<uint64_t> pressure(m, 0);
  if (m > 0) {
    const RangeMax live_max(live);
    for (uint32_t i = 0; i < m; ++i) {
      pressure[i] = live_max.Max(buffers_[i].first_tick, buffers_[i].last_tick);
    }
  }
  auto length = [&](uint32_t i) {
    return static_cast<uint64_t>(buffers_[i].last_tick - buffers_[i].first_tick) + 1;
  };
  using Less = std::function<bool(uint32_t, uint32_t)>;
  const std::pair<const char*, Less> orderings[] = {
      {"size",
       [&](uint32_t a, uint32_t b) {
         return std::make_tuple(buffers_[b].size, buffers_[a].first_tick, a) <
                std::make_tuple(buffers_[a].size, buffers_[b].first_tick, b);
       }},
      {"pressure",
       [&](uint32_t a, uint32_t b) {
         return std::make_tuple(pressure[b], buffers_[b].size, a) <
                std::make_tuple(pressure[a], buffers_[a].size, b);
       }},
      {"area",
       [&](uint32_t a, uint32_t b) {
         return std::make_tuple(buffers_[b].size * length(b), a) <
                std::make_tuple(buffers_[a].size * length(a), b);
       }},
      {"lifetime",
       [&](uint32_t a, uint32_t b) {
         return std::make_tuple(length(b), buffers_[b].size, a) <
                std::make_tuple(length(a), buffers_[a].size, b);
       }},
      {"start",
       [&](uint32_t a, uint32_t b) {
         return std::make_tuple(buffers_[a].first_tick, buffers_[b].size, a) <
                std::make_tuple(buffers_[b].first_tick, buffers_[a].size, b);
       }},
  };

  std::vector<uint32_t> identity(m);
  for (uint32_t i = 0; i < m; ++i) identity[i] = i;
  std::vector<uint32_t> best_order;
  bool best_fit_mode = true;
  uint64_t best = 0;
  std::vector<uint64_t> offsets, best_offsets;
  Taken taken;
  taken.use_tree = m > kWalkedBuffers;
  if (taken.use_tree) {
    std::vector<uint32_t> ends;
    ends.reserve(2 * static_cast<size_t>(m));
    for (const Buffer& b : buffers_) {
      ends.push_back(b.first_tick);
      ends.push_back(b.last_tick);
    }
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    auto renumbered = [&ends](uint32_t tick) {
      return static_cast<uint32_t>(std::lower_bound(ends.begin(), ends.end(), tick) - ends.begin());
    };
    taken.tree_ticks = static_cast<uint32_t>(ends.size());
    for (const Buffer& b : buffers_) {
      taken.first.push_back(renumbered(b.first_tick));
      taken.last.push_back(renumbered(b.last_tick));
    }
  }
  bool first_try = true;
  // Every valid placement needs at least the lower bound, and only a strictly smaller arena
  // replaces the best, so once the best reaches the bound no later pass can change the plan.
  auto settled = [&] { return !first_try && best <= lower_bound_; };
  for (const auto& ordering : orderings) {
    if (settled()) break;
    std::vector<uint32_t> order = identity;
    std::stable_sort(order.begin(), order.end(), ordering.second);
    for (bool best_fit : {true, false}) {
      if (settled()) break;
      const uint64_t give_up_above = first_try ? UINT64_MAX : best - 1;
      const uint64_t arena = PlaceInOrder(order, best_fit, give_up_above, &taken, &offsets);
      if (first_try || arena < best) {
        first_try = false;
        best = arena;
        best_order = order;
        best_fit_mode = best_fit;
        best_offsets = offsets;
        strategy_ = std::string(ordering.first) + (best_fit ? "/best-fit" : "/first-fit");
      }
    }
  }

  // Local search: swap two buffers of the best order, keep the swap unless it makes things worse
  // (equal results are kept so the search can cross plateaus).
  XorShift random;
  bool improved = false;
  std::vector<uint32_t> order = best_order;
  uint64_t current = best;
  for (uint32_t iteration = 0; iteration < kSearchIterations && best > lower_bound_ && m > 1;
       ++iteration) {
    const uint32_t a = random.Below(m);
    const uint32_t b = random.Below(m);
    if (a == b) continue;
    std::swap(order[a], order[b]);
    const uint64_t arena = PlaceInOrder(order, best_fit_mode, current, &taken, &offsets);
    if (arena <= current) {
      current = arena;
      if (arena < best) {
        best = arena;
        best_offsets = offsets;
        improved = true;
      }
    } else {
      std::swap(order[a], order[b]);
    }
  }
  if (improved) strategy_ += "+search";

  offsets_ = std::move(best_offsets);
  arena_ = best;
  planned_ = true;
  return Status::Ok();
}

}  // namespace trainscope
