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

}  // namespace

Status GreedyArenaPlanner::Add(uint64_t bytes, uint32_t first_tick, uint32_t last_tick,
                               uint32_t* id) {
  TS_RETURN_IF_ERROR(CheckPlannerBuffer(bytes, first_tick, last_tick));
  if (id != nullptr) *id = static_cast<uint32_t>(buffers_.size());
  buffers_.push_back(Buffer{AlignUp(bytes, kAlignment), first_tick, last_tick});
  planned_ = false;
  return Status::Ok();
}

uint64_t GreedyArenaPlanner::PlaceInOrder(const std::vector<uint32_t>& order, bool best_fit,
                                          uint64_t give_up_above, std::vector<Slot>* slots,
                                          std::vector<uint64_t>* offsets) const {
  offsets->assign(buffers_.size(), 0);
  slots->clear();
  uint64_t arena = 0;
  for (uint32_t id : order) {
    const Buffer& buffer = buffers_[id];
    if (buffer.size == 0) continue;
    // Walk the placed buffers bottom-up, skipping those that never meet this one. Slots with
    // equal offsets may come in any order: after the first, the cursor is past their offset,
    // so they only move it to the highest end, which does not depend on the order.
    uint64_t cursor = 0;
    uint64_t chosen = 0;
    uint64_t chosen_gap = 0;
    bool found = false;
    for (const Slot& slot : *slots) {
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
    if (!found) chosen = cursor;
    (*offsets)[id] = chosen;
    arena = std::max(arena, chosen + buffer.size);
    if (arena > give_up_above) return arena;
    const auto position =
        std::upper_bound(slots->begin(), slots->end(), chosen,
                         [](uint64_t offset, const Slot& slot) { return offset < slot.offset; });
    slots->insert(position,
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
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t t = buffers_[i].first_tick; t <= buffers_[i].last_tick; ++t) {
      pressure[i] = std::max(pressure[i], live[t]);
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
  std::vector<Slot> slots;
  slots.reserve(m);
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
      const uint64_t arena = PlaceInOrder(order, best_fit, give_up_above, &slots, &offsets);
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
    const uint64_t arena = PlaceInOrder(order, best_fit_mode, current, &slots, &offsets);
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
