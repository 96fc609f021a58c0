// SPDX-License-Identifier: Apache-2.0
#include "ui/session/tensor_values.h"

#include <algorithm>
#include <cmath>

namespace trainscope {

TensorSummary SummarizeTensor(const std::vector<float>& values, int bin_count) {
  TensorSummary summary;
  summary.count = values.size();
  bool any_finite = false;
  double sum = 0.0;
  double square_sum = 0.0;
  for (float value : values) {
    if (std::isnan(value)) {
      ++summary.nan;
      continue;
    }
    if (std::isinf(value)) {
      ++summary.inf;
      continue;
    }
    if (value == 0.0f) ++summary.zeros;
    summary.min = any_finite ? std::min(summary.min, value) : value;
    summary.max = any_finite ? std::max(summary.max, value) : value;
    any_finite = true;
    sum += value;
    square_sum += static_cast<double>(value) * value;
  }
  const size_t finite = summary.finite();
  if (finite == 0 || bin_count <= 0) return summary;
  summary.mean = sum / static_cast<double>(finite);
  summary.rms = std::sqrt(square_sum / static_cast<double>(finite));
  const double span = static_cast<double>(summary.max) - summary.min;
  summary.bins.assign(span > 0.0 ? static_cast<size_t>(bin_count) : 1u, 0u);
  const double last = static_cast<double>(summary.bins.size() - 1);
  for (float value : values) {
    if (!std::isfinite(value)) continue;
    const double position = span > 0.0 ? (value - summary.min) / span * (last + 1.0) : 0.0;
    ++summary.bins[static_cast<size_t>(std::clamp(position, 0.0, last))];
  }
  return summary;
}

TensorGrid GridOf(const std::vector<int32_t>& shape, size_t value_count) {
  TensorGrid grid;
  if (value_count == 0) return grid;
  const size_t last = shape.empty() || shape.back() <= 0 ? 1 : static_cast<size_t>(shape.back());
  grid.columns = value_count % last == 0 ? last : 1;
  grid.rows = value_count / grid.columns;
  return grid;
}

}  // namespace trainscope
