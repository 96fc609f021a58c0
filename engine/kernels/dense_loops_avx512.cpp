// SPDX-License-Identifier: Apache-2.0
//
// The AVX-512 paths of dense_loops.h, compiled for x86-64 only and called only when the CPU and
// the OS support AVX-512F. Every product keeps blocks of independent 16-float accumulators in
// registers (32 of them on this ISA); depths and columns past the end are masked off (neither
// read nor written).
//
//   MatrixMultiplyAdd   C += A B: blocks of R rows x V vectors of C, one broadcast A value per
//                       row and step. When A's rows are adjacent (a_row 1, the weight
//                       gradients) its values sit at fixed offsets from one pointer, so blocks
//                       can have more rows than there are general registers for row pointers.
//   MatrixMultiplyRuns  the same blocks over A's runs, starting from the bias and storing C
//                       without reading it.
//   DenseForward        dot products: blocks of R rows x O outputs, each a vector of partial
//                       sums, reduced 16 at a time into one vector by a shuffle tree.
//   DenseInputGradient  one row: DX plus 8 scaled W rows at a time, over the outputs whose DZ
//                       is not zero; more rows: MatrixMultiplyAdd (DX += DZ W).
//   DenseWeightGradient one row: the rank-1 update, row by row of DW, skipping zero DZ; more
//                       rows: MatrixMultiplyAdd (DW += DZ^T X), each X vector used by 12 rows.
//
// With one row, the forward and input gradient read each weight once: W (400 KB for the MLP's
// 784x128) streams from the second-level cache, and their speed is that of the stream. Both
// read 8 rows of W side by side, each from its start to its end, and a 64-byte load split across
// two cache lines costs as much as two. The forward's sums must not change order with W's
// address (a restarted run reproduces its losses to the bit), so it relies on ConstantStore
// aligning weights to a line; the input gradient starts at W's first line boundary (engine
// buffers are only 16-byte aligned), which moves its lanes but not the order of any element's
// sum. The rank-1 update reads and writes each DW element once: it runs at the cache's
// read-modify-write speed.
#include "engine/train/host_simd.h"

#if defined(TRAINSCOPE_AVX2_PATH)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

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

// Floats from p to the next 64-byte cache line boundary (0 when p is on one).
inline int FloatsToNextLine(const float* p) {
  return static_cast<int>((64 - reinterpret_cast<uintptr_t>(p) % 64) % 64) / 4;
}

// ---- MatrixMultiplyAdd and MatrixMultiplyRuns: R rows x V vectors of C.

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

// Rows [m, m + R) x columns [n, n + 16 V) of C (columns past `cols` masked off). kUnitRow:
// a_row is 1, so row r's A value is at a fixed offset r from the step's pointer. (The block's
// place is passed as m and n, not as a shifted copy of the product: copying a structure just
// written field by field stalls on its wider loads.)
template <int R, int V, bool kUnitRow, bool kSet>
TS_AVX512 void MultiplyAddBlock(const Product& p, int m, int n, int cols) {
  __mmask16 mask[V];
  __m512 acc[R][V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    mask[v] = LaneMask16(cols - n - 16 * v);
    const __m512 start = kSet && p.bias != nullptr
                             ? _mm512_maskz_loadu_ps(mask[v], p.bias + n + 16 * v)
                             : _mm512_setzero_ps();
#pragma GCC unroll 32
    for (int r = 0; r < R; ++r) acc[r][v] = start;
  }
  // Strides in locals, pointers stepped, and one run when adding (MatrixMultiplyAdd): the
  // compiler then keeps everything, the masks too, in registers.
  const int a_row = p.a_row, a_col = p.a_col, b_row = p.b_row, length = p.length;
  const int runs = kSet ? p.runs : 1;
  for (int run = 0; run < runs; ++run) {
    const float* a_j = p.a + m * a_row + run * p.a_run;
    const float* b_j = p.b + n + run * length * b_row;
    for (int j = 0; j < length; ++j, a_j += a_col, b_j += b_row) {
      __m512 bv[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) bv[v] = _mm512_maskz_loadu_ps(mask[v], b_j + 16 * v);
#pragma GCC unroll 32
      for (int r = 0; r < R; ++r) {
        const __m512 scale = _mm512_set1_ps(a_j[kUnitRow ? r : r * a_row]);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(scale, bv[v], acc[r][v]);
      }
    }
  }
  // Row by row, load, add, store: rows of C may overlap (see dense_loops.h). (Vector stores may
  // alias anything, the product's fields too: they are read into locals first.)
  float* const c_block = p.c + m * p.c_row + n;
  const int c_row = p.c_row;
#pragma GCC unroll 32
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      float* c = c_block + r * c_row + 16 * v;
      const __m512 sum =
          kSet ? acc[r][v] : _mm512_add_ps(_mm512_maskz_loadu_ps(mask[v], c), acc[r][v]);
      _mm512_mask_storeu_ps(c, mask[v], sum);
    }
  }
}

// Calls the R-row block for `rows` (1 <= rows <= R).
template <int R, int V, bool kUnitRow, bool kSet>
TS_AVX512 void MultiplyAddFewRows(int rows, const Product& p, int m, int n, int cols) {
  if (rows == R) return MultiplyAddBlock<R, V, kUnitRow, kSet>(p, m, n, cols);
  if constexpr (R > 1) MultiplyAddFewRows<R - 1, V, kUnitRow, kSet>(rows, p, m, n, cols);
}

// As few blocks of at most kRows rows as cover the rows, split evenly so that none is left with
// a row or two (27 rows: 14 + 13, not 24 + 3).
template <int kRows, int V, bool kUnitRow, bool kSet>
TS_AVX512 void MultiplyAddColumns(int rows, const Product& p, int n, int cols) {
  for (int m = 0; m < rows;) {
    const int left = rows - m;
    const int blocks = (left + kRows - 1) / kRows;
    const int take = (left + blocks - 1) / blocks;
    MultiplyAddFewRows<kRows, V, kUnitRow, kSet>(take, p, m, n, cols);
    m += take;
  }
}

// 32-column blocks with 8 rows (16 accumulators; 12 rows, 24 accumulators, when A's rows are
// adjacent and need no row pointers); a last block of at most 16 columns with 12 rows (24 when
// adjacent), so a narrow C (16 output channels) still has 12 independent sums. Setting C (the
// convolutions' forward, A rows a pixel apart) takes the general blocks only.
template <bool kSet>
TS_AVX512 void MultiplyAdd(int rows, int cols, const Product& p) {
  int n = 0;
  if (!kSet && p.a_row == 1) {
    for (; cols - n > 16; n += 32) MultiplyAddColumns<12, 2, true, false>(rows, p, n, cols);
    if (n < cols) MultiplyAddColumns<24, 1, true, false>(rows, p, n, cols);
    return;
  }
  for (; cols - n > 16; n += 32) MultiplyAddColumns<8, 2, false, kSet>(rows, p, n, cols);
  if (n < cols) MultiplyAddColumns<12, 1, false, kSet>(rows, p, n, cols);
}

// ---- Dot products: R rows x O columns of C, each a vector of 16 partial sums.

// Lane i of the result is the sum of the 16 lanes of sums[i] (count <= 16, missing ones zero):
// four rounds of pairwise shuffles and adds instead of `count` separate horizontal sums. The
// rounds leave the sum of tree[kTreeSlot[i]] in lane i, so sums[i] enters the tree there.
constexpr int kTreeSlot[16] = {0, 2, 1, 3, 8, 10, 9, 11, 4, 6, 5, 7, 12, 14, 13, 15};

// GCC 12's _mm512_shuffle_f32x4 passes an _mm512_undefined_ps() it then warns about (GCC bug
// 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <int kCount>
TS_AVX512 inline __m512 SumEachVector(const __m512 (&sums)[kCount]) {
  static_assert(kCount >= 1 && kCount <= 16, "one tree sums up to 16 vectors");
  __m512 t[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) t[kTreeSlot[i]] = i < kCount ? sums[i] : _mm512_setzero_ps();
    // 256-bit halves: t[i] keeps half sums of t[i] (low half) and t[i + 8] (high half).
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[i] = _mm512_add_ps(_mm512_shuffle_f32x4(t[i], t[i + 8], 0x44),
                         _mm512_shuffle_f32x4(t[i], t[i + 8], 0xee));
  }
  // 128-bit quarters, then pairs of lanes, then lanes.
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm512_add_ps(_mm512_shuffle_f32x4(t[i], t[i + 4], 0x88),
                         _mm512_shuffle_f32x4(t[i], t[i + 4], 0xdd));
  }
#pragma GCC unroll 2
  for (int i = 0; i < 2; ++i) {
    t[i] = _mm512_add_ps(_mm512_shuffle_ps(t[i], t[i + 2], 0x44),
                         _mm512_shuffle_ps(t[i], t[i + 2], 0xee));
  }
  return _mm512_add_ps(_mm512_shuffle_ps(t[0], t[1], 0x88), _mm512_shuffle_ps(t[0], t[1], 0xdd));
}
#pragma GCC diagnostic pop

// Independent sets of accumulators over the steps, so that a block of fewer than 8 dot products
// still keeps the two FMA units busy (each FMA waits 4 cycles for its previous sum).
constexpr int DotSets(int products) {
  return products >= 8 ? 1 : (8 + products - 1) / products;
}

// One step of 16 floats: the O B vectors first, then each A vector once, for its O sums (read
// row by row like this, every operand is loaded once a step; A rows, a pixel apart in a
// convolution, often straddle cache lines, where a load costs two).
template <int R, int O, bool kMasked>
TS_AVX512 inline void DotStep(const float* a, int a_row, const float* b, int b_row, __mmask16 mask,
                              __m512 (&acc)[R][O]) {
  __m512 bv[O];
#pragma GCC unroll 16
  for (int o = 0; o < O; ++o) {
    bv[o] = kMasked ? _mm512_maskz_loadu_ps(mask, b + o * b_row) : _mm512_loadu_ps(b + o * b_row);
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    __m512 av =
        kMasked ? _mm512_maskz_loadu_ps(mask, a + r * a_row) : _mm512_loadu_ps(a + r * a_row);
    // Left alone, GCC folds this load into each of the O multiply-adds (O loads of the same
    // vector); the empty asm makes it a register value.
    if (O > 1) __asm__("" : "+v"(av));
#pragma GCC unroll 16
    for (int o = 0; o < O; ++o) acc[r][o] = _mm512_fmadd_ps(av, bv[o], acc[r][o]);
  }
}

// C[r * c_row + o] += dot(A row r, B row o) for r < R, o < O (R * O <= 16).
template <int R, int O>
TS_AVX512 void DotBlock(int segments, int length, const float* a, int a_row, int a_segment,
                        const float* b, int b_row, float* c, int c_row) {
  static_assert(R * O <= 16, "one reduction tree per block");
  constexpr int kSets = DotSets(R * O);
  __m512 acc[kSets][R][O];
#pragma GCC unroll 8
  for (int s = 0; s < kSets; ++s) {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
      for (int o = 0; o < O; ++o) acc[s][r][o] = _mm512_setzero_ps();
    }
  }
  for (int seg = 0; seg < segments; ++seg) {
    const float* a_seg = a + seg * a_segment;
    const float* b_seg = b + seg * length;
    // Element k of a run always lands in lane k % 16 of set (k / 16) % kSets, wherever the
    // operands lie: a head up to B's next cache line would make the sums' order, and so their
    // bits, depend on the address (a restarted run would not reproduce its losses). Weight rows
    // are whole lines when their length is a multiple of 16 floats, since ConstantStore aligns
    // constants to a line.
    int k = 0;
    for (; k + 16 * kSets <= length; k += 16 * kSets) {
#pragma GCC unroll 8
      for (int s = 0; s < kSets; ++s) {
        DotStep<R, O, false>(a_seg + k + 16 * s, a_row, b_seg + k + 16 * s, b_row, 0, acc[s]);
      }
    }
    for (; k + 16 <= length; k += 16) {
      DotStep<R, O, false>(a_seg + k, a_row, b_seg + k, b_row, 0, acc[0]);
    }
    if (k < length) {
      DotStep<R, O, true>(a_seg + k, a_row, b_seg + k, b_row, LaneMask16(length - k), acc[0]);
    }
  }
  __m512 sums[R * O];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int o = 0; o < O; ++o) {
      sums[r * O + o] = acc[0][r][o];
#pragma GCC unroll 8
      for (int s = 1; s < kSets; ++s)
        sums[r * O + o] = _mm512_add_ps(sums[r * O + o], acc[s][r][o]);
    }
  }
  const __m512 total = SumEachVector(sums);
  // Lane r * O + o holds C[r][o]: one masked update when the block's C elements are adjacent.
  if (R == 1 || c_row == O) {
    const __mmask16 lanes = LaneMask16(R * O);
    _mm512_mask_storeu_ps(c, lanes, _mm512_add_ps(_mm512_maskz_loadu_ps(lanes, c), total));
    return;
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, total);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int o = 0; o < O; ++o) c[r * c_row + o] += lanes[r * O + o];
  }
}

// R rows, every column: blocks of O columns, the remainder in halving blocks.
template <int R, int O>
TS_AVX512 void DotRows(int cols, int segments, int length, const float* a, int a_row, int a_segment,
                       const float* b, int b_row, float* c, int c_row) {
  int n = 0;
  for (; n + O <= cols; n += O) {
    DotBlock<R, O>(segments, length, a, a_row, a_segment, b + n * b_row, b_row, c + n, c_row);
  }
  const auto remainder = [&](auto width) {
    constexpr int kWidth = decltype(width)::value;
    if constexpr (kWidth < O) {
      if (cols - n >= kWidth) {
        DotBlock<R, kWidth>(segments, length, a, a_row, a_segment, b + n * b_row, b_row, c + n,
                            c_row);
        n += kWidth;
      }
    }
  };
  remainder(std::integral_constant<int, 8>());
  remainder(std::integral_constant<int, 4>());
  remainder(std::integral_constant<int, 2>());
  remainder(std::integral_constant<int, 1>());
}

// Calls the R-row blocks for `rows` (1 <= rows <= R).
template <int R, int O>
TS_AVX512 void DotFewRows(int rows, int cols, int segments, int length, const float* a, int a_row,
                          int a_segment, const float* b, int b_row, float* c, int c_row) {
  if (rows == R) {
    return DotRows<R, O>(cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  }
  if constexpr (R > 1) {
    DotFewRows<R - 1, O>(rows, cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  }
}

// As few blocks of at most kRows rows as cover the rows, split evenly (a convolution's 32-pixel
// row with 3 outputs: 5, 5, 5, 5, 4, 4, 4, not six 5s and two single rows).
template <int kRows, int O>
TS_AVX512 void DotRowBlocks(int rows, int cols, int segments, int length, const float* a, int a_row,
                            int a_segment, const float* b, int b_row, float* c, int c_row) {
  for (int m = 0; m < rows;) {
    const int left = rows - m;
    const int blocks = (left + kRows - 1) / kRows;
    const int take = (left + blocks - 1) / blocks;
    DotFewRows<kRows, O>(take, cols, segments, length, a + m * a_row, a_row, a_segment, b, b_row,
                         c + m * c_row, c_row);
    m += take;
  }
}

// Blocks shaped by the number of columns: 4 rows x 4 columns (8 loads a step for 16 FMAs) when
// there are 4 or more, else as many rows as make up to 16 dot products. A single row takes 8
// columns a block: its B rows stream from memory (the FC forward), and more streams at once
// than that compete for the line fill buffers.
TS_AVX512 void DotProductsAdd(int rows, int cols, int segments, int length, const float* a,
                              int a_row, int a_segment, const float* b, int b_row, float* c,
                              int c_row) {
  if (rows == 1) {
    DotRows<1, 8>(cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  } else if (cols >= 4) {
    DotRowBlocks<4, 4>(rows, cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  } else if (cols == 3) {
    DotRowBlocks<5, 3>(rows, cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  } else if (cols == 2) {
    DotRowBlocks<8, 2>(rows, cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  } else {
    DotRowBlocks<8, 1>(rows, cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
  }
}

// ---- The one-row gradients: the outputs whose DZ is not zero, a chunk at a time.

constexpr int kOutputChunk = 256;

// Writes the o in [begin, end) with dz[o] != 0 to `nonzero` without a branch per output (a
// ReLU's zeros fall at random); returns how many.
inline int NonzeroOutputs(const float* dz, int begin, int end, int* nonzero) {
  int count = 0;
  for (int o = begin; o < end; ++o) {
    nonzero[count] = o;
    count += dz[o] != 0.0f ? 1 : 0;
  }
  return count;
}

// One vector of DX (masked by `lanes` when kMasked) plus the N rows' scaled vectors, in two
// chains of sums so that each waits for half the multiply-adds.
template <int N, bool kMasked>
TS_AVX512 inline void InputGradientStep(const float* const (&rows)[N], const __m512 (&scale)[N],
                                        int k, __mmask16 lanes, float* dx) {
  __m512 sum[2] = {kMasked ? _mm512_maskz_loadu_ps(lanes, dx + k) : _mm512_loadu_ps(dx + k),
                   _mm512_setzero_ps()};
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) {
    const __m512 wv =
        kMasked ? _mm512_maskz_loadu_ps(lanes, rows[i] + k) : _mm512_loadu_ps(rows[i] + k);
    sum[i % 2] = _mm512_fmadd_ps(scale[i], wv, sum[i % 2]);
  }
  const __m512 total = _mm512_add_ps(sum[0], sum[1]);
  if (kMasked) {
    _mm512_mask_storeu_ps(dx + k, lanes, total);
  } else {
    _mm512_storeu_ps(dx + k, total);
  }
}

// DX += DZ[o] W[o] for N listed outputs, their W rows streamed side by side over the whole
// depth (the access of the forward's dot products, which the second-level cache serves best;
// DX, 3 KB for the MLP, stays in the first-level cache). The first `head` columns and a last
// partial vector are masked steps.
template <int N>
TS_AVX512 void InputGradientRows(const int* outputs, const float* dz, const float* w, int depth,
                                 int head, float* dx) {
  const float* rows[N];
  __m512 scale[N];
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) {
    rows[i] = w + outputs[i] * depth;
    scale[i] = _mm512_set1_ps(dz[outputs[i]]);
  }
  int k = 0;
  if (head > 0) {
    InputGradientStep<N, true>(rows, scale, 0, LaneMask16(head), dx);
    k = head;
  }
  for (; k + 16 <= depth; k += 16) InputGradientStep<N, false>(rows, scale, k, 0xffff, dx);
  if (k < depth) InputGradientStep<N, true>(rows, scale, k, LaneMask16(depth - k), dx);
}

// InputGradientRows for `count` outputs (0 <= count <= N).
template <int N>
TS_AVX512 void InputGradientFewRows(int count, const int* outputs, const float* dz, const float* w,
                                    int depth, int head, float* dx) {
  if (count == N) return InputGradientRows<N>(outputs, dz, w, depth, head, dx);
  if constexpr (N > 1) InputGradientFewRows<N - 1>(count, outputs, dz, w, depth, head, dx);
}

// DX += DZ W for one row, 8 outputs' W rows at a time. When the rows share their alignment
// (depth a multiple of 16), the head runs up to W's first line boundary, so that every later W
// load is one whole line (a load split across two costs as much as two).
TS_AVX512 void InputGradientOneRow(const float* dz, int out, const float* w, int depth, float* dx) {
  constexpr int kRowsAtOnce = 8;
  const int head = depth % 16 == 0 ? std::min(depth, FloatsToNextLine(w)) : 0;
  int nonzero[kOutputChunk];
  for (int chunk = 0; chunk < out; chunk += kOutputChunk) {
    const int count = NonzeroOutputs(dz, chunk, std::min(out, chunk + kOutputChunk), nonzero);
    int i = 0;
    for (; i + kRowsAtOnce <= count; i += kRowsAtOnce) {
      InputGradientRows<kRowsAtOnce>(nonzero + i, dz, w, depth, head, dx);
    }
    InputGradientFewRows<kRowsAtOnce - 1>(count - i, nonzero + i, dz, w, depth, head, dx);
  }
}

// DW[o] += DZ[o] X for one row: one multiply-add per DW element read and written, so the speed
// is the cache's; four vectors a step keep enough loads and stores in flight.
TS_AVX512 void WeightGradientOneRow(const float* dz, RowRange trained, const float* x, int depth,
                                    float* dw) {
  int nonzero[kOutputChunk];
  for (int chunk = trained.begin; chunk < trained.end; chunk += kOutputChunk) {
    const int count =
        NonzeroOutputs(dz, chunk, std::min(trained.end, chunk + kOutputChunk), nonzero);
    for (int i = 0; i < count; ++i) {
      const int o = nonzero[i];
      const __m512 g = _mm512_set1_ps(dz[o]);
      float* dw_row = dw + (o - trained.begin) * depth;
      int k = 0;
      for (; k + 64 <= depth; k += 64) {
#pragma GCC unroll 4
        for (int v = 0; v < 4; ++v) {
          float* p = dw_row + k + 16 * v;
          _mm512_storeu_ps(p,
                           _mm512_fmadd_ps(g, _mm512_loadu_ps(x + k + 16 * v), _mm512_loadu_ps(p)));
        }
      }
      for (; k < depth; k += 16) {
        const __mmask16 lanes = LaneMask16(depth - k);
        const __m512 sum = _mm512_fmadd_ps(g, _mm512_maskz_loadu_ps(lanes, x + k),
                                           _mm512_maskz_loadu_ps(lanes, dw_row + k));
        _mm512_mask_storeu_ps(dw_row + k, lanes, sum);
      }
    }
  }
}

}  // namespace

// WeightGradientOneRow into a DW with stale bytes: each element stored once, g x + 0 (the bits of
// the read-modify-write on a zero-filled DW), zeros for the outputs whose DZ is zero.
TS_AVX512 void WeightGradientOneRowSetAvx512(const float* dz, RowRange trained, const float* x,
                                             int depth, float* dw) {
  const __m512 zero = _mm512_setzero_ps();
  for (int o = trained.begin; o < trained.end; ++o) {
    const float g_scalar = dz[o];
    const __m512 g = _mm512_set1_ps(g_scalar);
    float* dw_row = dw + (o - trained.begin) * depth;
    int k = 0;
    if (g_scalar == 0.0f) {
      for (; k + 16 <= depth; k += 16) _mm512_storeu_ps(dw_row + k, zero);
    } else {
      for (; k + 64 <= depth; k += 64) {
#pragma GCC unroll 4
        for (int v = 0; v < 4; ++v) {
          _mm512_storeu_ps(dw_row + k + 16 * v,
                           _mm512_fmadd_ps(g, _mm512_loadu_ps(x + k + 16 * v), zero));
        }
      }
      for (; k + 16 <= depth; k += 16) {
        _mm512_storeu_ps(dw_row + k, _mm512_fmadd_ps(g, _mm512_loadu_ps(x + k), zero));
      }
    }
    if (k < depth) {
      const __mmask16 lanes = LaneMask16(depth - k);
      const __m512 value =
          g_scalar == 0.0f ? zero : _mm512_fmadd_ps(g, _mm512_maskz_loadu_ps(lanes, x + k), zero);
      _mm512_mask_storeu_ps(dw_row + k, lanes, value);
    }
  }
}

TS_AVX512 void MatrixMultiplyAddAvx512(int rows, int cols, int inner, const float* a, int a_row,
                                       int a_col, const float* b, int b_row, float* c, int c_row) {
  MultiplyAdd<false>(rows, cols,
                     Product{1, inner, a, a_row, 0, a_col, b, b_row, nullptr, c, c_row});
}

TS_AVX512 void MatrixMultiplyRunsAvx512(int rows, int cols, int runs, int length, const float* a,
                                        int a_row, int a_run, const float* b, int b_row,
                                        const float* bias, float* c, int c_row) {
  MultiplyAdd<true>(rows, cols,
                    Product{runs, length, a, a_row, a_run, 1, b, b_row, bias, c, c_row});
}

TS_AVX512 void MatrixMultiplyTransposedAddAvx512(int rows, int cols, int segments, int length,
                                                 const float* a, int a_row, int a_segment,
                                                 const float* b, int b_row, float* c, int c_row) {
  DotProductsAdd(rows, cols, segments, length, a, a_row, a_segment, b, b_row, c, c_row);
}

TS_AVX512 void DenseForwardAvx512(const float* x, int rows, int depth, const float* w, int out,
                                  const float* bias, float* y) {
  for (int r = 0; r < rows; ++r) {
    float* y_row = y + r * out;
    for (int o = 0; o < out; ++o) y_row[o] = bias != nullptr ? bias[o] : 0.0f;
  }
  DotProductsAdd(rows, out, 1, depth, x, depth, 0, w, depth, y, out);
}

TS_AVX512 void DenseInputGradientAvx512(const float* dz, int rows, int out, const float* w,
                                        int depth, float* dx) {
  if (rows == 1) return InputGradientOneRow(dz, out, w, depth, dx);
  MatrixMultiplyAddAvx512(rows, depth, out, dz, out, 1, w, depth, dx, depth);
}

TS_AVX512 void DenseWeightGradientAvx512(const float* dz, int rows, int out, RowRange trained,
                                         const float* x, int depth, float* dw) {
  if (trained.empty()) return;
  if (rows == 1) return WeightGradientOneRow(dz, trained, x, depth, dw);
  MatrixMultiplyAddAvx512(trained.count(), depth, rows, dz + trained.begin, 1, out, x, depth, dw,
                          depth);
}

}  // namespace trainscope

#endif  // TRAINSCOPE_AVX2_PATH
