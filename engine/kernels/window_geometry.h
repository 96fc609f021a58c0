// SPDX-License-Identifier: Apache-2.0
//
// Sliding-window geometry shared by CONV_2D, DEPTHWISE_CONV_2D and the 2-D pools (NHWC).
// Output sizes and paddings follow TFLite: SAME gives ceil(in / stride) outputs with the padding
// split evenly and the odd cell after; VALID uses no padding. Windows cells that fall in the
// padding are skipped (they contribute zero to a convolution and are excluded from pools).
//
//   TS_RETURN_IF_ERROR(ValidateWindow(check, input, filter_h, filter_w, true));   // Prepare
//   const WindowGeometry g = MakeWindow(DimsOf(x), options, filter_h, filter_w, true);  // Eval
//   OutputPixelWalk walk;
//   for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
//     const WindowTaps taps = walk.Taps(g);
//     for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky)
//       for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) ... x[InputPixel(g, taps, ky, kx) * c]
#pragma once

#include <cstdint>

#include "engine/kernels/kernel_util.h"

namespace trainscope {

struct WindowGeometry {
  int batch = 0;
  int in_h = 0, in_w = 0, in_c = 0;
  int out_h = 0, out_w = 0;
  int filter_h = 0, filter_w = 0;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_left = 0;
};

// `input` is NHWC; pools pass dilated = false (their options carry no dilation).
WindowGeometry MakeWindow(const Dims& input, const OpOptions& options, int filter_h, int filter_w,
                          bool dilated);

// Prepare-time checks: rank-4 input, strides, dilations and filter sizes >= 1, a non-empty output.
Status ValidateWindow(const OpCheck& check, const Dims& input, int filter_h, int filter_w,
                      bool dilated);

// MAX_POOL_2D / AVERAGE_POOL_2D Prepare: one input, one output [N, OH, OW, C].
Status PreparePool(const Subgraph& subgraph, const Operator& op, uint32_t op_index);

// The window of one output pixel: its batch index and the filter taps that fall inside the input,
// rows ky in [ky_begin, ky_end) and columns kx in [kx_begin, kx_end) (empty when none). Walking
// these ranges in order visits the same taps, in the same order, as walking the whole filter and
// skipping the padding.
struct WindowTaps {
  int n = 0;
  int top = 0, left = 0;  // input row and column of tap (0, 0), possibly in the padding
  int ky_begin = 0, ky_end = 0;
  int kx_begin = 0, kx_end = 0;
  int Count() const { return (ky_end - ky_begin) * (kx_end - kx_begin); }
};

// Output pixels [N, OH, OW] in NHWC order; pixel p starts at flat offset p * channels.
inline int OutputPixels(const WindowGeometry& g) {
  return g.batch * g.out_h * g.out_w;
}

// Used by TapsOf: the filter cells k in [0, filter) whose coordinate start + k * dilation lies in
// [0, size) form one run; returns it as [*begin, *end). Only border windows step past a cell, so
// the scans are cheaper than dividing.
inline void InsideRun(int start, int filter, int dilation, int size, int* begin, int* end) {
  int first = 0;
  while (first < filter && start + first * dilation < 0) ++first;
  int last = filter;
  while (last > first && start + (last - 1) * dilation >= size) --last;
  *begin = first;
  *end = last;
}

// The window of output pixel (n, oy, ox).
inline WindowTaps TapsAt(const WindowGeometry& g, int n, int oy, int ox) {
  WindowTaps taps;
  taps.n = n;
  taps.top = oy * g.stride_h - g.pad_top;
  taps.left = ox * g.stride_w - g.pad_left;
  InsideRun(taps.top, g.filter_h, g.dilation_h, g.in_h, &taps.ky_begin, &taps.ky_end);
  InsideRun(taps.left, g.filter_w, g.dilation_w, g.in_w, &taps.kx_begin, &taps.kx_end);
  return taps;
}

// The window of output pixel `out_pixel` (0 <= out_pixel < OutputPixels(g)).
inline WindowTaps TapsOf(const WindowGeometry& g, int out_pixel) {
  return TapsAt(g, out_pixel / g.out_w / g.out_h, out_pixel / g.out_w % g.out_h,
                out_pixel % g.out_w);
}

// The output pixels 0, 1, 2, ... in order, with their windows, without TapsOf's divisions (which
// cost more than a small window's work):
//   OutputPixelWalk walk;
//   for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) { const WindowTaps taps = walk.Taps(g);
//   }
struct OutputPixelWalk {
  int n = 0, oy = 0, ox = 0;

  WindowTaps Taps(const WindowGeometry& g) const { return TapsAt(g, n, oy, ox); }
  void Next(const WindowGeometry& g) {
    if (++ox < g.out_w) return;
    ox = 0;
    if (++oy < g.out_h) return;
    oy = 0;
    ++n;
  }
};

// Input pixel (n, iy, ix) under tap (ky, kx), as (n * in_h + iy) * in_w + ix.
inline int InputPixel(const WindowGeometry& g, const WindowTaps& taps, int ky, int kx) {
  return (taps.n * g.in_h + taps.top + ky * g.dilation_h) * g.in_w + taps.left + kx * g.dilation_w;
}

}  // namespace trainscope
