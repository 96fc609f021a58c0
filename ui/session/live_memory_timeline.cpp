// SPDX-License-Identifier: Apache-2.0
#include "ui/session/live_memory_timeline.h"

#include <algorithm>

#include "engine/memory/memory_planner.h"

namespace trainscope {

namespace {
uint64_t Sum(const CategoryBytes& bytes) {
  uint64_t sum = 0;
  for (uint64_t value : bytes) sum += value;
  return sum;
}
}  // namespace

uint64_t TickSample::total() const {
  return Sum(live);
}
uint64_t TickSample::highWaterTotal() const {
  return Sum(high_water);
}

LiveMemoryTimeline::LiveMemoryTimeline(size_t max_events)
    : max_events_(std::max<size_t>(1, max_events)) {}

void LiveMemoryTimeline::reset() {
  *this = LiveMemoryTimeline(max_events_);
}

uint64_t LiveMemoryTimeline::currentBytes() const {
  return Sum(live_);
}

void LiveMemoryTimeline::rewindTo(uint32_t tick) {
  const auto from = [tick](const auto& items, auto tick_of) {
    return std::find_if(items.begin(), items.end(),
                        [&](const auto& item) { return tick_of(item) >= tick; });
  };
  ticks_.erase(from(ticks_, [](const TickSample& s) { return s.tick; }), ticks_.end());
  events_.erase(from(events_, [](const MemoryEvent& e) { return e.tick; }), events_.end());
  summaries_.erase(from(summaries_, [](const MemorySummaryEvent& e) { return e.tick; }),
                   summaries_.end());
  // Buffers the previous sample allocated from `tick` on are all closed by now; open ones stay.
  std::vector<BufferLifetime> kept;
  std::vector<size_t> renumbered(buffers_.size(), SIZE_MAX);
  for (size_t i = 0; i < buffers_.size(); ++i) {
    const BufferLifetime& buffer = buffers_[i];
    if (buffer.alloc_tick >= tick && buffer.free_tick != kOpenLifetime) continue;
    renumbered[i] = kept.size();
    kept.push_back(buffer);
  }
  buffers_ = std::move(kept);
  for (auto& entry : open_) {
    for (size_t& index : entry.second) index = renumbered[index];
  }
  last_tick_ = tick;
}

void LiveMemoryTimeline::add(const MemoryEvent& event) {
  const size_t category = static_cast<size_t>(event.category);
  if (category >= kMemoryCategoryCount) {
    ++dropped_;
    return;
  }
  // What is live entering a tick is live during it, even when the tick starts with a free.
  if (ticks_.empty() || ticks_.back().tick != event.tick) recordTick(event);
  const bool keep = events_.size() < max_events_;
  const auto key = std::make_pair(event.tensor, static_cast<uint8_t>(event.category));
  if (event.alloc) {
    live_[category] += event.bytes;
    arena_extent_ =
        std::max(arena_extent_, event.offset + AlignUp(event.bytes, ArenaPlanner::kAlignment));
    if (keep) {
      BufferLifetime buffer;
      buffer.tensor = event.tensor;
      buffer.category = event.category;
      buffer.offset = event.offset;
      buffer.bytes = event.bytes;
      buffer.alloc_tick = event.tick;
      buffer.alloc_phase = event.phase;
      buffer.alloc_step = event.step;
      open_[key].push_back(buffers_.size());
      buffers_.push_back(buffer);
    }
  } else {
    live_[category] -= std::min(live_[category], event.bytes);
    auto it = open_.find(key);
    if (it == open_.end() || it->second.empty()) {
      ++unmatched_frees_;
    } else {
      // Prefer the open buffer at the same offset; fall back to the most recent one.
      std::vector<size_t>& candidates = it->second;
      size_t pick = candidates.size() - 1;
      for (size_t i = candidates.size(); i-- > 0;) {
        if (buffers_[candidates[i]].offset == event.offset) {
          pick = i;
          break;
        }
      }
      BufferLifetime& buffer = buffers_[candidates[pick]];
      buffer.free_tick = event.tick;
      buffer.free_phase = event.phase;
      buffer.free_step = event.step;
      candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(pick));
    }
  }
  recordTick(event);
  if (keep) {
    events_.push_back(event);
  } else {
    ++dropped_;
  }
}

void LiveMemoryTimeline::recordTick(const MemoryEvent& event) {
  const uint64_t total = currentBytes();
  peak_ = std::max(peak_, total);
  last_tick_ = event.tick;
  // Past the cap, later ticks fold into the last one so its high water still shows the peak.
  const bool same_tick = !ticks_.empty() && ticks_.back().tick == event.tick;
  if (same_tick || ticks_.size() >= max_events_) {
    TickSample& sample = ticks_.back();
    sample.live = live_;
    if (total > sample.highWaterTotal()) sample.high_water = live_;
    return;
  }
  TickSample sample;
  sample.tick = event.tick;
  sample.phase = event.phase;
  sample.step = event.step;
  sample.live = live_;
  sample.high_water = live_;
  ticks_.push_back(sample);
}

void LiveMemoryTimeline::add(const MemorySummaryEvent& summary) {
  last_tick_ = std::max(last_tick_, summary.tick);
  peak_ = std::max(peak_, summary.peak_bytes);
  if (summaries_.size() < max_events_) {
    summaries_.push_back(summary);
  } else {
    summaries_.back() = summary;
    ++dropped_;
  }
}

}  // namespace trainscope
