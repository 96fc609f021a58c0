// SPDX-License-Identifier: Apache-2.0
#include "engine/memory/occupancy_tree.h"

#include <algorithm>

namespace trainscope {

void OccupancyTree::Reset(uint32_t ticks) {
  for (uint32_t node : touched_) {
    own_[node].clear();
    below_[node].clear();
    is_touched_[node] = 0;
  }
  touched_.clear();
  leaves_ = 1;
  while (leaves_ < ticks) leaves_ *= 2;
  if (own_.size() < 2 * static_cast<size_t>(leaves_)) {
    own_.resize(2 * static_cast<size_t>(leaves_));
    below_.resize(2 * static_cast<size_t>(leaves_));
    is_touched_.resize(2 * static_cast<size_t>(leaves_), 0);
  }
}

// Merges [begin, end) into the sorted, disjoint intervals of `set`; touching intervals merge too,
// since no buffer fits in a gap of zero bytes.
void OccupancyTree::Insert(Intervals* set, uint64_t begin, uint64_t end) {
  auto first = std::partition_point(set->begin(), set->end(),
                                    [begin](const Interval& i) { return i.end < begin; });
  auto past = first;
  while (past != set->end() && past->begin <= end) {
    begin = std::min(begin, past->begin);
    end = std::max(end, past->end);
    ++past;
  }
  if (first == past) {
    set->insert(first, Interval{begin, end});
    return;
  }
  *first = Interval{begin, end};
  set->erase(first + 1, past);
}

void OccupancyTree::Touch(uint32_t node) {
  if (is_touched_[node] != 0) return;
  is_touched_[node] = 1;
  touched_.push_back(node);
}

void OccupancyTree::Add(uint32_t first, uint32_t last, uint64_t begin, uint64_t end) {
  AddAt(1, 0, leaves_ - 1, first, last, begin, end);
}

void OccupancyTree::AddAt(uint32_t node, uint32_t lo, uint32_t hi, uint32_t first, uint32_t last,
                          uint64_t begin, uint64_t end) {
  if (last < lo || hi < first) return;
  Touch(node);
  Insert(&below_[node], begin, end);
  if (first <= lo && hi <= last) {
    Insert(&own_[node], begin, end);
    return;
  }
  const uint32_t mid = lo + (hi - lo) / 2;
  AddAt(2 * node, lo, mid, first, last, begin, end);
  AddAt(2 * node + 1, mid + 1, hi, first, last, begin, end);
}

void OccupancyTree::CollectAt(uint32_t node, uint32_t lo, uint32_t hi, uint32_t first,
                              uint32_t last) {
  if (last < lo || hi < first || below_[node].empty()) return;
  if (first <= lo && hi <= last) {
    sets_.push_back(&below_[node]);
    return;
  }
  if (!own_[node].empty()) sets_.push_back(&own_[node]);
  const uint32_t mid = lo + (hi - lo) / 2;
  CollectAt(2 * node, lo, mid, first, last);
  CollectAt(2 * node + 1, mid + 1, hi, first, last);
}

uint64_t OccupancyTree::FindGap(uint32_t first, uint32_t last, uint64_t size, bool best_fit) {
  sets_.clear();
  CollectAt(1, 0, leaves_ - 1, first, last);
  positions_.assign(sets_.size(), 0);
  uint64_t cursor = 0;
  uint64_t chosen = 0;
  uint64_t chosen_gap = 0;
  bool found = false;
  for (;;) {
    // Move the cursor past every taken interval it stands in; one set's interval may end inside
    // another's, so repeat until no set holds the cursor.
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t k = 0; k < sets_.size(); ++k) {
        const Intervals& set = *sets_[k];
        size_t& at = positions_[k];
        if (at < set.size() && set[at].end <= cursor) {
          at = static_cast<size_t>(
              std::partition_point(set.begin() + static_cast<std::ptrdiff_t>(at), set.end(),
                                   [cursor](const Interval& i) { return i.end <= cursor; }) -
              set.begin());
        }
        if (at < set.size() && set[at].begin <= cursor) {
          cursor = set[at].end;
          ++at;
          moved = true;
        }
      }
    }
    uint64_t next = UINT64_MAX;
    for (size_t k = 0; k < sets_.size(); ++k) {
      if (positions_[k] < sets_[k]->size()) next = std::min(next, (*sets_[k])[positions_[k]].begin);
    }
    if (next == UINT64_MAX) break;  // the cursor is the top of everything taken
    const uint64_t gap = next - cursor;
    if (gap >= size && (!found || (best_fit && gap < chosen_gap))) {
      chosen = cursor;
      chosen_gap = gap;
      found = true;
      // First fit takes the lowest gap; best fit cannot beat an exact fit (ties keep the lower).
      if (!best_fit || gap == size) return chosen;
    }
    cursor = next;
  }
  return found ? chosen : cursor;
}

}  // namespace trainscope
