// SPDX-License-Identifier: Apache-2.0
//
// Turns a MemoryTimeline into the event vocabulary (engine/core/events.h): one MemoryEvent per
// allocation and per free, in tick order (on each tick the allocations come first, then the
// frees, each in timeline buffer order), and one MemorySummaryEvent per tick with the heap
// accounting's current and running peak bytes. Persistent buffers (Adam m, v) are allocated on
// tick 0 and never freed.
//
// The planners must have been fed with AddTimeline() from this very timeline (buffer i = id i);
// otherwise offsets are reported as 0.
//
//   GreedyArenaPlanner arena;
//   TS_RETURN_IF_ERROR(AddTimeline(timeline, &arena));
//   TS_RETURN_IF_ERROR(arena.Plan());
//   for (const MemoryEvent& e : BuildMemoryEvents(timeline, &arena)) observer->OnMemory(e);
#pragma once

#include <vector>

#include "engine/core/events.h"
#include "engine/memory/heap_accounting.h"
#include "engine/memory/memory_planner.h"
#include "engine/memory/memory_timeline.h"

namespace trainscope {

// Feeds every buffer of the timeline to `planner` (which should be empty), id = buffer index.
Status AddTimeline(const MemoryTimeline& timeline, MemoryPlanner* planner);

// `arena` may be null (offsets 0).
std::vector<MemoryEvent> BuildMemoryEvents(const MemoryTimeline& timeline,
                                           const ArenaPlanner* arena);

// `heap` must be planned from this timeline.
std::vector<MemorySummaryEvent> BuildMemorySummaries(const MemoryTimeline& timeline,
                                                     const HeapAccounting& heap);

// Both of the above, interleaved: a tick's memory events, then its summary.
void EmitMemoryEvents(const MemoryTimeline& timeline, const ArenaPlanner* arena,
                      const HeapAccounting& heap, TrainingObserver* observer);

}  // namespace trainscope
