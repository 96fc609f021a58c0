// SPDX-License-Identifier: Apache-2.0
//
// TRANSPOSE_CONV on NHWC: the gradient of a CONV_2D with respect to its input, used as an
// upsampling layer. Inputs: the output shape (INT32 [4], checked at run time against the graph),
// weights [OC, KH, KW, IC], the input [N, H, W, IC] and an optional bias [OC]. Every input pixel
// scatters its weighted filter into the output:
//   y[n, ih * stride_h + kh - pad_top, iw * stride_w + kw - pad_left, oc]
//     += x[n, ih, iw, ic] * w[oc, kh, kw, ic]
// where the padding is the one a CONV_2D with these options would use on the output
// (window_geometry.h), and that convolution must turn the output's size back into the input's.
// Then the bias and the fused activation. Forward only.
#include "engine/kernels/registrations.h"
#include "engine/kernels/window_geometry.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(3, 4, 3));
  TS_RETURN_IF_ERROR(check.ExpectSupportedActivation());
  if (check.Input(0).shape.size() != 1 || check.Input(0).element_count() != 4) {
    return check.Error("the output shape operand must be 1-D with 4 entries");
  }
  TS_RETURN_IF_ERROR(check.ExpectInputRank(1, 4));
  TS_RETURN_IF_ERROR(check.ExpectInputRank(2, 4));
  const Dims w = check.InputDims(1);
  const Dims x = check.InputDims(2);
  const Dims out = check.OutputDims();
  if (out.rank != 4 || out.d[0] != x.d[0] || out.d[3] != w.d[0] || w.d[3] != x.d[3]) {
    return check.Error(
        "shapes do not fit: input [N, H, W, IC], weights [OC, KH, KW, IC] and "
        "output [N, OH, OW, OC]");
  }
  TS_RETURN_IF_ERROR(ValidateWindow(check, out, w.d[1], w.d[2], /*dilated=*/false));
  const WindowGeometry g = MakeWindow(out, op.options, w.d[1], w.d[2], /*dilated=*/false);
  if (g.out_h != x.d[1] || g.out_w != x.d[2]) {
    return check.Error(
        "a %s convolution of the %d x %d output gives %d x %d, not the input's "
        "%d x %d",
        PaddingName(op.options.padding), static_cast<int>(out.d[1]), static_cast<int>(out.d[2]),
        g.out_h, g.out_w, static_cast<int>(x.d[1]), static_cast<int>(x.d[2]));
  }
  if (check.HasInput(3) && check.Input(3).element_count() != static_cast<size_t>(w.d[0])) {
    return check.Error("bias has %zu values; the output has %d channels",
                       check.Input(3).element_count(), static_cast<int>(w.d[0]));
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  const Dims out = DimsOf(OutputTensor(io));
  const int32_t* shape = InputInts(io, 0);
  for (int d = 0; d < 4; ++d) {
    if (shape[d] != out.d[d]) {
      return KernelError(io.op_index, *io.op,
                         "output_shape[%d] is %d but the graph's output has %d there", d,
                         static_cast<int>(shape[d]), static_cast<int>(out.d[d]));
    }
  }
  const Dims w = DimsOf(InputTensor(io, 1));
  const WindowGeometry g = MakeWindow(out, io.op->options, w.d[1], w.d[2], /*dilated=*/false);
  const int in_c = w.d[3];
  const int out_c = w.d[0];
  const float* weights = InputFloats(io, 1);
  const float* x = InputFloats(io, 2);
  float* y = MutableOutputFloats(io);
  const size_t out_count = out.Count();
  for (size_t i = 0; i < out_count; ++i) y[i] = 0.0f;
  // The input pixels are the convolution's output pixels; TapsOf finds the output cells each
  // one touches, the padding already left out.
  for (int p = 0; p < OutputPixels(g); ++p) {
    const WindowTaps taps = TapsOf(g, p);
    const float* in_pixel = x + p * in_c;
    for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
      for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
        float* to = y + InputPixel(g, taps, ky, kx) * out_c;
        for (int oc = 0; oc < out_c; ++oc) {
          const float* filter = weights + ((oc * w.d[1] + ky) * w.d[2] + kx) * in_c;
          float sum = 0.0f;
          for (int ic = 0; ic < in_c; ++ic) sum += in_pixel[ic] * filter[ic];
          to[oc] += sum;
        }
      }
    }
  }
  const float* bias = HasInput(io, 3) ? InputFloats(io, 3) : nullptr;
  const Activation activation = io.op->options.activation;
  for (size_t i = 0; i < out_count; ++i) {
    const float value = bias != nullptr ? y[i] + bias[i % static_cast<size_t>(out_c)] : y[i];
    y[i] = ApplyActivation(activation, value);
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationTransposeConv() {
  static constexpr OpRegistration kRegistration = {
      op::kTransposeConv,          Prepare,           Eval,
      /*backward=*/nullptr,        nullptr,
      /*int32_inputs=*/1u << 0,
      /*backward_reads_inputs=*/0, OutputUse::kNever,
      /*weights_input=*/-1,
      /*bias_input=*/-1,
      /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
