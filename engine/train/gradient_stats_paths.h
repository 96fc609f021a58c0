// SPDX-License-Identifier: Apache-2.0
//
// The inside of ComputeGradientStats (gradient_stats.h): its paths, for the vector code and the
// tests that hold the paths equal.
//
// Every path gives the same event to the bit, so statistics never depend on the host (a board
// and the desktop, a recording and its replay agree). The sums run in kStatsLanes double lanes:
// element i of a full block of kStatsLanes values goes to lane i % kStatsLanes, the tail to lane
// 0, and the lanes are added from lane 0 at the end; counts and maxima do not depend on order.
//
// A vector path takes the full blocks in chunks of kStatsChunk values. One pass per chunk adds
// the sums and learns the chunk's range (largest and smallest non-zero magnitude, zeros); the
// histogram then needs one compare per value only for the decade bounds inside that range (a
// real gradient's chunk spans a few decades, not all sixteen bins): the number of values above
// each bound is counted, and the bins are differences of neighbouring counts.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/events.h"
#include "engine/train/host_simd.h"

namespace trainscope {

enum class GradientStatsPath : uint8_t { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

// The fastest path this CPU has.
GradientStatsPath FastestGradientStatsPath();

// ComputeGradientStats on `path`; a path the CPU lacks falls back to the fastest it has.
GradientStatsEvent ComputeGradientStatsOn(GradientStatsPath path, const float* values,
                                          size_t count);

namespace gradient_stats_internal {

inline constexpr size_t kStatsLanes = 16;
inline constexpr size_t kStatsChunk = 512;  // 2 KB: spans few decades, few reductions per value

// below[b - 1]: the bits of the smallest magnitude in bin b, less one, so that a non-negative
// float's bits exceed below[b - 1] exactly when it lies in bin b or above.
struct DecadeBounds {
  int32_t below[kGradientHistogramBins - 1];
  DecadeBounds();
};

// What a chunk's pass learns besides the sums, over the magnitude bits.
struct ChunkRange {
  uint32_t largest = 0;                     // NaN and Inf included
  uint32_t smallest_nonzero = 0xffffffffu;  // 0xffffffff when the chunk is all zeros
  uint32_t zeros = 0;
  // Only from a pass with specials: NaN/Inf count and the largest finite magnitude.
  uint32_t non_finite = 0;
  uint32_t finite_largest = 0;
};

struct VectorStatsPath {
  // Adds the chunk's values to sums[kStatsLanes] and squares[kStatsLanes] in the lane order
  // above. Without specials it assumes the chunk holds no NaN or Inf (a third less work); the
  // caller checks `largest` and runs the chunk again, from the sums as they were, with them.
  ChunkRange (*pass)(const float* chunk, size_t count, bool with_specials, double* sums,
                     double* squares);
  // at_or_above[j] += the values whose magnitude bits exceed below[j], for j in [first, last),
  // at most 8 bounds; NaN and Inf exceed every bound. `count` is a multiple of kStatsLanes.
  void (*count_above)(const float* values, size_t count, const int32_t* below, int first, int last,
                      uint64_t* at_or_above);
};

#if defined(TRAINSCOPE_AVX2_PATH)
extern const VectorStatsPath kAvx2StatsPath;
extern const VectorStatsPath kAvx512StatsPath;
#endif

}  // namespace gradient_stats_internal
}  // namespace trainscope
