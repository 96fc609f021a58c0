// SPDX-License-Identifier: Apache-2.0
#include "engine/train/gradient_stats.h"

#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/train/host_simd.h"

#if defined(TRAINSCOPE_AVX2_PATH)
#include <immintrin.h>
#endif

namespace trainscope {

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

// The running sums are kept in eight lanes, element i of a full block of eight going to lane
// i % 8 and the tail to lane 0, then added lane 0 first: a single running sum would wait on
// every addition, and this fixed order makes the result the same with or without SIMD.
constexpr size_t kLanes = 8;

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

// Full blocks of eight; returns how many values it consumed.
size_t AddBlocks(const BinadeTable& table, const float* values, size_t count, Accumulators* acc) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i exponent_mask = _mm_set1_epi32(0x7f800000);
  const __m128i magnitude_mask = _mm_set1_epi32(0x7fffffff);
  __m128d sums[4], squares[4];
  for (int k = 0; k < 4; ++k) {
    sums[k] = _mm_loadu_pd(acc->sums + 2 * k);
    squares[k] = _mm_loadu_pd(acc->squares + 2 * k);
  }
  __m128 maxima = _mm_set1_ps(acc->max_abs);
  // Per-lane counts of non-finite values (as negative masks), flushed before they can wrap.
  __m128i non_finite = _mm_setzero_si128();
  size_t since_flush = 0;
  alignas(16) uint32_t magnitudes[kLanes];
  for (; i + kLanes <= count; i += kLanes) {
    __m128i halves[2];
    for (int h = 0; h < 2; ++h) {
      const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(values + i + 4 * h));
      const __m128i special = _mm_cmpeq_epi32(_mm_and_si128(bits, exponent_mask), exponent_mask);
      non_finite = _mm_add_epi32(non_finite, special);
      const __m128i kept = _mm_andnot_si128(special, bits);
      halves[h] = _mm_and_si128(kept, magnitude_mask);
      maxima = _mm_max_ps(maxima, _mm_castsi128_ps(halves[h]));
      const __m128 value = _mm_castsi128_ps(kept);
      const __m128d low = _mm_cvtps_pd(value);
      const __m128d high = _mm_cvtps_pd(_mm_movehl_ps(value, value));
      sums[2 * h] = _mm_add_pd(sums[2 * h], low);
      sums[2 * h + 1] = _mm_add_pd(sums[2 * h + 1], high);
      squares[2 * h] = _mm_add_pd(squares[2 * h], _mm_mul_pd(low, low));
      squares[2 * h + 1] = _mm_add_pd(squares[2 * h + 1], _mm_mul_pd(high, high));
    }
    _mm_store_si128(reinterpret_cast<__m128i*>(magnitudes), halves[0]);
    _mm_store_si128(reinterpret_cast<__m128i*>(magnitudes + 4), halves[1]);
    for (size_t lane = 0; lane < kLanes; ++lane) {
      ++acc->histograms[lane & 3][table.Bin(magnitudes[lane])];
    }
    if (++since_flush == (1u << 28)) {
      alignas(16) uint32_t counts[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(counts),
                      _mm_sub_epi32(_mm_setzero_si128(), non_finite));
      acc->non_finite += static_cast<size_t>(counts[0]) + counts[1] + counts[2] + counts[3];
      non_finite = _mm_setzero_si128();
      since_flush = 0;
    }
  }
  for (int k = 0; k < 4; ++k) {
    _mm_storeu_pd(acc->sums + 2 * k, sums[k]);
    _mm_storeu_pd(acc->squares + 2 * k, squares[k]);
  }
  alignas(16) float lane_maxima[4];
  _mm_store_ps(lane_maxima, maxima);
  for (float m : lane_maxima) acc->max_abs = m > acc->max_abs ? m : acc->max_abs;
  alignas(16) uint32_t counts[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(counts),
                  _mm_sub_epi32(_mm_setzero_si128(), non_finite));
  acc->non_finite += static_cast<size_t>(counts[0]) + counts[1] + counts[2] + counts[3];
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
// The same statistics with AVX2, for hosts that have it (chosen at run time, so the build stays
// portable). The histogram needs no table here: the bin of |g| is the number of decade bounds
// at or below it, so each bound's count of values at or above it is accumulated with one compare
// per eight values, and the bins are differences of neighbouring counts. Values are taken in
// chunks that stay in the L1 cache: the moments and the chunk's range in one pass, then one more
// pass per group of up to eight bounds that the range leaves open (CountChunkAtOrAbove).
struct DecadeBounds {
  int32_t below[kGradientHistogramBins - 1];  // bits of the smallest magnitude in bin b+1, - 1

  DecadeBounds() {
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
};

__attribute__((target("avx2"))) inline __m256i MagnitudeBits(const float* at) {
  return _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)),
                          _mm256_set1_epi32(0x7fffffff));
}

// Adds, per bound j in [first, last) (at most kGroup of them), the number of values in
// [0, count) whose magnitude bits exceed below[j]; NaN and Inf exceed every bound (the caller
// takes them out).
template <int kGroup>
__attribute__((target("avx2"))) void CountAtOrAbove(const float* values, size_t count,
                                                    const DecadeBounds& bounds, int first, int last,
                                                    uint64_t* at_or_above) {
  __m256i counts[kGroup];
  __m256i limits[kGroup];
  for (int j = 0; j < kGroup; ++j) {
    counts[j] = _mm256_setzero_si256();
    limits[j] = _mm256_set1_epi32(bounds.below[first + j < last ? first + j : first]);
  }
  for (size_t i = 0; i + 8 <= count; i += 8) {
    const __m256i magnitude = MagnitudeBits(values + i);
    for (int j = 0; j < kGroup; ++j) {
      counts[j] = _mm256_sub_epi32(counts[j], _mm256_cmpgt_epi32(magnitude, limits[j]));
    }
  }
  for (int j = 0; j < kGroup && first + j < last; ++j) {
    alignas(32) uint32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), counts[j]);
    for (uint32_t lane : lanes) at_or_above[first + j] += lane;
  }
}

// Sums of eight 32-bit lanes.
__attribute__((target("avx2"))) uint32_t LaneSum(__m256i lanes_vector) {
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), lanes_vector);
  uint32_t sum = 0;
  for (uint32_t lane : lanes) sum += lane;
  return sum;
}

// Counts, per bound, the chunk's values above it. A chunk of a real gradient spans a few
// decades, not all sixteen bins: a bound at or above the chunk's largest magnitude has no value
// above it, and one below its smallest non-zero magnitude has every non-zero value above it, so
// only the bounds in between need a compare per value.
__attribute__((target("avx2"))) void CountChunkAtOrAbove(const float* values, size_t count,
                                                         const DecadeBounds& bounds,
                                                         uint32_t smallest_nonzero,
                                                         uint32_t largest, uint32_t zeros,
                                                         uint64_t* at_or_above) {
  int first = kGradientHistogramBins - 1, last = 0;
  for (int j = 0; j < kGradientHistogramBins - 1; ++j) {
    const uint32_t bound = static_cast<uint32_t>(bounds.below[j]);
    if (bound >= largest) continue;
    if (bound < smallest_nonzero) {
      at_or_above[j] += count - zeros;
      continue;
    }
    first = j < first ? j : first;
    last = j + 1;
  }
  while (first < last) {
    if (last - first <= 4) {
      CountAtOrAbove<4>(values, count, bounds, first, last, at_or_above);
      first = last;
    } else {
      CountAtOrAbove<8>(values, count, bounds, first, last < first + 8 ? last : first + 8,
                        at_or_above);
      first += 8;
    }
  }
}

// The running sums of the AVX2 pass: lanes 0-3 and 4-7, as in the portable path.
struct Avx2Sums {
  __m256d sums_low, sums_high, squares_low, squares_high;
};

// What a chunk's pass learns besides the sums, over the raw magnitude bits (NaN and Inf
// included): the largest, the smallest non-zero (as bits - 1, so that zero wraps to the largest
// unsigned value), the number of zeros; and, when it looked for them, the NaN/Inf count and the
// largest finite magnitude.
struct Avx2ChunkRange {
  __m256i largest, smallest_nonzero_less_one, zeros, specials;
  __m256 finite_maxima;
};

// One chunk. kWithSpecials = false assumes the chunk holds no NaN or Inf, which saves a third of
// the work per value; the caller checks the chunk's largest magnitude afterwards and, when it is
// NaN or Inf after all, runs the chunk again from the same sums with kWithSpecials = true.
template <bool kWithSpecials>
__attribute__((target("avx2,fma"), always_inline)) inline void ChunkPass(const float* at,
                                                                         size_t chunk,
                                                                         Avx2Sums* sums,
                                                                         Avx2ChunkRange* range) {
  const __m256i magnitude_mask = _mm256_set1_epi32(0x7fffffff);
  const __m256i exponent_mask = _mm256_set1_epi32(0x7f800000);
  range->largest = _mm256_setzero_si256();
  range->smallest_nonzero_less_one = _mm256_set1_epi32(-1);
  range->zeros = _mm256_setzero_si256();
  range->specials = _mm256_setzero_si256();
  range->finite_maxima = _mm256_setzero_ps();
  for (size_t i = 0; i < chunk; i += kLanes) {
    __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + i));
    const __m256i raw_magnitude = _mm256_and_si256(bits, magnitude_mask);
    range->largest = _mm256_max_epu32(range->largest, raw_magnitude);
    range->smallest_nonzero_less_one = _mm256_min_epu32(
        range->smallest_nonzero_less_one, _mm256_sub_epi32(raw_magnitude, _mm256_set1_epi32(1)));
    range->zeros =
        _mm256_sub_epi32(range->zeros, _mm256_cmpeq_epi32(raw_magnitude, _mm256_setzero_si256()));
    if (kWithSpecials) {
      const __m256i special =
          _mm256_cmpeq_epi32(_mm256_and_si256(bits, exponent_mask), exponent_mask);
      range->specials = _mm256_sub_epi32(range->specials, special);
      bits = _mm256_andnot_si256(special, bits);
      range->finite_maxima = _mm256_max_ps(
          range->finite_maxima, _mm256_castsi256_ps(_mm256_and_si256(bits, magnitude_mask)));
    }
    __m256d low, high;
    if (kWithSpecials) {
      const __m256 value = _mm256_castsi256_ps(bits);
      low = _mm256_cvtps_pd(_mm256_castps256_ps128(value));
      high = _mm256_cvtps_pd(_mm256_extractf128_ps(value, 1));
    } else {
      // Converted straight from memory: one shuffle less per eight values.
      low = _mm256_cvtps_pd(_mm_loadu_ps(at + i));
      high = _mm256_cvtps_pd(_mm_loadu_ps(at + i + 4));
    }
    sums->sums_low = _mm256_add_pd(sums->sums_low, low);
    sums->sums_high = _mm256_add_pd(sums->sums_high, high);
    // The square of a float is exact in double, so the fused form rounds exactly like a product
    // and a sum (the portable path).
    sums->squares_low = _mm256_fmadd_pd(low, low, sums->squares_low);
    sums->squares_high = _mm256_fmadd_pd(high, high, sums->squares_high);
  }
}

__attribute__((target("avx2"))) uint32_t LaneMax(__m256i lanes_vector) {
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), lanes_vector);
  uint32_t largest = 0;
  for (uint32_t lane : lanes) largest = lane > largest ? lane : largest;
  return largest;
}

__attribute__((target("avx2"))) uint32_t LaneMin(__m256i lanes_vector) {
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), lanes_vector);
  uint32_t smallest = 0xffffffffu;
  for (uint32_t lane : lanes) smallest = lane < smallest ? lane : smallest;
  return smallest;
}

__attribute__((target("avx2,fma"))) size_t AddBlocksAvx2(const DecadeBounds& bounds,
                                                         const float* values, size_t count,
                                                         Accumulators* acc) {
  Avx2Sums sums{_mm256_loadu_pd(acc->sums), _mm256_loadu_pd(acc->sums + 4),
                _mm256_loadu_pd(acc->squares), _mm256_loadu_pd(acc->squares + 4)};
  uint32_t max_abs_bits = FloatBits(acc->max_abs);
  uint64_t at_or_above[kGradientHistogramBins - 1] = {};
  // 2 KB: small enough that a chunk spans few decades (fewer bounds to compare), large enough
  // that the per-chunk reductions cost little.
  constexpr size_t kChunk = 512;
  const size_t blocks_end = count - count % kLanes;
  size_t non_finite = 0;
  for (size_t begin = 0; begin < blocks_end; begin += kChunk) {
    const size_t chunk = blocks_end - begin < kChunk ? blocks_end - begin : kChunk;
    const float* at = values + begin;
    const Avx2Sums before_chunk = sums;
    Avx2ChunkRange range;
    ChunkPass<false>(at, chunk, &sums, &range);
    const uint32_t chunk_largest = LaneMax(range.largest);
    if (chunk_largest >= 0x7f800000u) {  // NaN or Inf in this chunk: count them apart
      sums = before_chunk;
      ChunkPass<true>(at, chunk, &sums, &range);
      non_finite += LaneSum(range.specials);
      const uint32_t finite_largest = LaneMax(_mm256_castps_si256(range.finite_maxima));
      max_abs_bits = finite_largest > max_abs_bits ? finite_largest : max_abs_bits;
    } else {
      max_abs_bits = chunk_largest > max_abs_bits ? chunk_largest : max_abs_bits;
    }
    // All zeros: the smallest non-zero is "above everything", so every bound resolves to 0.
    const uint32_t smallest_less_one = LaneMin(range.smallest_nonzero_less_one);
    const uint32_t chunk_smallest_nonzero =
        smallest_less_one == 0xffffffffu ? 0xffffffffu : smallest_less_one + 1;
    CountChunkAtOrAbove(at, chunk, bounds, chunk_smallest_nonzero, chunk_largest,
                        LaneSum(range.zeros), at_or_above);
  }
  _mm256_storeu_pd(acc->sums, sums.sums_low);
  _mm256_storeu_pd(acc->sums + 4, sums.sums_high);
  _mm256_storeu_pd(acc->squares, sums.squares_low);
  _mm256_storeu_pd(acc->squares + 4, sums.squares_high);
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
#endif

}  // namespace

// One pass over the values computes everything; NaN and Inf are counted apart only when the
// pass saw any (a healthy gradient has none).
GradientStatsEvent ComputeGradientStats(const float* values, size_t count) {
  static const BinadeTable table;
  GradientStatsEvent stats;
  if (values == nullptr) return stats;
  Accumulators acc;
#if defined(TRAINSCOPE_AVX2_PATH)
  static const DecadeBounds bounds;
  size_t i = HostHasAvx2() ? AddBlocksAvx2(bounds, values, count, &acc)
                           : AddBlocks(table, values, count, &acc);
#else
  size_t i = AddBlocks(table, values, count, &acc);
#endif
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

}  // namespace trainscope
