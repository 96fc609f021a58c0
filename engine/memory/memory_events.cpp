// SPDX-License-Identifier: Apache-2.0
#include "engine/memory/memory_events.h"

namespace trainscope {
namespace {

MemoryEvent MakeEvent(const MemoryTimeline& timeline, const ArenaPlanner* arena, uint32_t id,
                      uint32_t tick, bool alloc) {
  const TimelineBuffer& buffer = timeline.buffers[id];
  const Tick& t = timeline.ticks[tick];
  MemoryEvent event;
  event.tick = tick;
  event.phase = t.phase();
  event.step = t.step;
  event.tensor = buffer.tensor;
  event.category = buffer.category;
  event.bytes = buffer.bytes;
  const bool same_ids =
      arena != nullptr && arena->planned() && arena->buffer_count() == timeline.buffers.size();
  event.offset = same_ids ? arena->offset(id) : 0;
  event.alloc = alloc;
  return event;
}

// Per tick: ids of the buffers allocated on it and of those freed after it.
void BucketByTick(const MemoryTimeline& timeline, std::vector<std::vector<uint32_t>>* allocs,
                  std::vector<std::vector<uint32_t>>* frees) {
  allocs->assign(timeline.ticks.size(), {});
  frees->assign(timeline.ticks.size(), {});
  for (uint32_t id = 0; id < timeline.buffers.size(); ++id) {
    const TimelineBuffer& buffer = timeline.buffers[id];
    if (buffer.first_tick < allocs->size()) (*allocs)[buffer.first_tick].push_back(id);
    if (!buffer.persistent && buffer.last_tick < frees->size()) {
      (*frees)[buffer.last_tick].push_back(id);
    }
  }
}

MemorySummaryEvent MakeSummary(const MemoryTimeline& timeline, const HeapAccounting& heap,
                               uint32_t tick) {
  MemorySummaryEvent summary;
  summary.tick = tick;
  summary.phase = timeline.ticks[tick].phase();
  summary.step = timeline.ticks[tick].step;
  summary.current_bytes = heap.current_bytes(tick);
  summary.peak_bytes = heap.peak_bytes_until(tick);
  return summary;
}

}  // namespace

Status AddTimeline(const MemoryTimeline& timeline, MemoryPlanner* planner) {
  for (const TimelineBuffer& buffer : timeline.buffers) {
    TS_RETURN_IF_ERROR(planner->AddBuffer(buffer.bytes, buffer.first_tick, buffer.last_tick));
  }
  return Status::Ok();
}

std::vector<MemoryEvent> BuildMemoryEvents(const MemoryTimeline& timeline,
                                           const ArenaPlanner* arena) {
  std::vector<std::vector<uint32_t>> allocs, frees;
  BucketByTick(timeline, &allocs, &frees);
  std::vector<MemoryEvent> events;
  for (uint32_t tick = 0; tick < timeline.ticks.size(); ++tick) {
    for (uint32_t id : allocs[tick]) events.push_back(MakeEvent(timeline, arena, id, tick, true));
    for (uint32_t id : frees[tick]) events.push_back(MakeEvent(timeline, arena, id, tick, false));
  }
  return events;
}

std::vector<MemorySummaryEvent> BuildMemorySummaries(const MemoryTimeline& timeline,
                                                     const HeapAccounting& heap) {
  std::vector<MemorySummaryEvent> summaries;
  for (uint32_t tick = 0; tick < timeline.ticks.size(); ++tick) {
    summaries.push_back(MakeSummary(timeline, heap, tick));
  }
  return summaries;
}

void EmitMemoryEvents(const MemoryTimeline& timeline, const ArenaPlanner* arena,
                      const HeapAccounting& heap, TrainingObserver* observer) {
  if (observer == nullptr) return;
  std::vector<std::vector<uint32_t>> allocs, frees;
  BucketByTick(timeline, &allocs, &frees);
  for (uint32_t tick = 0; tick < timeline.ticks.size(); ++tick) {
    for (uint32_t id : allocs[tick]) observer->OnMemory(MakeEvent(timeline, arena, id, tick, true));
    for (uint32_t id : frees[tick]) observer->OnMemory(MakeEvent(timeline, arena, id, tick, false));
    observer->OnMemorySummary(MakeSummary(timeline, heap, tick));
  }
}

}  // namespace trainscope
