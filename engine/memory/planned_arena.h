// SPDX-License-Identifier: Apache-2.0
//
// PlannedArena: the allocator an executor uses once an ArenaPlanner has planned. The caller owns
// one buffer of at least arena_bytes() bytes (16-byte aligned); PlannedArena only hands out
// pointers at the planned offsets and allocates nothing itself. It copies the offsets, so the
// planner may be destroyed afterwards, but the arena buffer must outlive every pointer returned.
//
//   alignas(16) static uint8_t arena[kArenaBytes];
//   PlannedArena allocator;
//   TS_RETURN_IF_ERROR(allocator.Bind(planner, arena, sizeof(arena)));
//   float* gradient = reinterpret_cast<float*>(allocator.data(buffer_id));
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/status.h"
#include "engine/memory/memory_planner.h"

namespace trainscope {

class PlannedArena {
 public:
  // kInvalidArgument when the planner has not planned or the arena is null or not aligned to
  // ArenaPlanner::kAlignment, kOutOfMemory when it is too small; the previous binding is kept.
  Status Bind(const ArenaPlanner& planner, uint8_t* arena, size_t arena_size);

  // Start of buffer `id`, or nullptr for an unknown id or before Bind().
  uint8_t* data(uint32_t id) const;
  uint32_t buffer_count() const { return static_cast<uint32_t>(offsets_.size()); }
  size_t arena_size() const { return arena_size_; }

 private:
  uint8_t* arena_ = nullptr;
  size_t arena_size_ = 0;
  std::vector<uint64_t> offsets_;
};

}  // namespace trainscope
