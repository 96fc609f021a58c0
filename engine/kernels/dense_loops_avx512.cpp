// SPDX-License-Identifier: Apache-2.0
//
// The AVX-512 path of MatrixMultiplyAdd (dense_loops.h), compiled for x86-64 only and called only
// when the CPU and the OS support AVX-512F. Blocks of C are R rows x V vectors of 16 floats, with
// as many accumulators; columns past the end are masked off (neither read nor written). The
// convolutions' products are all MatrixMultiplyAdd's, so this doubles their vector width; the
// other dense products keep their AVX2 code.
#include "engine/train/host_simd.h"

#if defined(TRAINSCOPE_AVX2_PATH)

#include <immintrin.h>

#include <algorithm>

#include "engine/kernels/dense_loops.h"

#define TS_AVX512 __attribute__((target("avx512f")))

namespace trainscope {
namespace {

// Lanes [0, count) of a 16-float vector (count <= 0: none, >= 16: all).
inline __mmask16 LaneMask16(int count) {
  if (count <= 0) return 0;
  if (count >= 16) return 0xffff;
  return static_cast<__mmask16>((1u << count) - 1u);
}

template <int R, int V>
TS_AVX512 void MultiplyAddBlock(int cols_left, int inner, const float* a, int a_row, int a_col,
                                const float* b, int b_row, float* c, int c_row) {
  __mmask16 mask[V];
  __m512 acc[R][V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) mask[v] = LaneMask16(cols_left - 16 * v);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  for (int j = 0; j < inner; ++j) {
    __m512 bv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) bv[v] = _mm512_maskz_loadu_ps(mask[v], b + j * b_row + 16 * v);
    const float* a_j = a + j * a_col;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 scale = _mm512_set1_ps(a_j[r * a_row]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(scale, bv[v], acc[r][v]);
    }
  }
  // Row by row, load, add, store: rows of C may overlap (see dense_loops.h).
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      float* p = c + r * c_row + 16 * v;
      _mm512_mask_storeu_ps(p, mask[v],
                            _mm512_add_ps(_mm512_maskz_loadu_ps(mask[v], p), acc[r][v]));
    }
  }
}

// Calls the R-row block for `rows` (1 <= rows <= R).
template <int R, int V>
TS_AVX512 void MultiplyAddFewRows(int rows, int cols_left, int inner, const float* a, int a_row,
                                  int a_col, const float* b, int b_row, float* c, int c_row) {
  if (rows == R) {
    return MultiplyAddBlock<R, V>(cols_left, inner, a, a_row, a_col, b, b_row, c, c_row);
  }
  if constexpr (R > 1) {
    MultiplyAddFewRows<R - 1, V>(rows, cols_left, inner, a, a_row, a_col, b, b_row, c, c_row);
  }
}

// Blocks of kRows rows; the last blocks split evenly so that none is left with a row or two.
template <int kRows, int V>
TS_AVX512 void MultiplyAddColumns(int rows, int cols_left, int inner, const float* a, int a_row,
                                  int a_col, const float* b, int b_row, float* c, int c_row) {
  for (int m = 0; m < rows;) {
    const int left = rows - m;
    const int take = left > kRows && left < kRows + 3 ? (left + 1) / 2 : std::min(left, kRows);
    MultiplyAddFewRows<kRows, V>(take, cols_left, inner, a + m * a_row, a_row, a_col, b, b_row,
                                 c + m * c_row, c_row);
    m += take;
  }
}

}  // namespace

// 32-column blocks with 8 rows (16 accumulators); a last block of at most 16 columns with 12
// rows, so a narrow C (16 output channels) still has 12 independent sums.
TS_AVX512 void MatrixMultiplyAddAvx512(int rows, int cols, int inner, const float* a, int a_row,
                                       int a_col, const float* b, int b_row, float* c, int c_row) {
  int n = 0;
  for (; cols - n > 16; n += 32) {
    MultiplyAddColumns<8, 2>(rows, cols - n, inner, a, a_row, a_col, b + n, b_row, c + n, c_row);
  }
  if (n < cols) {
    MultiplyAddColumns<12, 1>(rows, cols - n, inner, a, a_row, a_col, b + n, b_row, c + n, c_row);
  }
}

}  // namespace trainscope

#endif  // TRAINSCOPE_AVX2_PATH
