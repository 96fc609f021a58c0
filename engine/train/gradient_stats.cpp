// SPDX-License-Identifier: Apache-2.0
#include "engine/train/gradient_stats.h"

#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/train/gradient_stats_paths.h"

namespace trainscope {

using gradient_stats_internal::ChunkRange;
using gradient_stats_internal::DecadeBounds;
using gradient_stats_internal::kStatsChunk;
using gradient_stats_internal::kStatsLanes;
using gradient_stats_internal::VectorStatsPath;

namespace {

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float BitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// GradientHistogramBin() by one table lookup per value: every binade [2^k, 2^(k+1)) of a float
// holds at most one decade boundary 10^d, so a value's bin is the binade's first bin, plus one at
// or above that boundary. For non-negative floats the order of the bit patterns is the order of
// the values, so the boundary is compared as an integer. An entry packs the boundary's bits
// (all ones when the binade holds none) above the first bin. The table is derived from
// GradientHistogramBin itself, so both always agree.
struct BinadeTable {
  uint64_t entry[256];

  BinadeTable() {
    for (uint32_t exponent = 0; exponent < 256; ++exponent) {
      const uint32_t low_bits = exponent << 23;
      const uint32_t high_bits = exponent < 255 ? ((exponent + 1) << 23) - 1 : low_bits;
      // Exponent 255 (NaN, Inf) never reaches the table: the callers zero those values first.
      const int first_bin = exponent < 255 ? GradientHistogramBin(BitsToFloat(low_bits)) : 0;
      uint32_t boundary = 0xffffffffu;
      if (exponent > 0 && exponent < 255 &&
          GradientHistogramBin(BitsToFloat(high_bits)) != first_bin) {
        // Bisect the bit patterns of the binade for the first value of the next bin.
        uint32_t lo = low_bits, hi = high_bits;
        while (lo < hi) {
          const uint32_t mid = lo + (hi - lo) / 2;
          if (GradientHistogramBin(BitsToFloat(mid)) == first_bin)
            lo = mid + 1;
          else
            hi = mid;
        }
        boundary = lo;
      }
      entry[exponent] = (static_cast<uint64_t>(boundary) << 8) | static_cast<uint64_t>(first_bin);
    }
  }

  // `magnitude_bits`: the bits of a finite |g| (sign bit clear).
  uint32_t Bin(uint32_t magnitude_bits) const {
    const uint64_t e = entry[magnitude_bits >> 23];
    return static_cast<uint32_t>(e & 0xffu) + (magnitude_bits >= (e >> 8) ? 1u : 0u);
  }
};

constexpr size_t kLanes = kStatsLanes;

struct Accumulators {
  double sums[kLanes] = {};
  double squares[kLanes] = {};
  float max_abs = 0.0f;
  size_t non_finite = 0;
  // Four interleaved copies, so neighbouring values in the same bin do not wait on each other's
  // increment. Non-finite values are counted in bin 0 as zeros and taken out at the end.
  uint32_t histograms[4][kGradientHistogramBins] = {};
};

// One value, the portable way: NaN and Inf contribute zero and are counted.
inline void AddValue(const BinadeTable& table, float raw, size_t lane, size_t copy,
                     Accumulators* acc) {
  const uint32_t bits = FloatBits(raw);
  const bool finite = (bits & 0x7f800000u) != 0x7f800000u;
  const float value = finite ? raw : 0.0f;
  acc->sums[lane] += static_cast<double>(value);
  acc->squares[lane] += static_cast<double>(value) * static_cast<double>(value);
  const uint32_t magnitude_bits = finite ? bits & 0x7fffffffu : 0u;
  const float magnitude = BitsToFloat(magnitude_bits);
  acc->max_abs = magnitude > acc->max_abs ? magnitude : acc->max_abs;
  acc->non_finite += finite ? 0 : 1;
  ++acc->histograms[copy][table.Bin(magnitude_bits)];
}

// The portable path's full blocks; returns how many values it consumed.
size_t AddBlocks(const BinadeTable& table, const float* values, size_t count, Accumulators* acc) {
  size_t i = 0;
#if defined(__SSE2__)
  // Two double lanes a vector: sums[k] holds lanes 2k and 2k+1.
  constexpr int kVectors = kLanes / 2;
  const __m128i exponent_mask = _mm_set1_epi32(0x7f800000);
  const __m128i magnitude_mask = _mm_set1_epi32(0x7fffffff);
  __m128d sums[kVectors], squares[kVectors];
  for (int k = 0; k < kVectors; ++k) {
    sums[k] = _mm_loadu_pd(acc->sums + 2 * k);
    squares[k] = _mm_loadu_pd(acc->squares + 2 * k);
  }
  __m128 maxima = _mm_set1_ps(acc->max_abs);
  // Per-lane counts of non-finite values (as negative masks), flushed before they can wrap.
  __m128i non_finite = _mm_setzero_si128();
  size_t since_flush = 0;
  alignas(16) uint32_t magnitudes[kLanes];
  auto flush = [&] {
    alignas(16) uint32_t counts[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(counts),
                    _mm_sub_epi32(_mm_setzero_si128(), non_finite));
    acc->non_finite += static_cast<size_t>(counts[0]) + counts[1] + counts[2] + counts[3];
    non_finite = _mm_setzero_si128();
    since_flush = 0;
  };
  for (; i + kLanes <= count; i += kLanes) {
    for (int q = 0; q < static_cast<int>(kLanes / 4); ++q) {
      const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(values + i + 4 * q));
      const __m128i special = _mm_cmpeq_epi32(_mm_and_si128(bits, exponent_mask), exponent_mask);
      non_finite = _mm_add_epi32(non_finite, special);
      const __m128i kept = _mm_andnot_si128(special, bits);
      const __m128i magnitude = _mm_and_si128(kept, magnitude_mask);
      _mm_store_si128(reinterpret_cast<__m128i*>(magnitudes + 4 * q), magnitude);
      maxima = _mm_max_ps(maxima, _mm_castsi128_ps(magnitude));
      const __m128 value = _mm_castsi128_ps(kept);
      const __m128d low = _mm_cvtps_pd(value);
      const __m128d high = _mm_cvtps_pd(_mm_movehl_ps(value, value));
      sums[2 * q] = _mm_add_pd(sums[2 * q], low);
      sums[2 * q + 1] = _mm_add_pd(sums[2 * q + 1], high);
      squares[2 * q] = _mm_add_pd(squares[2 * q], _mm_mul_pd(low, low));
      squares[2 * q + 1] = _mm_add_pd(squares[2 * q + 1], _mm_mul_pd(high, high));
    }
    for (size_t lane = 0; lane < kLanes; ++lane) {
      ++acc->histograms[lane & 3][table.Bin(magnitudes[lane])];
    }
    if (++since_flush == (1u << 27)) flush();
  }
  for (int k = 0; k < kVectors; ++k) {
    _mm_storeu_pd(acc->sums + 2 * k, sums[k]);
    _mm_storeu_pd(acc->squares + 2 * k, squares[k]);
  }
  alignas(16) float lane_maxima[4];
  _mm_store_ps(lane_maxima, maxima);
  for (float m : lane_maxima) acc->max_abs = m > acc->max_abs ? m : acc->max_abs;
  flush();
#else
  for (; i + kLanes <= count; i += kLanes) {
    for (size_t lane = 0; lane < kLanes; ++lane) {
      AddValue(table, values[i + lane], lane, lane & 3, acc);
    }
  }
#endif
  return i;
}

#if defined(TRAINSCOPE_AVX2_PATH)
// Per bound, the chunk's values above it (gradient_stats_paths.h): a bound at or above the
// chunk's largest magnitude has none above it, one below its smallest non-zero magnitude has
// every non-zero value above it, and only the bounds in between need a compare per value.
void CountChunkAbove(const VectorStatsPath& path, const DecadeBounds& bounds, const float* chunk,
                     size_t count, const ChunkRange& range, uint64_t* at_or_above) {
  int first = kGradientHistogramBins - 1, last = 0;
  for (int j = 0; j < kGradientHistogramBins - 1; ++j) {
    const uint32_t bound = static_cast<uint32_t>(bounds.below[j]);
    if (bound >= range.largest) continue;
    if (bound < range.smallest_nonzero) {
      at_or_above[j] += count - range.zeros;
      continue;
    }
    first = j < first ? j : first;
    last = j + 1;
  }
  for (; first < last; first += 8) {
    path.count_above(chunk, count, bounds.below, first, last < first + 8 ? last : first + 8,
                     at_or_above);
  }
}

// A vector path's full blocks, chunk by chunk; returns how many values it consumed.
size_t AddBlocksVector(const VectorStatsPath& path, const DecadeBounds& bounds, const float* values,
                       size_t count, Accumulators* acc) {
  uint32_t max_abs_bits = FloatBits(acc->max_abs);
  uint64_t at_or_above[kGradientHistogramBins - 1] = {};
  const size_t blocks_end = count - count % kLanes;
  size_t non_finite = 0;
  for (size_t begin = 0; begin < blocks_end; begin += kStatsChunk) {
    const size_t chunk = blocks_end - begin < kStatsChunk ? blocks_end - begin : kStatsChunk;
    const float* at = values + begin;
    double sums_before[kLanes], squares_before[kLanes];
    std::memcpy(sums_before, acc->sums, sizeof(sums_before));
    std::memcpy(squares_before, acc->squares, sizeof(squares_before));
    ChunkRange range = path.pass(at, chunk, false, acc->sums, acc->squares);
    if (range.largest >= 0x7f800000u) {  // NaN or Inf in this chunk: count them apart
      std::memcpy(acc->sums, sums_before, sizeof(sums_before));
      std::memcpy(acc->squares, squares_before, sizeof(squares_before));
      range = path.pass(at, chunk, true, acc->sums, acc->squares);
      non_finite += range.non_finite;
      max_abs_bits = range.finite_largest > max_abs_bits ? range.finite_largest : max_abs_bits;
    } else {
      max_abs_bits = range.largest > max_abs_bits ? range.largest : max_abs_bits;
    }
    CountChunkAbove(path, bounds, at, chunk, range, at_or_above);
  }
  // Non-negative floats order like their bits.
  acc->max_abs = BitsToFloat(max_abs_bits);
  acc->non_finite += non_finite;
  // Bin b holds the finite values at or above bound b-1 and below bound b.
  const uint64_t finite = blocks_end - non_finite;
  for (int b = 0; b < kGradientHistogramBins; ++b) {
    const uint64_t from = b == 0 ? finite : at_or_above[b - 1] - non_finite;
    const uint64_t to = b + 1 < kGradientHistogramBins ? at_or_above[b] - non_finite : 0;
    acc->histograms[0][b] += static_cast<uint32_t>(from - to);
  }
  // The portable path counts non-finite values in bin 0 and the caller takes them out.
  acc->histograms[0][0] += static_cast<uint32_t>(non_finite);
  return blocks_end;
}
#endif  // TRAINSCOPE_AVX2_PATH

GradientStatsPath Supported(GradientStatsPath path) {
  const GradientStatsPath fastest = FastestGradientStatsPath();
  return static_cast<uint8_t>(path) < static_cast<uint8_t>(fastest) ? path : fastest;
}

}  // namespace

gradient_stats_internal::DecadeBounds::DecadeBounds() {
  for (int b = 1; b < kGradientHistogramBins; ++b) {
    uint32_t lo = 0, hi = 0x7f800000u;  // the first finite magnitude whose bin is >= b
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (GradientHistogramBin(BitsToFloat(mid)) < b)
        lo = mid + 1;
      else
        hi = mid;
    }
    below[b - 1] = static_cast<int32_t>(lo) - 1;
  }
}

GradientStatsPath FastestGradientStatsPath() {
#if defined(TRAINSCOPE_AVX2_PATH)
  static const GradientStatsPath fastest = !HostHasAvx2()    ? GradientStatsPath::kPortable
                                           : HostHasAvx512() ? GradientStatsPath::kAvx512
                                                             : GradientStatsPath::kAvx2;
  return fastest;
#else
  return GradientStatsPath::kPortable;
#endif
}

// One pass over the values computes everything; NaN and Inf are counted apart only when the
// pass saw any (a healthy gradient has none).
GradientStatsEvent ComputeGradientStatsOn(GradientStatsPath path, const float* values,
                                          size_t count) {
  static const BinadeTable table;
  GradientStatsEvent stats;
  if (values == nullptr) return stats;
  Accumulators acc;
  size_t i = 0;
  switch (Supported(path)) {
#if defined(TRAINSCOPE_AVX2_PATH)
    case GradientStatsPath::kAvx512: {
      static const DecadeBounds bounds;
      i = AddBlocksVector(gradient_stats_internal::kAvx512StatsPath, bounds, values, count, &acc);
      break;
    }
    case GradientStatsPath::kAvx2: {
      static const DecadeBounds bounds;
      i = AddBlocksVector(gradient_stats_internal::kAvx2StatsPath, bounds, values, count, &acc);
      break;
    }
#endif
    default:
      i = AddBlocks(table, values, count, &acc);
      break;
  }
  for (; i < count; ++i) AddValue(table, values[i], 0, i & 3, &acc);

  double sum = 0.0, sum_squares = 0.0;
  for (size_t lane = 0; lane < kLanes; ++lane) {
    sum += acc.sums[lane];
    sum_squares += acc.squares[lane];
  }
  for (int b = 0; b < kGradientHistogramBins; ++b) {
    stats.histogram[b] =
        acc.histograms[0][b] + acc.histograms[1][b] + acc.histograms[2][b] + acc.histograms[3][b];
  }
  stats.histogram[0] -= static_cast<uint32_t>(acc.non_finite);
  if (acc.non_finite > 0) {
    for (i = 0; i < count; ++i) {
      if (std::isnan(values[i])) ++stats.nan_count;
      if (std::isinf(values[i])) ++stats.inf_count;
    }
  }
  const size_t finite = count - acc.non_finite;
  stats.l2 = static_cast<float>(std::sqrt(sum_squares));
  stats.max_abs = acc.max_abs;
  stats.mean = finite > 0 ? static_cast<float>(sum / static_cast<double>(finite)) : 0.0f;
  return stats;
}

GradientStatsEvent ComputeGradientStats(const float* values, size_t count) {
  return ComputeGradientStatsOn(FastestGradientStatsPath(), values, count);
}

}  // namespace trainscope
