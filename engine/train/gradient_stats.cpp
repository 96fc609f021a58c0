// SPDX-License-Identifier: Apache-2.0
#include "engine/train/gradient_stats.h"

#include <cmath>
#include <limits>

namespace trainscope {

GradientStatsEvent ComputeGradientStats(const float* values, size_t count) {
  GradientStatsEvent stats;
  if (values == nullptr) return stats;
  constexpr uint32_t kCountLimit = std::numeric_limits<uint32_t>::max();
  double sum = 0.0;
  double sum_squares = 0.0;
  size_t finite = 0;
  float max_abs = 0.0f;
  for (size_t i = 0; i < count; ++i) {
    const float g = values[i];
    if (std::isnan(g)) {
      if (stats.nan_count < kCountLimit) ++stats.nan_count;
      continue;
    }
    if (std::isinf(g)) {
      if (stats.inf_count < kCountLimit) ++stats.inf_count;
      continue;
    }
    const float magnitude = std::fabs(g);
    sum += g;
    sum_squares += static_cast<double>(g) * g;
    ++finite;
    if (magnitude > max_abs) max_abs = magnitude;
    uint32_t& bin = stats.histogram[GradientHistogramBin(magnitude)];
    if (bin < kCountLimit) ++bin;
  }
  stats.l2 = static_cast<float>(std::sqrt(sum_squares));
  stats.max_abs = max_abs;
  stats.mean = finite > 0 ? static_cast<float>(sum / static_cast<double>(finite)) : 0.0f;
  return stats;
}

}  // namespace trainscope
