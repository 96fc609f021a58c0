// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/window_geometry.h"

namespace trainscope {
namespace {

// Bounds strides, dilations and filter sizes so that every window coordinate, (filter - 1) *
// dilation + output * stride, stays far inside int for tensors of up to 2^30 elements.
constexpr int kMaxWindowParameter = 1 << 15;

bool InRange(int value) {
  return value >= 1 && value <= kMaxWindowParameter;
}

int OutputSize(Padding padding, int in, int filter, int stride, int dilation) {
  const int effective = (filter - 1) * dilation + 1;
  if (padding == Padding::kSame) return (in + stride - 1) / stride;
  return (in - effective + stride) / stride;
}

int PaddingBefore(int in, int out, int filter, int stride, int dilation) {
  const int effective = (filter - 1) * dilation + 1;
  const int total = (out - 1) * stride + effective - in;
  return total > 0 ? total / 2 : 0;
}

}  // namespace

WindowGeometry MakeWindow(const Dims& input, const OpOptions& options, int filter_h, int filter_w,
                          bool dilated) {
  WindowGeometry g;
  g.batch = input.d[0];
  g.in_h = input.d[1];
  g.in_w = input.d[2];
  g.in_c = input.d[3];
  g.filter_h = filter_h;
  g.filter_w = filter_w;
  g.stride_h = options.stride_h;
  g.stride_w = options.stride_w;
  g.dilation_h = dilated ? options.dilation_h : 1;
  g.dilation_w = dilated ? options.dilation_w : 1;
  g.out_h = OutputSize(options.padding, g.in_h, filter_h, g.stride_h, g.dilation_h);
  g.out_w = OutputSize(options.padding, g.in_w, filter_w, g.stride_w, g.dilation_w);
  if (options.padding == Padding::kSame) {
    g.pad_top = PaddingBefore(g.in_h, g.out_h, filter_h, g.stride_h, g.dilation_h);
    g.pad_left = PaddingBefore(g.in_w, g.out_w, filter_w, g.stride_w, g.dilation_w);
  }
  return g;
}

Status ValidateWindow(const OpCheck& check, const Dims& input, int filter_h, int filter_w,
                      bool dilated) {
  const OpOptions& o = check.options();
  if (input.rank != 4)
    return check.Error("input must be NHWC (rank 4), it has rank %d", input.rank);
  if (!InRange(o.stride_h) || !InRange(o.stride_w)) {
    return check.Error("strides must be in [1, %d], got stride_h %d, stride_w %d",
                       kMaxWindowParameter, static_cast<int>(o.stride_h),
                       static_cast<int>(o.stride_w));
  }
  if (dilated && (!InRange(o.dilation_h) || !InRange(o.dilation_w))) {
    return check.Error("dilations must be in [1, %d], got dilation_h %d, dilation_w %d",
                       kMaxWindowParameter, static_cast<int>(o.dilation_h),
                       static_cast<int>(o.dilation_w));
  }
  if (!InRange(filter_h) || !InRange(filter_w)) {
    return check.Error("filter size must be in [1, %d], got %d x %d", kMaxWindowParameter, filter_h,
                       filter_w);
  }
  const WindowGeometry g = MakeWindow(input, o, filter_h, filter_w, dilated);
  if (g.out_h < 1 || g.out_w < 1) {
    return check.Error(
        "a %d x %d filter (dilation %d x %d) does not fit the %d x %d input with "
        "%s padding",
        filter_h, filter_w, g.dilation_h, g.dilation_w, g.in_h, g.in_w, PaddingName(o.padding));
  }
  return Status::Ok();
}

Status PreparePool(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(1, 1, 1));
  TS_RETURN_IF_ERROR(check.ExpectSupportedActivation());
  const Dims input = check.InputDims(0);
  const OpOptions& o = op.options;
  TS_RETURN_IF_ERROR(ValidateWindow(check, input, o.filter_h, o.filter_w, false));
  const WindowGeometry g = MakeWindow(input, o, o.filter_h, o.filter_w, false);
  Dims expected;
  expected.rank = 4;
  expected.d[0] = g.batch;
  expected.d[1] = g.out_h;
  expected.d[2] = g.out_w;
  expected.d[3] = g.in_c;
  return check.ExpectOutputDims(expected, "from the input, filter, strides and padding");
}

}  // namespace trainscope
