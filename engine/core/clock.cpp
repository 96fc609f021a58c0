// SPDX-License-Identifier: Apache-2.0
#include "engine/core/clock.h"

#if defined(__unix__) || defined(__APPLE__)
#include <chrono>
#endif

namespace trainscope {
namespace {

uint64_t DefaultNowNs() {
#if defined(__unix__) || defined(__APPLE__)
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
#else
  return 0;
#endif
}

MonotonicClockFn g_now_ns = &DefaultNowNs;

}  // namespace

void SetMonotonicClock(MonotonicClockFn now_ns) {
  g_now_ns = now_ns != nullptr ? now_ns : &DefaultNowNs;
}

uint64_t MonotonicNowNs() {
  return g_now_ns();
}

}  // namespace trainscope
