// SPDX-License-Identifier: Apache-2.0
#include "engine/train/square_sums.h"

#include <cfloat>

#include "engine/train/host_simd.h"

#if defined(TRAINSCOPE_AVX2_PATH)
#include <immintrin.h>
#endif

namespace trainscope {
namespace {

// Thirty-two lanes: four vectors of eight, so that no addition waits on the one before it.
constexpr size_t kLanes = 32;

// Float lanes are summed over at most this many values before they are added in double.
constexpr size_t kChunk = 1024;

// Below this, a lane's float sum may have lost squares to underflow.
constexpr float kSmallestTrustedLane = 0x1p-60f;

// What is squared: the values themselves, or the differences of two buffers.
struct Values {
  const float* values;
  float At(size_t i) const { return values[i]; }
#if defined(TRAINSCOPE_AVX2_PATH)
  __attribute__((target("avx2"))) __m256 Eight(size_t i) const {
    return _mm256_loadu_ps(values + i);
  }
#endif
};

struct Differences {
  const float* a;
  const float* b;
  float At(size_t i) const { return a[i] - b[i]; }
#if defined(TRAINSCOPE_AVX2_PATH)
  __attribute__((target("avx2"))) __m256 Eight(size_t i) const {
    return _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
  }
#endif
};

// Whole blocks of kLanes in [begin, end), in float, square then add (never fused, so that both
// paths round alike).
template <typename Source>
void ChunkLanes(const Source& source, size_t begin, size_t end, float lanes[kLanes]) {
  for (size_t lane = 0; lane < kLanes; ++lane) lanes[lane] = 0.0f;
  for (size_t i = begin; i < end; i += kLanes) {
    for (size_t lane = 0; lane < kLanes; ++lane) {
      const float x = source.At(i + lane);
      lanes[lane] += x * x;
    }
  }
}

#if defined(TRAINSCOPE_AVX2_PATH)
template <typename Source>
__attribute__((target("avx2"))) void ChunkLanesAvx2(const Source& source, size_t begin, size_t end,
                                                    float lanes[kLanes]) {
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = begin; i < end; i += kLanes) {
    const __m256 x0 = source.Eight(i), x1 = source.Eight(i + 8);
    const __m256 x2 = source.Eight(i + 16), x3 = source.Eight(i + 24);
    s0 = _mm256_add_ps(s0, _mm256_mul_ps(x0, x0));
    s1 = _mm256_add_ps(s1, _mm256_mul_ps(x1, x1));
    s2 = _mm256_add_ps(s2, _mm256_mul_ps(x2, x2));
    s3 = _mm256_add_ps(s3, _mm256_mul_ps(x3, x3));
  }
  _mm256_storeu_ps(lanes, s0);
  _mm256_storeu_ps(lanes + 8, s1);
  _mm256_storeu_ps(lanes + 16, s2);
  _mm256_storeu_ps(lanes + 24, s3);
}

template <typename Source>
__attribute__((target("avx2"))) double ChunkInDoubleAvx2(const Source& source, size_t begin,
                                                         size_t end) {
  __m256d sums[kLanes / 4];
  for (__m256d& sum : sums) sum = _mm256_setzero_pd();
  // Rarely taken (tiny, huge or non-finite values), so one vector at a time is fast enough.
  for (size_t i = begin; i < end; i += 8) {
    const size_t k = (i - begin) % kLanes / 4;
    const __m256 x = source.Eight(i);
    const __m256d low = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
    const __m256d high = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
    sums[k] = _mm256_add_pd(sums[k], _mm256_mul_pd(low, low));
    sums[k + 1] = _mm256_add_pd(sums[k + 1], _mm256_mul_pd(high, high));
  }
  alignas(32) double lanes[kLanes];
  for (size_t k = 0; k < kLanes / 4; ++k) _mm256_store_pd(lanes + 4 * k, sums[k]);
  double total = 0.0;
  for (double lane : lanes) total += lane;
  return total;
}
#endif

// The same chunk in double, where the square of a float is exact and cannot overflow.
template <typename Source>
double ChunkInDouble(const Source& source, size_t begin, size_t end) {
  double lanes[kLanes] = {};
  for (size_t i = begin; i < end; i += kLanes) {
    for (size_t lane = 0; lane < kLanes; ++lane) {
      const double x = source.At(i + lane);
      lanes[lane] += x * x;
    }
  }
  double total = 0.0;
  for (double lane : lanes) total += lane;
  return total;
}

template <typename Source>
double SumSquaresInDouble(const Source& source, size_t count) {
  const size_t runs_end = count - count % kLanes;
  double total = 0.0;
  if (runs_end > 0) {
#if defined(TRAINSCOPE_AVX2_PATH)
    total =
        HostHasAvx2() ? ChunkInDoubleAvx2(source, 0, runs_end) : ChunkInDouble(source, 0, runs_end);
#else
    total = ChunkInDouble(source, 0, runs_end);
#endif
  }
  for (size_t i = runs_end; i < count; ++i) {
    const double x = source.At(i);
    total += x * x;
  }
  return total;
}

}  // namespace

bool SquareLanesAreTrusted(const float* lanes, size_t lane_count) {
  float largest = 0.0f;
  for (size_t lane = 0; lane < lane_count; ++lane) {
    if (!(lanes[lane] <= FLT_MAX)) return false;
    largest = lanes[lane] > largest ? lanes[lane] : largest;
  }
  return largest >= kSmallestTrustedLane;
}

double SumOfSquares(const float* values, size_t count) {
  const Values source{values};
#if defined(TRAINSCOPE_AVX2_PATH)
  const bool avx2 = HostHasAvx2();
#endif
  const size_t runs_end = count - count % kLanes;
  double total = 0.0;
  for (size_t begin = 0; begin < runs_end; begin += kChunk) {
    const size_t end = runs_end - begin < kChunk ? runs_end : begin + kChunk;
    float lanes[kLanes];
#if defined(TRAINSCOPE_AVX2_PATH)
    if (avx2) {
      ChunkLanesAvx2(source, begin, end, lanes);
    } else {
      ChunkLanes(source, begin, end, lanes);
    }
#else
    ChunkLanes(source, begin, end, lanes);
#endif
    if (!SquareLanesAreTrusted(lanes, kLanes)) {
      total += SumSquaresInDouble(Values{values + begin}, end - begin);
      continue;
    }
    for (float lane : lanes) total += static_cast<double>(lane);
  }
  return total + SumSquaresInDouble(Values{values + runs_end}, count - runs_end);
}

double SumOfSquaresInDouble(const float* values, size_t count) {
  return SumSquaresInDouble(Values{values}, count);
}

double SumOfSquaredDifferencesInDouble(const float* a, const float* b, size_t count) {
  return SumSquaresInDouble(Differences{a, b}, count);
}

}  // namespace trainscope
