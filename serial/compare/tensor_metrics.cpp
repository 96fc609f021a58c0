// SPDX-License-Identifier: Apache-2.0
#include "serial/compare/tensor_metrics.h"

#include <cmath>
#include <cstring>

namespace trainscope {
namespace {

// Maps a float onto a line of integers on which neighbouring floats are neighbours.
int64_t OrderedBits(float value) {
  int32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits >= 0 ? int64_t{bits} : int64_t{INT32_MIN} - int64_t{bits};
}

bool SameNonFinite(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b;  // both infinite: the same sign
}

}  // namespace

uint64_t UlpDistance(float a, float b) {
  const int64_t d = OrderedBits(a) - OrderedBits(b);
  return static_cast<uint64_t>(d < 0 ? -d : d);
}

TensorDifference CompareTensors(const float* board, const float* reference, size_t count) {
  TensorDifference out;
  double diff_sq = 0.0, reference_sq = 0.0, board_sq = 0.0, dot = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const float a = board[i];
    const float b = reference[i];
    const bool a_finite = std::isfinite(a);
    const bool b_finite = std::isfinite(b);
    out.board_nonfinite += a_finite ? 0 : 1;
    out.reference_nonfinite += b_finite ? 0 : 1;
    if (!a_finite || !b_finite) {
      if (a_finite || b_finite || !SameNonFinite(a, b)) ++out.nonfinite_mismatches;
      continue;
    }
    ++out.count;
    const double d = static_cast<double>(a) - static_cast<double>(b);
    if (std::fabs(d) > out.max_abs) {
      out.max_abs = std::fabs(d);
      out.max_abs_index = i;
    }
    diff_sq += d * d;
    reference_sq += static_cast<double>(b) * b;
    board_sq += static_cast<double>(a) * a;
    dot += static_cast<double>(a) * b;
    const uint64_t ulp = UlpDistance(a, b);
    if (ulp > out.max_ulp) out.max_ulp = ulp;
  }
  if (out.count > 0) out.rmse = std::sqrt(diff_sq / static_cast<double>(out.count));
  out.relative_l2 = reference_sq > 0.0 ? std::sqrt(diff_sq / reference_sq) : std::sqrt(diff_sq);
  if (board_sq > 0.0 && reference_sq > 0.0) {
    out.cosine = dot / (std::sqrt(board_sq) * std::sqrt(reference_sq));
  } else {
    out.cosine = board_sq == reference_sq ? 1.0 : 0.0;
  }
  return out;
}

bool Diverges(const TensorDifference& difference, const DivergenceThresholds& thresholds) {
  return difference.nonfinite_mismatches > 0 || difference.relative_l2 > thresholds.relative_l2 ||
         difference.max_abs > thresholds.max_abs || difference.max_ulp > thresholds.max_ulp ||
         difference.cosine < thresholds.min_cosine;
}

}  // namespace trainscope
