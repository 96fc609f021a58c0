// SPDX-License-Identifier: Apache-2.0
//
// The engine's one clock, read for the durations in FORWARD_OP and BACKWARD_STEP events. A host
// reads std::chrono::steady_clock; a board installs its own timer once at start-up, since
// newlib's steady_clock ends in a _gettimeofday stub that a board without an RTC cannot answer.
// Without an installed clock a board build reads 0, so durations are 0, not wrong.
//
//   uint64_t BoardNowNs() { return timer_ticks() * 40; }  // a 25 MHz timer
//   SetMonotonicClock(&BoardNowNs);
#pragma once

#include <cstdint>

namespace trainscope {

using MonotonicClockFn = uint64_t (*)();

// Replaces the clock; nullptr restores the default. Not thread-safe: set it before training.
void SetMonotonicClock(MonotonicClockFn now_ns);
// Nanoseconds from an arbitrary origin, never decreasing.
uint64_t MonotonicNowNs();

}  // namespace trainscope
