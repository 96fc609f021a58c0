// SPDX-License-Identifier: Apache-2.0
#include "engine/memory/heap_accounting.h"

#include <algorithm>

namespace trainscope {

Status CheckPlannerBuffer(uint64_t bytes, uint32_t first_tick, uint32_t last_tick) {
  if (last_tick < first_tick) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "planner: buffer ends at tick %u before it starts at tick %u",
                         static_cast<unsigned>(last_tick), static_cast<unsigned>(first_tick));
  }
  if (last_tick >= kMaxPlannerTicks) {
    return Status::Error(StatusCode::kInvalidArgument, "planner: tick %u exceeds the limit of %u",
                         static_cast<unsigned>(last_tick),
                         static_cast<unsigned>(kMaxPlannerTicks - 1));
  }
  if (bytes > kMaxPlannerBufferBytes) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "planner: a buffer of %llu bytes exceeds the limit of %llu",
                         static_cast<unsigned long long>(bytes),
                         static_cast<unsigned long long>(kMaxPlannerBufferBytes));
  }
  return Status::Ok();
}

std::vector<uint64_t> LiveBytesPerTick(const std::vector<uint64_t>& bytes,
                                       const std::vector<uint32_t>& first_ticks,
                                       const std::vector<uint32_t>& last_ticks,
                                       uint64_t alignment) {
  const size_t count = std::min({bytes.size(), first_ticks.size(), last_ticks.size()});
  uint32_t ticks = 0;
  for (size_t i = 0; i < count; ++i) ticks = std::max(ticks, last_ticks[i] + 1);
  // Signed deltas would need a wider type; adding at the start and subtracting after the end in
  // two passes keeps everything unsigned.
  std::vector<uint64_t> starts(ticks + 1, 0), ends(ticks + 1, 0);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t size = AlignUp(bytes[i], alignment);
    starts[first_ticks[i]] += size;
    ends[last_ticks[i] + 1] += size;
  }
  std::vector<uint64_t> live(ticks, 0);
  uint64_t current = 0;
  for (uint32_t t = 0; t < ticks; ++t) {
    current = current + starts[t] - ends[t];
    live[t] = current;
  }
  return live;
}

Status HeapAccounting::Add(uint64_t bytes, uint32_t first_tick, uint32_t last_tick, uint32_t* id) {
  TS_RETURN_IF_ERROR(CheckPlannerBuffer(bytes, first_tick, last_tick));
  if (id != nullptr) *id = static_cast<uint32_t>(buffers_.size());
  buffers_.push_back(Buffer{bytes, first_tick, last_tick});
  planned_ = false;
  return Status::Ok();
}

Status HeapAccounting::PlanAll() {
  std::vector<uint64_t> bytes;
  std::vector<uint32_t> first, last;
  for (const Buffer& b : buffers_) {
    bytes.push_back(b.bytes);
    first.push_back(b.first_tick);
    last.push_back(b.last_tick);
  }
  live_ = LiveBytesPerTick(bytes, first, last, 1);
  running_peak_.assign(live_.size(), 0);
  peak_ = 0;
  peak_tick_ = 0;
  for (uint32_t t = 0; t < live_.size(); ++t) {
    if (live_[t] > peak_) {
      peak_ = live_[t];
      peak_tick_ = t;
    }
    running_peak_[t] = peak_;
  }
  planned_ = true;
  return Status::Ok();
}

uint64_t HeapAccounting::current_bytes(uint32_t tick) const {
  return tick < live_.size() ? live_[tick] : 0;
}

uint64_t HeapAccounting::peak_bytes_until(uint32_t tick) const {
  if (running_peak_.empty()) return 0;
  return tick < running_peak_.size() ? running_peak_[tick] : running_peak_.back();
}

}  // namespace trainscope
