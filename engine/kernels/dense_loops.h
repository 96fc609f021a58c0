// SPDX-License-Identifier: Apache-2.0
//
// The three products behind FULLY_CONNECTED and CONV_2D, on row-major float matrices:
//   X  [rows, depth]   inputs (FC: one sample a row; conv: one gathered window patch a row)
//   W  [out,  depth]   weights, one output feature a row (FC [out, in], conv OHWI)
//   DZ [rows, out]     gradient of the pre-activation output
//
//   DenseForward        Y[r][o]  = bias[o] + sum_k X[r][k] * W[o][k]    (bias may be nullptr)
//   DenseInputGradient  DX[r][k] += sum_o DZ[r][o] * W[o][k]
//   DenseWeightGradient DW[o - trained.begin][k] += sum_r DZ[r][o] * X[r][k], o in `trained`
//
// Each has a portable path (the loops in source order, one running sum per output: what the
// firmware build runs) and, on x86-64, an AVX2/FMA path chosen at run time (several
// accumulators, fused multiply-adds, so sums are rounded in another order: results agree with
// the portable path to float rounding, not bit for bit). The gradient functions skip the
// outputs whose DZ is exactly zero (a ReLU's inactive units), which adds nothing in exact math.
// Nothing is allocated; no buffer may alias another.
//
//   DenseForward(x, batch, in, w, out, bias, y);
//   if (UsingFastKernels()) ...   // the dispatch the conv kernels follow
#pragma once

#include "engine/kernels/trained_rows.h"

namespace trainscope {

void DenseForward(const float* x, int rows, int depth, const float* w, int out, const float* bias,
                  float* y);
void DenseInputGradient(const float* dz, int rows, int out, const float* w, int depth, float* dx);
void DenseWeightGradient(const float* dz, int rows, int out, RowRange trained, const float* x,
                         int depth, float* dw);

// Whether the kernels take their fast host paths: true on a CPU with AVX2 and FMA unless
// ForceReferenceKernels(true) was called. Tests and benchmarks switch to the reference path to
// compare; call it before kernels run, never while another thread runs them.
bool UsingFastKernels();
void ForceReferenceKernels(bool reference);

}  // namespace trainscope
