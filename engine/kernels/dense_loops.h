// SPDX-License-Identifier: Apache-2.0
//
// The products behind FULLY_CONNECTED and CONV_2D, on row-major float matrices:
//   X  [rows, depth]   inputs (FC: one sample a row; conv: one gathered window patch a row)
//   W  [out,  depth]   weights, one output feature a row (FC [out, in], conv OHWI)
//   DZ [rows, out]     gradient of the pre-activation output
//
//   DenseForward        Y[r][o]  = bias[o] + sum_k X[r][k] * W[o][k]    (bias may be nullptr)
//   DenseInputGradient  DX[r][k] += sum_o DZ[r][o] * W[o][k]
//   DenseWeightGradient DW[o - trained.begin][k] += sum_r DZ[r][o] * X[r][k], o in `trained`
//   DenseWeightGradientSet  the same into a DW whose bytes are stale: the bits DenseWeightGradient
//                       gives on a zero-filled DW, without the zero-fill's pass or reading DW
//                       (one row: each element written once, the outputs whose DZ is zero
//                       with zeros)
//
// Each has a portable path (the loops in source order, one running sum per output: what the
// firmware build runs) and, on x86-64, AVX2/FMA and AVX-512 paths chosen at run time. Those keep
// several accumulators and fuse multiply-adds, so their sums are rounded in another order:
// results agree with the portable path to float rounding, not bit for bit. The gradient
// products may skip outputs whose DZ is exactly zero (a ReLU's inactive units), which adds
// nothing in exact math. Nothing is allocated; no buffer may alias another (except overlapping
// C rows, below).
//
//   DenseForward(x, batch, in, w, out, bias, y);          // FC forward, [batch, out]
//   DenseInputGradient(dz, batch, out, w, in, dx);        // dX += dZ W
//   if (UsingFastKernels()) ...                           // the dispatch conv_2d.cpp follows
#pragma once

#include <cstdint>

#include "engine/kernels/trained_rows.h"

namespace trainscope {

void DenseForward(const float* x, int rows, int depth, const float* w, int out, const float* bias,
                  float* y);
void DenseInputGradient(const float* dz, int rows, int out, const float* w, int depth, float* dx);
void DenseWeightGradient(const float* dz, int rows, int out, RowRange trained, const float* x,
                         int depth, float* dw);
void DenseWeightGradientSet(const float* dz, int rows, int out, RowRange trained, const float* x,
                            int depth, float* dw);

// The general product the convolutions are cut into, with strided A so that either operand
// side can be a patch block read across: for m < rows, n < cols,
//   C[m * c_row + n] += sum_{j < inner} A[m * a_row + j * a_col] * B[j * b_row + n]
// C rows may overlap in memory (a transposed convolution's windows): rows are added in order,
// so overlapping elements receive every row's sum. The fast path keeps a block of C rows x 16
// columns in registers, so cols of 16 or more (output channels, patch depths) use it best.
void MatrixMultiplyAdd(int rows, int cols, int inner, const float* a, int a_row, int a_col,
                       const float* b, int b_row, float* c, int c_row);

// MatrixMultiplyAdd's product with A's inner dimension read in runs, setting C: for m < rows,
// n < cols,
//   C[m * c_row + n] = bias[n] + sum_{s < runs} sum_{j < length}
//                                  A[m * a_row + s * a_run + j] * B[(s * length + j) * b_row + n]
// (no bias when nullptr). A convolution's forward in one call per row of output pixels: a window
// is KH runs of KW * C adjacent inputs, an input row apart, and B the weights transposed, so C is
// written once, with no earlier pass to set the bias. C rows must not overlap.
void MatrixMultiplyRuns(int rows, int cols, int runs, int length, const float* a, int a_row,
                        int a_run, const float* b, int b_row, const float* bias, float* c,
                        int c_row);

// The product of A and B transposed, A's rows read in segments: for m < rows, n < cols,
//   C[m * c_row + n] += sum_{s < segments} sum_{k < length}
//                         A[m * a_row + s * a_segment + k] * B[n * b_row + s * length + k]
// Each C element is the dot product of an A row (`segments` runs of `length` adjacent floats,
// a_segment apart: a convolution's window read in place, one run per filter row) and a B row
// (the runs one after another: a weight row). The fast paths keep up to 16 dot products in
// vectors of partial sums and add each vector's lanes up once, at the end, so few columns
// (output channels) and long rows use them best: the case MatrixMultiplyAdd, whose vectors run
// along the columns, handles worst. C rows must not overlap.
void MatrixMultiplyTransposedAdd(int rows, int cols, int segments, int length, const float* a,
                                 int a_row, int a_segment, const float* b, int b_row, float* c,
                                 int c_row);

// Which code the kernels run. kReference: the portable loops. kAvx2: 8-float vectors with FMA.
// kAvx512: every product here (the FC products and every convolution product) in 16-float
// vectors. Each path keeps its own register blocks, so the three may round differently.
enum class KernelPath : uint8_t { kReference = 0, kAvx2 = 1, kAvx512 = 2 };
// "reference", "avx2" or "avx512": how tests, benchmarks and training_peer's kernel argument
// name a path.
const char* KernelPathName(KernelPath path);

// The fastest path this CPU (and OS) supports; kReference off x86-64.
KernelPath FastestKernelPath();
// The path in use: FastestKernelPath() unless UseKernelPath() chose a slower one. Tests and
// benchmarks switch paths to compare; switch before kernels run, never while another thread
// runs them. A path the CPU lacks falls back to the fastest it has.
KernelPath ActiveKernelPath();
void UseKernelPath(KernelPath path);
inline bool UsingFastKernels() {
  return ActiveKernelPath() != KernelPath::kReference;
}

}  // namespace trainscope
