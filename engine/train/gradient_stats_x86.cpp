// SPDX-License-Identifier: Apache-2.0
//
// The AVX2 and AVX-512 chunk passes of ComputeGradientStats (gradient_stats_paths.h), compiled
// for x86-64 only and called only when the CPU has the instructions. Each keeps the sixteen
// double lanes of sums and of squares in registers (four 4-double vectors with AVX2, two
// 8-double vectors with AVX-512), so the result is the portable path's to the bit.
#include "engine/train/gradient_stats_paths.h"

#if defined(TRAINSCOPE_AVX2_PATH)

#include <immintrin.h>

#define TS_STATS_AVX2 __attribute__((target("avx2,fma")))
#define TS_STATS_AVX512 __attribute__((target("avx512f")))

namespace trainscope {
namespace gradient_stats_internal {
namespace {

constexpr uint32_t kMagnitudeMask = 0x7fffffffu;
constexpr uint32_t kExponentMask = 0x7f800000u;

// ---- AVX2: 8 values a vector, two per block of sixteen lanes.

TS_STATS_AVX2 uint32_t LaneMax(__m256i lanes_vector) {
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), lanes_vector);
  uint32_t largest = 0;
  for (uint32_t lane : lanes) largest = lane > largest ? lane : largest;
  return largest;
}

TS_STATS_AVX2 uint32_t LaneMin(__m256i lanes_vector) {
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), lanes_vector);
  uint32_t smallest = 0xffffffffu;
  for (uint32_t lane : lanes) smallest = lane < smallest ? lane : smallest;
  return smallest;
}

TS_STATS_AVX2 uint32_t LaneSum(__m256i lanes_vector) {
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), lanes_vector);
  uint32_t sum = 0;
  for (uint32_t lane : lanes) sum += lane;
  return sum;
}

template <bool kWithSpecials>
TS_STATS_AVX2 ChunkRange PassAvx2(const float* at, size_t count, double* sums_io,
                                  double* squares_io) {
  __m256d sums[4], squares[4];  // lanes 4k .. 4k+3
  for (int k = 0; k < 4; ++k) {
    sums[k] = _mm256_loadu_pd(sums_io + 4 * k);
    squares[k] = _mm256_loadu_pd(squares_io + 4 * k);
  }
  const __m256i magnitude_mask = _mm256_set1_epi32(static_cast<int>(kMagnitudeMask));
  const __m256i exponent_mask = _mm256_set1_epi32(static_cast<int>(kExponentMask));
  const __m256i one = _mm256_set1_epi32(1);
  __m256i largest = _mm256_setzero_si256();
  __m256i smallest_less_one = _mm256_set1_epi32(-1);  // zero wraps to the largest value
  __m256i zeros = _mm256_setzero_si256();
  __m256i specials = _mm256_setzero_si256();
  __m256i finite_largest = _mm256_setzero_si256();
  for (size_t i = 0; i < count; i += kStatsLanes) {
    for (int h = 0; h < 2; ++h) {
      const float* p = at + i + 8 * h;
      __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      const __m256i magnitude = _mm256_and_si256(bits, magnitude_mask);
      largest = _mm256_max_epu32(largest, magnitude);
      smallest_less_one = _mm256_min_epu32(smallest_less_one, _mm256_sub_epi32(magnitude, one));
      zeros = _mm256_sub_epi32(zeros, _mm256_cmpeq_epi32(magnitude, _mm256_setzero_si256()));
      __m256d low, high;
      if (kWithSpecials) {
        const __m256i special =
            _mm256_cmpeq_epi32(_mm256_and_si256(bits, exponent_mask), exponent_mask);
        specials = _mm256_sub_epi32(specials, special);
        bits = _mm256_andnot_si256(special, bits);
        finite_largest = _mm256_max_epu32(finite_largest, _mm256_and_si256(bits, magnitude_mask));
        const __m256 value = _mm256_castsi256_ps(bits);
        low = _mm256_cvtps_pd(_mm256_castps256_ps128(value));
        high = _mm256_cvtps_pd(_mm256_extractf128_ps(value, 1));
      } else {
        // Converted straight from memory: one shuffle less per eight values.
        low = _mm256_cvtps_pd(_mm_loadu_ps(p));
        high = _mm256_cvtps_pd(_mm_loadu_ps(p + 4));
      }
      sums[2 * h] = _mm256_add_pd(sums[2 * h], low);
      sums[2 * h + 1] = _mm256_add_pd(sums[2 * h + 1], high);
      // The square of a float is exact in double, so the fused form rounds exactly like a
      // product and a sum (the portable path).
      squares[2 * h] = _mm256_fmadd_pd(low, low, squares[2 * h]);
      squares[2 * h + 1] = _mm256_fmadd_pd(high, high, squares[2 * h + 1]);
    }
  }
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_pd(sums_io + 4 * k, sums[k]);
    _mm256_storeu_pd(squares_io + 4 * k, squares[k]);
  }
  ChunkRange range;
  range.largest = LaneMax(largest);
  const uint32_t smallest = LaneMin(smallest_less_one);
  range.smallest_nonzero = smallest == 0xffffffffu ? smallest : smallest + 1;
  range.zeros = LaneSum(zeros);
  if (kWithSpecials) {
    range.non_finite = LaneSum(specials);
    range.finite_largest = LaneMax(finite_largest);
  }
  return range;
}

ChunkRange ChunkPassAvx2(const float* at, size_t count, bool with_specials, double* sums,
                         double* squares) {
  return with_specials ? PassAvx2<true>(at, count, sums, squares)
                       : PassAvx2<false>(at, count, sums, squares);
}

template <int kGroup>
TS_STATS_AVX2 void CountAboveAvx2(const float* values, size_t count, const int32_t* below,
                                  int first, int last, uint64_t* at_or_above) {
  __m256i counts[kGroup];
  __m256i limits[kGroup];
  for (int j = 0; j < kGroup; ++j) {
    counts[j] = _mm256_setzero_si256();
    limits[j] = _mm256_set1_epi32(below[first + j < last ? first + j : first]);
  }
  const __m256i magnitude_mask = _mm256_set1_epi32(static_cast<int>(kMagnitudeMask));
  for (size_t i = 0; i < count; i += 8) {
    const __m256i magnitude = _mm256_and_si256(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(values + i)), magnitude_mask);
    for (int j = 0; j < kGroup; ++j) {
      counts[j] = _mm256_sub_epi32(counts[j], _mm256_cmpgt_epi32(magnitude, limits[j]));
    }
  }
  for (int j = 0; j < kGroup && first + j < last; ++j) at_or_above[first + j] += LaneSum(counts[j]);
}

void CountAboveBoundsAvx2(const float* values, size_t count, const int32_t* below, int first,
                          int last, uint64_t* at_or_above) {
  if (last - first <= 4) {
    CountAboveAvx2<4>(values, count, below, first, last, at_or_above);
  } else {
    CountAboveAvx2<8>(values, count, below, first, last, at_or_above);
  }
}

// ---- AVX-512: 16 values a vector, one per block.

// GCC 12's unmasked AVX-512 intrinsics pass an _mm512_undefined_*() they then warn about (GCC bug
// 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

template <bool kWithSpecials>
TS_STATS_AVX512 ChunkRange PassAvx512(const float* at, size_t count, double* sums_io,
                                      double* squares_io) {
  __m512d sums_low = _mm512_loadu_pd(sums_io), sums_high = _mm512_loadu_pd(sums_io + 8);
  __m512d squares_low = _mm512_loadu_pd(squares_io);
  __m512d squares_high = _mm512_loadu_pd(squares_io + 8);
  const __m512i magnitude_mask = _mm512_set1_epi32(static_cast<int>(kMagnitudeMask));
  const __m512i exponent_mask = _mm512_set1_epi32(static_cast<int>(kExponentMask));
  const __m512i one = _mm512_set1_epi32(1);
  __m512i largest = _mm512_setzero_si512();
  __m512i smallest_less_one = _mm512_set1_epi32(-1);
  __m512i zeros = _mm512_setzero_si512();
  __m512i specials = _mm512_setzero_si512();
  __m512i finite_largest = _mm512_setzero_si512();
  for (size_t i = 0; i < count; i += kStatsLanes) {
    __m512i bits = _mm512_loadu_si512(at + i);
    const __m512i magnitude = _mm512_and_si512(bits, magnitude_mask);
    largest = _mm512_max_epu32(largest, magnitude);
    smallest_less_one = _mm512_min_epu32(smallest_less_one, _mm512_sub_epi32(magnitude, one));
    zeros = _mm512_mask_add_epi32(zeros, _mm512_testn_epi32_mask(magnitude, magnitude), zeros, one);
    __m512d low, high;
    if (kWithSpecials) {
      const __mmask16 special =
          _mm512_cmpeq_epi32_mask(_mm512_and_si512(bits, exponent_mask), exponent_mask);
      specials = _mm512_mask_add_epi32(specials, special, specials, one);
      bits = _mm512_mask_mov_epi32(bits, special, _mm512_setzero_si512());
      finite_largest = _mm512_max_epu32(finite_largest, _mm512_and_si512(bits, magnitude_mask));
      const __m512d halves = _mm512_castsi512_pd(bits);
      low = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_castpd512_pd256(halves)));
      high = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(halves, 1)));
    } else {
      low = _mm512_cvtps_pd(_mm256_loadu_ps(at + i));
      high = _mm512_cvtps_pd(_mm256_loadu_ps(at + i + 8));
    }
    sums_low = _mm512_add_pd(sums_low, low);
    sums_high = _mm512_add_pd(sums_high, high);
    squares_low = _mm512_fmadd_pd(low, low, squares_low);
    squares_high = _mm512_fmadd_pd(high, high, squares_high);
  }
  _mm512_storeu_pd(sums_io, sums_low);
  _mm512_storeu_pd(sums_io + 8, sums_high);
  _mm512_storeu_pd(squares_io, squares_low);
  _mm512_storeu_pd(squares_io + 8, squares_high);
  ChunkRange range;
  range.largest = _mm512_reduce_max_epu32(largest);
  const uint32_t smallest = _mm512_reduce_min_epu32(smallest_less_one);
  range.smallest_nonzero = smallest == 0xffffffffu ? smallest : smallest + 1;
  range.zeros = static_cast<uint32_t>(_mm512_reduce_add_epi32(zeros));
  if (kWithSpecials) {
    range.non_finite = static_cast<uint32_t>(_mm512_reduce_add_epi32(specials));
    range.finite_largest = _mm512_reduce_max_epu32(finite_largest);
  }
  return range;
}

ChunkRange ChunkPassAvx512(const float* at, size_t count, bool with_specials, double* sums,
                           double* squares) {
  return with_specials ? PassAvx512<true>(at, count, sums, squares)
                       : PassAvx512<false>(at, count, sums, squares);
}

template <int kGroup>
TS_STATS_AVX512 void CountAboveAvx512(const float* values, size_t count, const int32_t* below,
                                      int first, int last, uint64_t* at_or_above) {
  __m512i counts[kGroup];
  __m512i limits[kGroup];
  for (int j = 0; j < kGroup; ++j) {
    counts[j] = _mm512_setzero_si512();
    limits[j] = _mm512_set1_epi32(below[first + j < last ? first + j : first]);
  }
  const __m512i magnitude_mask = _mm512_set1_epi32(static_cast<int>(kMagnitudeMask));
  const __m512i one = _mm512_set1_epi32(1);
  for (size_t i = 0; i < count; i += kStatsLanes) {
    const __m512i magnitude = _mm512_and_si512(_mm512_loadu_si512(values + i), magnitude_mask);
    for (int j = 0; j < kGroup; ++j) {
      counts[j] = _mm512_mask_add_epi32(counts[j], _mm512_cmpgt_epi32_mask(magnitude, limits[j]),
                                        counts[j], one);
    }
  }
  for (int j = 0; j < kGroup && first + j < last; ++j) {
    at_or_above[first + j] += static_cast<uint32_t>(_mm512_reduce_add_epi32(counts[j]));
  }
}

void CountAboveBoundsAvx512(const float* values, size_t count, const int32_t* below, int first,
                            int last, uint64_t* at_or_above) {
  if (last - first <= 4) {
    CountAboveAvx512<4>(values, count, below, first, last, at_or_above);
  } else {
    CountAboveAvx512<8>(values, count, below, first, last, at_or_above);
  }
}

#pragma GCC diagnostic pop

}  // namespace

const VectorStatsPath kAvx2StatsPath{ChunkPassAvx2, CountAboveBoundsAvx2};
const VectorStatsPath kAvx512StatsPath{ChunkPassAvx512, CountAboveBoundsAvx512};

}  // namespace gradient_stats_internal
}  // namespace trainscope

#endif  // TRAINSCOPE_AVX2_PATH
