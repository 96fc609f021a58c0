// SPDX-License-Identifier: Apache-2.0
#include "engine/memory/planned_arena.h"

namespace trainscope {

Status PlannedArena::Bind(const ArenaPlanner& planner, uint8_t* arena, size_t arena_size) {
  if (!planner.planned()) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "planned arena: the planner has not planned");
  }
  if (arena == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "planned arena: no arena buffer");
  }
  if (reinterpret_cast<uintptr_t>(arena) % ArenaPlanner::kAlignment != 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "planned arena: the arena buffer is not %llu-byte aligned",
                         static_cast<unsigned long long>(ArenaPlanner::kAlignment));
  }
  if (arena_size < planner.arena_bytes()) {
    return Status::Error(StatusCode::kOutOfMemory,
                         "planned arena: the plan needs %llu bytes but the arena has %zu",
                         static_cast<unsigned long long>(planner.arena_bytes()), arena_size);
  }
  std::vector<uint64_t> offsets(planner.buffer_count());
  for (uint32_t id = 0; id < offsets.size(); ++id) offsets[id] = planner.offset(id);
  offsets_ = std::move(offsets);
  arena_ = arena;
  arena_size_ = arena_size;
  return Status::Ok();
}

uint8_t* PlannedArena::data(uint32_t id) const {
  if (arena_ == nullptr || id >= offsets_.size()) return nullptr;
  return arena_ + offsets_[id];
}

}  // namespace trainscope
