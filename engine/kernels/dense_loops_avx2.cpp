// SPDX-License-Identifier: Apache-2.0
//
// The AVX2/FMA paths of dense_loops.h, compiled for x86-64 only and called only after
// HostHasAvx2(). Each product is cut into register blocks: a fixed number of rows times a fixed
// number of 8-float vectors (or, for the dot products of DenseForward and
// MatrixMultiplyTransposedAdd, of outputs each summed in a vector), in as many independent
// accumulators, so the fused multiply-adds do not wait on each other. Depths that are not a
// multiple of 8 end with a masked vector (masked-off lanes are neither read nor written).
#include "engine/train/host_simd.h"

#if defined(TRAINSCOPE_AVX2_PATH)

#include <immintrin.h>

#include "engine/kernels/dense_loops.h"

#define TS_AVX2 __attribute__((target("avx2,fma")))

namespace trainscope {
namespace {

// Lanes [0, count) set; count may be anything (<= 0: none, >= 8: all).
TS_AVX2 inline __m256i LaneMask(int count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

TS_AVX2 inline __m256 Load(const float* p, bool masked, __m256i mask) {
  return masked ? _mm256_maskload_ps(p, mask) : _mm256_loadu_ps(p);
}

TS_AVX2 inline void Store(float* p, __m256 v, bool masked, __m256i mask) {
  if (masked) {
    _mm256_maskstore_ps(p, mask, v);
  } else {
    _mm256_storeu_ps(p, v);
  }
}

TS_AVX2 inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// ---- DenseForward: R rows x O outputs, each a dot product over the whole depth.

template <int R, int O>
TS_AVX2 inline void ForwardStep(const float* x, int depth, const float* w, int k, bool masked,
                                __m256i mask, __m256 (&acc)[R][O]) {
  __m256 xv[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) xv[r] = Load(x + r * depth + k, masked, mask);
#pragma GCC unroll 16
  for (int o = 0; o < O; ++o) {
    const __m256 wv = Load(w + o * depth + k, masked, mask);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r][o] = _mm256_fmadd_ps(xv[r], wv, acc[r][o]);
  }
}

template <int R, int O>
TS_AVX2 void ForwardBlock(const float* x, int depth, const float* w, const float* bias, int out,
                          float* y) {
  __m256 acc[R][O];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int o = 0; o < O; ++o) acc[r][o] = _mm256_setzero_ps();
  }
  int k = 0;
  for (; k + 8 <= depth; k += 8) ForwardStep<R, O>(x, depth, w, k, false, __m256i(), acc);
  if (k < depth) ForwardStep<R, O>(x, depth, w, k, true, LaneMask(depth - k), acc);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int o = 0; o < O; ++o) {
      y[r * out + o] = (bias != nullptr ? bias[o] : 0.0f) + HorizontalSum(acc[r][o]);
    }
  }
}

template <int R, int O>
TS_AVX2 void ForwardRows(const float* x, int depth, const float* w, int out, const float* bias,
                         float* y) {
  int o = 0;
  for (; o + O <= out; o += O) {
    ForwardBlock<R, O>(x, depth, w + o * depth, bias != nullptr ? bias + o : nullptr, out, y + o);
  }
  for (; o < out; ++o) {
    ForwardBlock<R, 1>(x, depth, w + o * depth, bias != nullptr ? bias + o : nullptr, out, y + o);
  }
}

// ---- DenseInputGradient: R rows x V vectors of DX, summed over every output.

template <int R, int V, bool kMasked>
TS_AVX2 void InputGradientBlock(const float* dz, int out, const float* w, int depth, int k,
                                float* dx) {
  __m256i mask[V];
  __m256 acc[R][V];
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) {
    mask[v] = kMasked ? LaneMask(depth - k - 8 * v) : __m256i();
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r][v] = _mm256_setzero_ps();
  }
  for (int o = 0; o < out; ++o) {
    bool all_zero = true;
    __m256 g[R];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      all_zero = all_zero && dz[r * out + o] == 0.0f;
      g[r] = _mm256_broadcast_ss(dz + r * out + o);
    }
    if (all_zero) continue;
    const float* w_row = w + o * depth + k;
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) {
      const __m256 wv = Load(w_row + 8 * v, kMasked, mask[v]);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) acc[r][v] = _mm256_fmadd_ps(g[r], wv, acc[r][v]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) {
      float* p = dx + r * depth + k + 8 * v;
      Store(p, _mm256_add_ps(Load(p, kMasked, mask[v]), acc[r][v]), kMasked, mask[v]);
    }
  }
}

template <int R, int V>
TS_AVX2 void InputGradientRows(const float* dz, int out, const float* w, int depth, float* dx) {
  int k = 0;
  for (; k + 8 * V <= depth; k += 8 * V) InputGradientBlock<R, V, false>(dz, out, w, depth, k, dx);
  if (k < depth) InputGradientBlock<R, V, true>(dz, out, w, depth, k, dx);
}

// ---- DenseWeightGradient: O rows x V vectors of DW, summed over every input row.

template <int O, int V, bool kMasked>
TS_AVX2 void WeightGradientBlock(const float* dz, int rows, int out, const float* x, int depth,
                                 int k, float* dw) {
  __m256i mask[V];
  __m256 acc[O][V];
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) {
    mask[v] = kMasked ? LaneMask(depth - k - 8 * v) : __m256i();
#pragma GCC unroll 16
    for (int o = 0; o < O; ++o) acc[o][v] = Load(dw + o * depth + k + 8 * v, kMasked, mask[v]);
  }
  for (int r = 0; r < rows; ++r) {
    __m256 xv[V];
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) xv[v] = Load(x + r * depth + k + 8 * v, kMasked, mask[v]);
#pragma GCC unroll 16
    for (int o = 0; o < O; ++o) {
      const __m256 g = _mm256_broadcast_ss(dz + r * out + o);
#pragma GCC unroll 16
      for (int v = 0; v < V; ++v) acc[o][v] = _mm256_fmadd_ps(g, xv[v], acc[o][v]);
    }
  }
#pragma GCC unroll 16
  for (int o = 0; o < O; ++o) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) Store(dw + o * depth + k + 8 * v, acc[o][v], kMasked, mask[v]);
  }
}

template <int O, int V>
TS_AVX2 void WeightGradientOutputs(const float* dz, int rows, int out, const float* x, int depth,
                                   float* dw) {
  int k = 0;
  for (; k + 8 * V <= depth; k += 8 * V) {
    WeightGradientBlock<O, V, false>(dz, rows, out, x, depth, k, dw);
  }
  if (k < depth) WeightGradientBlock<O, V, true>(dz, rows, out, x, depth, k, dw);
}

// One input row: DW[o] += DZ[o] * X, skipping the outputs whose gradient is zero.
TS_AVX2 void WeightGradientOneRow(const float* dz, RowRange trained, const float* x, int depth,
                                  float* dw) {
  for (int o = trained.begin; o < trained.end; ++o) {
    const float g_scalar = dz[o];
    if (g_scalar == 0.0f) continue;
    const __m256 g = _mm256_set1_ps(g_scalar);
    float* dw_row = dw + (o - trained.begin) * depth;
    int k = 0;
    for (; k + 32 <= depth; k += 32) {
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        float* p = dw_row + k + 8 * v;
        _mm256_storeu_ps(p, _mm256_fmadd_ps(g, _mm256_loadu_ps(x + k + 8 * v), _mm256_loadu_ps(p)));
      }
    }
    for (; k < depth; k += 8) {
      const __m256i mask = LaneMask(depth - k);
      const __m256 sum =
          _mm256_fmadd_ps(g, _mm256_maskload_ps(x + k, mask), _mm256_maskload_ps(dw_row + k, mask));
      _mm256_maskstore_ps(dw_row + k, mask, sum);
    }
  }
}

// ---- MatrixMultiplyTransposedAdd: R rows x O columns of C, each a vector of 8 partial sums.

template <int R, int O, bool kMasked>
TS_AVX2 inline void DotStep(const float* a, int a_row, const float* b, int b_row, __m256i mask,
                            __m256 (&acc)[R][O]) {
  __m256 av[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) av[r] = Load(a + r * a_row, kMasked, mask);
#pragma GCC unroll 8
  for (int o = 0; o < O; ++o) {
    const __m256 bv = Load(b + o * b_row, kMasked, mask);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[r][o] = _mm256_fmadd_ps(av[r], bv, acc[r][o]);
  }
}

template <int R, int O>
TS_AVX2 void DotBlock(int segments, int length, const float* a, int a_row, int a_segment,
                      const float* b, int b_row, float* c, int c_row) {
  __m256 acc[R][O];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
    for (int o = 0; o < O; ++o) acc[r][o] = _mm256_setzero_ps();
  }
  for (int s = 0; s < segments; ++s) {
    const float* a_s = a + s * a_segment;
    const float* b_s = b + s * length;
    int k = 0;
    for (; k + 8 <= length; k += 8) {
      DotStep<R, O, false>(a_s + k, a_row, b_s + k, b_row, __m256i(), acc);
    }
    if (k < length) DotStep<R, O, true>(a_s + k, a_row, b_s + k, b_row, LaneMask(length - k), acc);
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
    for (int o = 0; o < O; ++o) c[r * c_row + o] += HorizontalSum(acc[r][o]);
  }
}

// R rows, every column: blocks of O columns, the remainder in halving blocks.
template <int R, int O>
TS_AVX2 void DotRows(int cols, int segments, int length, const float* a, int a_row, int a_segment,
                     const float* b, int b_row, float* c, int c_row) {
  int n = 0;
  for (; n + O <= cols; n += O) {
    DotBlock<R, O>(segments, length, a, a_row, a_segment, b + n * b_row, b_row, c + n, c_row);
  }
  if constexpr (O > 4) {
    if (cols - n >= 4) {
      DotBlock<R, 4>(segments, length, a, a_row, a_segment, b + n * b_row, b_row, c + n, c_row);
      n += 4;
    }
  }
  if constexpr (O > 2) {
    if (cols - n >= 2) {
      DotBlock<R, 2>(segments, length, a, a_row, a_segment, b + n * b_row, b_row, c + n, c_row);
      n += 2;
    }
  }
  if constexpr (O > 1) {
    if (cols - n >= 1) {
      DotBlock<R, 1>(segments, length, a, a_row, a_segment, b + n * b_row, b_row, c + n, c_row);
    }
  }
}

// Blocks of R rows x O columns with 8 to 12 accumulators: 3 x 4 when there are 4 columns or
// more, 4 x 3, 6 x 2 or 8 x 1 for fewer; the last rows one at a time, 8 columns a block.
template <int R, int O>
TS_AVX2 int DotRowBlocks(int rows, int cols, int segments, int length, const float* a, int a_row,
                         int a_segment, const float* b, int b_row, float* c, int c_row) {
  int m = 0;
  for (; m + R <= rows; m += R) {
    DotRows<R, O>(cols, segments, length, a + m * a_row, a_row, a_segment, b, b_row, c + m * c_row,
                  c_row);
  }
  return m;
}

// ---- MatrixMultiplyAdd and MatrixMultiplyRuns: R rows x 16 columns of C, one broadcast A value
// per row and step.

// One call's operands. A's inner dimension is `runs` runs of `length` steps, a_run apart, a_col
// apart within a run; B has a row per step. With kSet (a template argument of the blocks), C =
// bias (zero when nullptr) + A B, C not read (MatrixMultiplyRuns); else C += A B, in one run
// (MatrixMultiplyAdd).
struct Product {
  int runs, length;
  const float* a;
  int a_row, a_run, a_col;
  const float* b;
  int b_row;
  const float* bias;
  float* c;
  int c_row;
};

// Rows [m, m + R) x columns [n, n + 16) of C (with kMasked, columns past `cols` off). The
// block's place is passed as m and n, not as a shifted copy of the product: copying a structure
// just written field by field stalls on its wider loads.
template <int R, bool kMasked, bool kSet>
TS_AVX2 void MultiplyAddBlock(const Product& p, int m, int n, int cols) {
  const __m256i mask0 = kMasked ? LaneMask(cols - n) : __m256i();
  const __m256i mask1 = kMasked ? LaneMask(cols - n - 8) : __m256i();
  const bool from_bias = kSet && p.bias != nullptr;
  const __m256 start0 = from_bias ? Load(p.bias + n, kMasked, mask0) : _mm256_setzero_ps();
  const __m256 start1 = from_bias ? Load(p.bias + n + 8, kMasked, mask1) : _mm256_setzero_ps();
  __m256 acc0[R], acc1[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    acc0[r] = start0;
    acc1[r] = start1;
  }
  // Strides in locals, pointers stepped, and one run when adding (MatrixMultiplyAdd): the
  // compiler then keeps everything in registers.
  const int a_row = p.a_row, a_col = p.a_col, b_row = p.b_row, length = p.length;
  const int runs = kSet ? p.runs : 1;
  for (int run = 0; run < runs; ++run) {
    const float* a_j = p.a + m * a_row + run * p.a_run;
    const float* b_j = p.b + n + run * length * b_row;
    for (int j = 0; j < length; ++j, a_j += a_col, b_j += b_row) {
      const __m256 b0 = Load(b_j, kMasked, mask0);
      const __m256 b1 = Load(b_j + 8, kMasked, mask1);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m256 scale = _mm256_broadcast_ss(a_j + r * a_row);
        acc0[r] = _mm256_fmadd_ps(scale, b0, acc0[r]);
        acc1[r] = _mm256_fmadd_ps(scale, b1, acc1[r]);
      }
    }
  }
  // Vector stores may alias anything, the product's fields too: they are read into locals first.
  float* const c_block = p.c + m * p.c_row + n;
  const int c_row = p.c_row;
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    float* c_r = c_block + r * c_row;
    if (kSet) {
      Store(c_r, acc0[r], kMasked, mask0);
      Store(c_r + 8, acc1[r], kMasked, mask1);
    } else {
      Store(c_r, _mm256_add_ps(Load(c_r, kMasked, mask0), acc0[r]), kMasked, mask0);
      Store(c_r + 8, _mm256_add_ps(Load(c_r + 8, kMasked, mask1), acc1[r]), kMasked, mask1);
    }
  }
}

template <int R, bool kSet>
TS_AVX2 void MultiplyAddRows(const Product& p, int m, int cols) {
  int n = 0;
  for (; n + 16 <= cols; n += 16) MultiplyAddBlock<R, false, kSet>(p, m, n, cols);
  if (n < cols) MultiplyAddBlock<R, true, kSet>(p, m, n, cols);
}

// Rows go in blocks of 6 (12 accumulators); a remainder of 1 or 2 rows would leave too few
// independent sums to hide the FMA latency, so 7 and 8 remaining rows split as 4 + 3 and 4 + 4.
template <bool kSet>
TS_AVX2 void MultiplyAdd(int rows, int cols, const Product& p) {
  for (int m = 0; m < rows;) {
    const int left = rows - m;
    const int take = left >= 9 || left == 6 ? 6 : (left >= 7 ? 4 : left);
    switch (take) {
      case 6:
        MultiplyAddRows<6, kSet>(p, m, cols);
        break;
      case 5:
        MultiplyAddRows<5, kSet>(p, m, cols);
        break;
      case 4:
        MultiplyAddRows<4, kSet>(p, m, cols);
        break;
      case 3:
        MultiplyAddRows<3, kSet>(p, m, cols);
        break;
      case 2:
        MultiplyAddRows<2, kSet>(p, m, cols);
        break;
      default:
        MultiplyAddRows<1, kSet>(p, m, cols);
        break;
    }
    m += take;
  }
}

}  // namespace

TS_AVX2 void MatrixMultiplyAddAvx2(int rows, int cols, int inner, const float* a, int a_row,
                                   int a_col, const float* b, int b_row, float* c, int c_row) {
  MultiplyAdd<false>(rows, cols,
                     Product{1, inner, a, a_row, 0, a_col, b, b_row, nullptr, c, c_row});
}

TS_AVX2 void MatrixMultiplyRunsAvx2(int rows, int cols, int runs, int length, const float* a,
                                    int a_row, int a_run, const float* b, int b_row,
                                    const float* bias, float* c, int c_row) {
  MultiplyAdd<true>(rows, cols,
                    Product{runs, length, a, a_row, a_run, 1, b, b_row, bias, c, c_row});
}

TS_AVX2 void MatrixMultiplyTransposedAddAvx2(int rows, int cols, int segments, int length,
                                             const float* a, int a_row, int a_segment,
                                             const float* b, int b_row, float* c, int c_row) {
  int m = 0;
  if (cols >= 4) {
    m = DotRowBlocks<3, 4>(rows, cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  } else if (cols == 3) {
    m = DotRowBlocks<4, 3>(rows, cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  } else if (cols == 2) {
    m = DotRowBlocks<6, 2>(rows, cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  } else {
    m = DotRowBlocks<8, 1>(rows, cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  }
  for (; m < rows; ++m) {
    DotRows<1, 8>(cols, segments, length, a + m * a_row, a_row, a_segment, b, b_row, c + m * c_row,
                  c_row);
  }
}

TS_AVX2 void DenseForwardAvx2(const float* x, int rows, int depth, const float* w, int out,
                              const float* bias, float* y) {
  int r = 0;
  for (; r + 3 <= rows; r += 3) ForwardRows<3, 4>(x + r * depth, depth, w, out, bias, y + r * out);
  for (; r < rows; ++r) ForwardRows<1, 8>(x + r * depth, depth, w, out, bias, y + r * out);
}

TS_AVX2 void DenseInputGradientAvx2(const float* dz, int rows, int out, const float* w, int depth,
                                    float* dx) {
  int r = 0;
  for (; r + 3 <= rows; r += 3)
    InputGradientRows<3, 4>(dz + r * out, out, w, depth, dx + r * depth);
  for (; r < rows; ++r) InputGradientRows<1, 8>(dz + r * out, out, w, depth, dx + r * depth);
}

// WeightGradientOneRow into a DW with stale bytes: each element stored once, g x + 0 (the bits of
// the read-modify-write on a zero-filled DW), zeros for the outputs whose DZ is zero.
TS_AVX2 void WeightGradientOneRowSetAvx2(const float* dz, RowRange trained, const float* x,
                                         int depth, float* dw) {
  const __m256 zero = _mm256_setzero_ps();
  for (int o = trained.begin; o < trained.end; ++o) {
    const float g_scalar = dz[o];
    const __m256 g = _mm256_set1_ps(g_scalar);
    float* dw_row = dw + (o - trained.begin) * depth;
    int k = 0;
    if (g_scalar == 0.0f) {
      for (; k + 8 <= depth; k += 8) _mm256_storeu_ps(dw_row + k, zero);
    } else {
      for (; k + 32 <= depth; k += 32) {
#pragma GCC unroll 4
        for (int v = 0; v < 4; ++v) {
          _mm256_storeu_ps(dw_row + k + 8 * v,
                           _mm256_fmadd_ps(g, _mm256_loadu_ps(x + k + 8 * v), zero));
        }
      }
      for (; k + 8 <= depth; k += 8) {
        _mm256_storeu_ps(dw_row + k, _mm256_fmadd_ps(g, _mm256_loadu_ps(x + k), zero));
      }
    }
    if (k < depth) {
      const __m256i mask = LaneMask(depth - k);
      const __m256 value =
          g_scalar == 0.0f ? zero : _mm256_fmadd_ps(g, _mm256_maskload_ps(x + k, mask), zero);
      _mm256_maskstore_ps(dw_row + k, mask, value);
    }
  }
}

TS_AVX2 void DenseWeightGradientAvx2(const float* dz, int rows, int out, RowRange trained,
                                     const float* x, int depth, float* dw) {
  if (rows == 1) return WeightGradientOneRow(dz, trained, x, depth, dw);
  int o = trained.begin;
  for (; o + 4 <= trained.end; o += 4) {
    WeightGradientOutputs<4, 3>(dz + o, rows, out, x, depth, dw + (o - trained.begin) * depth);
  }
  for (; o < trained.end; ++o) {
    WeightGradientOutputs<1, 4>(dz + o, rows, out, x, depth, dw + (o - trained.begin) * depth);
  }
}

}  // namespace trainscope

#endif  // TRAINSCOPE_AVX2_PATH
