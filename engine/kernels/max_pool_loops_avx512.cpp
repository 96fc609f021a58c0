// SPDX-License-Identifier: Apache-2.0
//
// MAX_POOL_2D's windows with AVX-512 (max_pool_2d.cpp calls them when the CPU has it): sixteen
// channels a vector, one output pixel at a time. A compare and a masked move per window cell keep
// the maximum (and, backward, the number of the cell that holds it); backward then adds dz into
// the winning cell of each lane with a masked add. Compares and moves round nothing and each
// winner receives the same additions in the same order, so the results are the portable loops'
// to the bit.
#include "engine/train/host_simd.h"

#if defined(TRAINSCOPE_AVX2_PATH)

#include <immintrin.h>

#include "engine/kernels/window_geometry.h"

#define TS_AVX512 __attribute__((target("avx512f")))

namespace trainscope {
namespace {

// Lanes [0, count) of a 16-float vector (count >= 16: all).
inline __mmask16 Lanes(int count) {
  return count >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << count) - 1u);
}

}  // namespace

TS_AVX512 void MaxPoolForwardAvx512(const WindowGeometry& g, const float* x, float* y) {
  const int channels = g.in_c;
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    float* y_pixel = y + p * channels;
    for (int c = 0; c < channels; c += 16) {
      const __mmask16 lanes = Lanes(channels - c);
      __m512 best = _mm512_setzero_ps();  // a window wholly in the padding gives 0
      bool first = true;
      for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
        for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
          const __m512 v =
              _mm512_maskz_loadu_ps(lanes, x + InputPixel(g, taps, ky, kx) * channels + c);
          best = first ? v : _mm512_mask_mov_ps(best, _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ), v);
          first = false;
        }
      }
      _mm512_mask_storeu_ps(y_pixel + c, lanes, best);
    }
  }
}

TS_AVX512 void MaxPoolBackwardAvx512(const WindowGeometry& g, const float* x, const float* dz,
                                     float* dx) {
  const int channels = g.in_c;
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    if (taps.Count() == 0) continue;
    for (int c = 0; c < channels; c += 16) {
      const __mmask16 lanes = Lanes(channels - c);
      __m512 best = _mm512_setzero_ps();
      __m512i winner = _mm512_setzero_si512();
      int number = 0;
      for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
        for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx, ++number) {
          const __m512 v =
              _mm512_maskz_loadu_ps(lanes, x + InputPixel(g, taps, ky, kx) * channels + c);
          if (number == 0) {
            best = v;
            continue;
          }
          const __mmask16 wins = _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ);
          best = _mm512_mask_mov_ps(best, wins, v);
          winner = _mm512_mask_mov_epi32(winner, wins, _mm512_set1_epi32(number));
        }
      }
      const __m512 gradient = _mm512_maskz_loadu_ps(lanes, dz + p * channels + c);
      number = 0;
      for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
        for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx, ++number) {
          const __mmask16 won = lanes & _mm512_cmpeq_epi32_mask(winner, _mm512_set1_epi32(number));
          if (won == 0) continue;
          float* cell = dx + InputPixel(g, taps, ky, kx) * channels + c;
          _mm512_mask_storeu_ps(cell, won,
                                _mm512_add_ps(_mm512_maskz_loadu_ps(won, cell), gradient));
        }
      }
    }
  }
}

}  // namespace trainscope

#endif  // TRAINSCOPE_AVX2_PATH
