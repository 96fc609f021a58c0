// SPDX-License-Identifier: Apache-2.0
#include "engine/exec/timeline_arena.h"

#include <cstdint>
#include <cstring>

#include "engine/core/float_storage.h"
#include "engine/memory/greedy_arena_planner.h"
#include "engine/memory/planned_arena.h"

namespace trainscope {

Status TimelineArena::Plan(const MemoryTimeline& timeline) {
  timeline_ = &timeline;
  GreedyArenaPlanner planner;
  for (const TimelineBuffer& buffer : timeline.buffers) {
    TS_RETURN_IF_ERROR(planner.AddBuffer(buffer.bytes, buffer.first_tick, buffer.last_tick));
  }
  TS_RETURN_IF_ERROR(planner.Plan());
  arena_bytes_ = planner.arena_bytes();
  lower_bound_bytes_ = planner.lower_bound_bytes();
  // A 32-bit board cannot even address an arena past 4 GiB; say so instead of truncating.
  if (arena_bytes_ > SIZE_MAX - ArenaPlanner::kAlignment) {
    return Status::Error(StatusCode::kOutOfMemory,
                         "the arena needs %llu bytes, more than this machine can address",
                         static_cast<unsigned long long>(arena_bytes_));
  }
  storage_.assign(static_cast<size_t>(arena_bytes_ + ArenaPlanner::kAlignment), 0);
  const size_t misalignment =
      reinterpret_cast<uintptr_t>(storage_.data()) % ArenaPlanner::kAlignment;
  base_ = storage_.data() + (misalignment == 0 ? 0 : ArenaPlanner::kAlignment - misalignment);
  PlannedArena placed;
  TS_RETURN_IF_ERROR(
      placed.Bind(planner, base_, storage_.size() - static_cast<size_t>(base_ - storage_.data())));
  buffer_data_.resize(timeline.buffers.size());
  alias_of_.assign(timeline.buffers.size(), -1);
  zero_fill_.resize(timeline.buffers.size());
  for (size_t b = 0; b < timeline.buffers.size(); ++b) {
    zero_fill_[b] = timeline.buffers[b].storage != BufferStorage::kForward ? 1 : 0;
  }
  alloc_at_.assign(timeline.ticks.size(), {});
  free_at_.assign(timeline.ticks.size(), {});
  alloc_events_.assign(timeline.ticks.size(), {});
  free_events_.assign(timeline.ticks.size(), {});
  for (uint32_t b = 0; b < timeline.buffers.size(); ++b) {
    buffer_data_[b] = placed.data(b);
    const TimelineBuffer& buffer = timeline.buffers[b];
    if (buffer.last_tick >= timeline.ticks.size()) continue;
    // Persistent state is bound once by its owner, but reported every step like any buffer, so
    // the live picture stacks it.
    if (!buffer.persistent) {
      alloc_at_[buffer.first_tick].push_back(b);
      free_at_[buffer.last_tick].push_back(b);
    }
    alloc_events_[buffer.first_tick].push_back(MakeMemoryEvent(buffer.first_tick, b, true));
    free_events_[buffer.last_tick].push_back(MakeMemoryEvent(buffer.last_tick, b, false));
  }
  return Status::Ok();
}

MemoryEvent TimelineArena::MakeMemoryEvent(uint32_t tick, uint32_t b, bool allocate) const {
  const TimelineBuffer& buffer = timeline_->buffers[b];
  const Tick& at = timeline_->ticks[tick];
  MemoryEvent event;
  event.tick = tick;
  event.phase = at.phase();
  event.step = at.step;
  event.tensor = buffer.tensor;
  event.category = buffer.category;
  event.bytes = buffer.bytes;
  event.offset = offset(b);
  event.alloc = allocate;
  return event;
}

void TimelineArena::Bind(uint32_t tick, bool allocate, KernelViews* views,
                         TrainingObserver* observer) const {
  for (uint32_t b : allocate ? alloc_at_[tick] : free_at_[tick]) {
    const TimelineBuffer& buffer = timeline_->buffers[b];
    const int32_t alias = alias_of_[b];
    uint8_t* data = !allocate ? nullptr : alias >= 0 ? buffer_data_[alias] : buffer_data_[b];
    if (allocate && alias < 0 && zero_fill_[b] != 0)
      std::memset(data, 0, static_cast<size_t>(buffer.bytes));
    switch (buffer.storage) {
      case BufferStorage::kForward:
        views->values[buffer.tensor] = data;
        break;
      case BufferStorage::kBackward:
        views->gradients[buffer.tensor] = AsFloats(data);
        break;
      case BufferStorage::kKernel:
        views->scratch[buffer.op_index] = AsFloats(data);
        break;
      case BufferStorage::kOptimizer:
        break;
    }
  }
  if (observer == nullptr) return;
  for (const MemoryEvent& event : allocate ? alloc_events_[tick] : free_events_[tick]) {
    observer->OnMemory(event);
  }
}

void TimelineArena::Alias(uint32_t buffer, uint32_t onto) {
  alias_of_[buffer] = static_cast<int32_t>(onto);
}

void TimelineArena::SkipZeroFill(uint32_t buffer) {
  zero_fill_[buffer] = 0;
}

}  // namespace trainscope
