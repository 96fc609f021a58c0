// SPDX-License-Identifier: Apache-2.0
//
// Sums of squares of float buffers, for the norms of UpdateRatioEvent: ||W||² and ||W_before -
// W_after||² over tensors of 100k values on every optimizer step, where a double accumulation
// costs as much as a tenth of the update itself.
//
// Float lanes: squares are summed in float, element i of a run of L into lane i % L, over runs of
// at most a few thousand values, and the lanes are then added in double. The relative error is a
// few float roundings per lane addition (about 1e-5 for 1024 values), far below what a norm is
// shown with. A lane sum that overflowed, met a NaN, or stayed below 2^-60 (where squares may have
// underflowed; all zeros included) is not trusted: SquareLanesAreTrusted() says so, and the caller
// sums those values again in double, where the square of a float is exact and cannot overflow.
//
// Contract of every function: the same operations in the same order run with AVX2 (chosen at run
// time) and without, so a result has the same bits on every host. Differences a[i] - b[i] are
// taken in float: exact whenever b is within a factor of two of a, as after any update smaller
// than the weight itself.
//
//   const double squared = SumOfSquares(w, count);  // float lanes, double where needed
//   if (!SquareLanesAreTrusted(lanes, 8)) squared = SumOfSquaredDifferencesInDouble(before, w, n);
#pragma once

#include <cstddef>

namespace trainscope {

// Float lanes over chunks of 1024 values, each chunk summed again in double when its lanes are not
// trusted.
double SumOfSquares(const float* values, size_t count);

// In double throughout.
double SumOfSquaresInDouble(const float* values, size_t count);
double SumOfSquaredDifferencesInDouble(const float* a, const float* b, size_t count);

bool SquareLanesAreTrusted(const float* lanes, size_t lane_count);

}  // namespace trainscope
