// SPDX-License-Identifier: Apache-2.0
#include "engine/train/gradient_stats.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace trainscope {

namespace {

// GradientHistogramBin() by table lookup: every binade [2^k, 2^(k+1)) of a float holds at most
// one decade boundary 10^d, so a value's bin is the binade's first bin, plus one at or above
// that boundary. The tables are derived from GradientHistogramBin itself, so both always agree.
struct BinadeTable {
  uint8_t first_bin[256];
  float boundary[256];  // +inf when the binade holds no boundary

  BinadeTable() {
    for (uint32_t exponent = 0; exponent < 256; ++exponent) {
      const float low = BitsToFloat(exponent << 23);
      const float high = exponent < 254 ? BitsToFloat(((exponent + 1) << 23) - 1) : low;
      first_bin[exponent] = static_cast<uint8_t>(GradientHistogramBin(low));
      boundary[exponent] = std::numeric_limits<float>::infinity();
      // NaN and Inf never enter the histogram: a NaN boundary keeps `magnitude >= boundary`
      // false, so their index stays in range (the caller adds 0 for them).
      if (exponent == 255) boundary[exponent] = std::numeric_limits<float>::quiet_NaN();
      if (exponent == 0 || exponent >= 255) continue;
      if (GradientHistogramBin(high) == first_bin[exponent]) continue;
      // Bisect the bit patterns of the binade for the first value of the next bin.
      uint32_t lo = exponent << 23, hi = ((exponent + 1) << 23) - 1;
      while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (GradientHistogramBin(BitsToFloat(mid)) == first_bin[exponent])
          lo = mid + 1;
        else
          hi = mid;
      }
      boundary[exponent] = BitsToFloat(lo);
    }
  }
  static float BitsToFloat(uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
};

bool IsFinite(uint32_t bits) {
  return (bits & 0x7f800000u) != 0x7f800000u;
}

}  // namespace

// Two passes keep each loop simple enough to run fast: the moments without branches (NaN and
// Inf contribute zero and are counted), then the histogram into four interleaved copies, so
// neighbouring values that fall into the same bin do not wait on each other's increment.
GradientStatsEvent ComputeGradientStats(const float* values, size_t count) {
  static const BinadeTable table;
  GradientStatsEvent stats;
  if (values == nullptr) return stats;
  // Eight independent accumulators: a single running sum would wait on every addition.
  constexpr size_t kLanes = 8;
  double sums[kLanes] = {}, squares[kLanes] = {};
  float maxima[kLanes] = {};
  size_t non_finite = 0;
  size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (size_t lane = 0; lane < kLanes; ++lane) {
      uint32_t bits;
      std::memcpy(&bits, &values[i + lane], sizeof(bits));
      const bool finite = IsFinite(bits);
      const float value = finite ? values[i + lane] : 0.0f;
      sums[lane] += static_cast<double>(value);
      squares[lane] += static_cast<double>(value) * static_cast<double>(value);
      const float magnitude = std::fabs(value);
      maxima[lane] = magnitude > maxima[lane] ? magnitude : maxima[lane];
      non_finite += finite ? 0 : 1;
    }
  }
  for (; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], sizeof(bits));
    const bool finite = IsFinite(bits);
    const float value = finite ? values[i] : 0.0f;
    sums[0] += static_cast<double>(value);
    squares[0] += static_cast<double>(value) * static_cast<double>(value);
    maxima[0] = std::fabs(value) > maxima[0] ? std::fabs(value) : maxima[0];
    non_finite += finite ? 0 : 1;
  }
  double sum = 0.0, sum_squares = 0.0;
  float max_abs = 0.0f;
  for (size_t lane = 0; lane < kLanes; ++lane) {
    sum += sums[lane];
    sum_squares += squares[lane];
    max_abs = maxima[lane] > max_abs ? maxima[lane] : max_abs;
  }
  uint32_t histograms[4][kGradientHistogramBins] = {};
  for (i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], sizeof(bits));
    const uint32_t exponent = (bits >> 23) & 0xffu;
    const float magnitude = std::fabs(values[i]);
    const int bin = table.first_bin[exponent] + (magnitude >= table.boundary[exponent] ? 1 : 0);
    histograms[i & 3][bin] += exponent != 0xffu ? 1u : 0u;
  }
  for (int b = 0; b < kGradientHistogramBins; ++b) {
    stats.histogram[b] = histograms[0][b] + histograms[1][b] + histograms[2][b] + histograms[3][b];
  }
  if (non_finite > 0) {
    for (i = 0; i < count; ++i) {
      if (std::isnan(values[i])) ++stats.nan_count;
      if (std::isinf(values[i])) ++stats.inf_count;
    }
  }
  const size_t finite = count - non_finite;
  stats.l2 = static_cast<float>(std::sqrt(sum_squares));
  stats.max_abs = max_abs;
  stats.mean = finite > 0 ? static_cast<float>(sum / static_cast<double>(finite)) : 0.0f;
  return stats;
}

}  // namespace trainscope
