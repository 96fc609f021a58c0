// SPDX-License-Identifier: Apache-2.0
//
// LiveMemoryTimeline: the memory picture of one train step (forward ticks, backward ticks,
// optimizer), built from its MemoryEvent stream: live bytes per category after every tick, the
// buffers' lifetime rectangles (arena offset x ticks) and the engine's own current/peak summaries.
//
// Bounded: at most `max_events` events (and as many ticks and buffers) are kept per step; the
// live-byte accounting stays exact beyond that and the excess is counted in droppedEvents().
// A value type, copied into each snapshot.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "engine/core/events.h"

namespace trainscope {

using CategoryBytes = std::array<uint64_t, kMemoryCategoryCount>;

struct TickSample {
  uint32_t tick = 0;
  Phase phase = Phase::kForward;
  uint32_t step = 0;
  CategoryBytes live{};        // after all events of the tick
  CategoryBytes high_water{};  // at the tick's largest total (an op allocates, then frees)
  uint64_t total() const;
  uint64_t highWaterTotal() const;
};

inline constexpr uint32_t kOpenLifetime = UINT32_MAX;

struct BufferLifetime {
  int32_t tensor = -1;
  MemoryCategory category = MemoryCategory::kActivation;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint32_t alloc_tick = 0;
  uint32_t free_tick = kOpenLifetime;  // still live at the end of the timeline
  Phase alloc_phase = Phase::kForward;
  uint32_t alloc_step = 0;
  Phase free_phase = Phase::kForward;
  uint32_t free_step = 0;
};

class LiveMemoryTimeline {
 public:
  explicit LiveMemoryTimeline(size_t max_events = size_t{1} << 17);

  void add(const MemoryEvent& event);
  void add(const MemorySummaryEvent& summary);
  // Forgets everything: the next event starts a new train step.
  void reset();
  // A later sample of a batch runs the ticks from `tick` on again: what those ticks showed of the
  // previous sample is dropped, what is live now (the batch's accumulated gradients, optimizer
  // state) stays, so the picture is always the current sample's within its optimizer step.
  void rewindTo(uint32_t tick);

  const std::vector<MemoryEvent>& events() const { return events_; }
  const std::vector<MemorySummaryEvent>& summaries() const { return summaries_; }
  const std::vector<TickSample>& ticks() const { return ticks_; }
  const std::vector<BufferLifetime>& buffers() const { return buffers_; }

  const CategoryBytes& liveBytes() const { return live_; }
  uint64_t currentBytes() const;
  // The step's peak: the highest stack so far, or the peak a summary announced if higher.
  uint64_t peakBytes() const { return peak_; }
  // Largest end of any buffer, each rounded up to the planner's 16-byte alignment: once a whole
  // step was seen, the arena size the plan needs.
  uint64_t arenaExtent() const { return arena_extent_; }
  bool hasSummary() const { return !summaries_.empty(); }
  uint64_t droppedEvents() const { return dropped_; }
  // Frees with no matching allocation in this step (e.g. the buffer predates the step).
  uint64_t unmatchedFrees() const { return unmatched_frees_; }
  uint32_t lastTick() const { return last_tick_; }
  bool empty() const { return events_.empty() && summaries_.empty() && ticks_.empty(); }

 private:
  void recordTick(const MemoryEvent& event);

  size_t max_events_;
  std::vector<MemoryEvent> events_;
  std::vector<MemorySummaryEvent> summaries_;
  std::vector<TickSample> ticks_;
  std::vector<BufferLifetime> buffers_;
  // Open buffers by (tensor, category), most recent last.
  std::map<std::pair<int32_t, uint8_t>, std::vector<size_t>> open_;
  CategoryBytes live_{};
  uint64_t peak_ = 0;
  uint64_t arena_extent_ = 0;
  uint64_t dropped_ = 0;
  uint64_t unmatched_frees_ = 0;
  uint32_t last_tick_ = 0;
};

}  // namespace trainscope
