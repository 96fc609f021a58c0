// SPDX-License-Identifier: Apache-2.0
//
// Sliding-window geometry shared by CONV_2D, DEPTHWISE_CONV_2D and the 2-D pools (NHWC).
// Output sizes and paddings follow TFLite: SAME gives ceil(in / stride) outputs with the padding
// split evenly and the odd cell after; VALID uses no padding. Windows cells that fall in the
// padding are skipped (they contribute zero to a convolution and are excluded from pools).
//
//   TS_RETURN_IF_ERROR(ValidateWindow(check, input, filter_h, filter_w, true));   // Prepare
//   const WindowGeometry g = MakeWindow(DimsOf(x), options, filter_h, filter_w, true);  // Eval
//   int y0 = oy * g.stride_h - g.pad_top;  // first input row of the window
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

}  // namespace trainscope
