// SPDX-License-Identifier: Apache-2.0
//
// How far a board's tensor is from the reference engine's: the figures every comparison of the
// project shows (the `diff` command, its JSON, the comparison view), computed in one place.
// Values that are NaN or Inf on either side are not mixed into the numeric figures; they are
// counted, and a position where the two sides disagree about being finite (or about which
// non-finite value) is a mismatch that always counts as a divergence.
//
//   TensorDifference d = CompareTensors(board.data(), reference.data(), reference.size());
//   if (Diverges(d, thresholds)) ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace trainscope {

struct TensorDifference {
  uint64_t count = 0;    // positions compared numerically (finite on both sides)
  double max_abs = 0.0;  // largest |board - reference|
  uint64_t max_abs_index = 0;
  double rmse = 0.0;
  double relative_l2 = 0.0;  // ||board - reference|| / ||reference||; the numerator alone when
                             // the reference is all zero
  double cosine = 1.0;       // board·reference / (|board| |reference|); 1 when both are zero
  uint64_t max_ulp = 0;      // largest distance in representable floats (0: bit-identical)
  uint64_t nonfinite_mismatches = 0;  // NaN/Inf on one side only, or different non-finite values
  uint64_t board_nonfinite = 0;
  uint64_t reference_nonfinite = 0;
};

TensorDifference CompareTensors(const float* board, const float* reference, size_t count);

// Floats between a and b (0 for equal values, +0 and -0 included); both must be finite.
uint64_t UlpDistance(float a, float b);

// Where a difference stops being float noise. Each figure is checked; the defaults flag only a
// relative L2 error above 1e-4 (and, always, a NaN/Inf mismatch).
struct DivergenceThresholds {
  double relative_l2 = 1e-4;
  double max_abs = std::numeric_limits<double>::infinity();
  uint64_t max_ulp = std::numeric_limits<uint64_t>::max();
  double min_cosine = -1.0;
};

bool Diverges(const TensorDifference& difference, const DivergenceThresholds& thresholds);

}  // namespace trainscope
