// SPDX-License-Identifier: Apache-2.0
//
// CONV_2D as dense products over window patches, the fast host path of conv_2d.cpp. Row p of a
// patch block holds the KH x KW x C inputs under output pixel p's window in the OHWI order of a
// weight row, zero where the window lies in the padding, so that
//   forward   Y[p]   = DenseForward(patch[p], W)
//   dW        DW    += DenseWeightGradient(DZ[p], patch[p])
//   dX        patch gradients = DenseInputGradient(DZ[p], W), then added back under the window
// The weights are transposed to [KH * KW * C][out_c] when they fit a second buffer, so that the
// products are MatrixMultiplyAdd's with output channels or patch depth as the wide side (the
// forward's a MatrixMultiplyRuns, setting Y from the bias over all filter rows at once); with
// fewer than 8 output channels the forward instead takes each output as a dot product of a
// window and a weight row (MatrixMultiplyTransposedAdd). Either way the pixels of an output row
// whose windows lie inside the input (dilation_w 1) need no patches at all: per filter row
// their inputs form a strided matrix the products read in place. When the input under a band
// of output rows fits the patch buffer with its padding, the forward and a weight gradient
// alone copy it there, padding as zeros, and every window of the band is such a row: no border
// pixels are left. With stride 1 and fewer than 16 input channels, dX is the transposed
// convolution, run as a forward convolution over dZ with the weights turned around (its dot
// products have whole vectors where the patch gradients would be rows of a few floats
// overlapping in dX). Blocks of pixels live in fixed buffers on the stack (3 x kMaxPatchFloats
// floats, a host thread's stack holds them easily); a convolution whose single patch does not
// fit (KH * KW * C > kMaxPatchFloats) is left to the direct loops.
//
//   if (UsingFastKernels() && ConvPatchesFit(g, out_c)) return ConvForwardByPatches(g, x, w, out_c,
//   ...);
#pragma once

#include "engine/kernels/trained_rows.h"
#include "engine/kernels/window_geometry.h"

namespace trainscope {

inline constexpr int kMaxPatchFloats = 8192;

inline int PatchDepth(const WindowGeometry& g) {
  return g.filter_h * g.filter_w * g.in_c;
}
// Whether one patch, and one output pixel's channels, fit a buffer.
inline bool ConvPatchesFit(const WindowGeometry& g, int out_c) {
  return PatchDepth(g) <= kMaxPatchFloats && out_c <= kMaxPatchFloats;
}

// y = conv(x, w) + bias (bias may be nullptr), before the fused activation.
void ConvForwardByPatches(const WindowGeometry& g, const float* x, const float* w, int out_c,
                          const float* bias, float* y);

// d_weights (compact rows `trained`, may be nullptr) and dx (may be nullptr) += from dz.
void ConvBackwardByPatches(const WindowGeometry& g, const float* x, const float* w, int out_c,
                           const float* dz, RowRange trained, float* d_weights, float* dx);

}  // namespace trainscope
