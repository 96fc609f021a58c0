// SPDX-License-Identifier: Apache-2.0
//
// CONV_2D, NHWC input [N, H, W, C], OHWI weights [O, KH, KW, C], optional bias [O]:
//   y[n][oy][ox][o] = act(bias[o] + sum_{ky,kx,c} x[n][oy*sh - pad_top + ky*dh]
//                                                  [ox*sw - pad_left + kx*dw][c] * w[o][ky][kx][c])
// with cells in the padding contributing nothing. Backward is exact for SAME and VALID padding,
// any stride and dilation: dX is the transposed convolution summed over all output channels,
// dW correlates dZ with the input. Backward reads the input and, with a fused activation, the
// output. The weight gradient is compact for the half ranks (output channels TrainedRows()).
// On a host with AVX2 the op runs as dense products over window patches (conv_patches.h); the
// loops here are the reference path, which the firmware build runs.
#include "engine/kernels/conv_common.h"
#include "engine/kernels/conv_patches.h"
#include "engine/kernels/dense_loops.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(ExpectConvOperands(check));
  const Dims input = check.InputDims(0);
  const Dims weights = check.InputDims(1);
  if (weights.d[3] != input.d[3]) {
    return check.Unsupported(
        "weights have %d input channels but the input has %d (grouped "
        "convolution is not supported)",
        static_cast<int>(weights.d[3]), static_cast<int>(input.d[3]));
  }
  return ExpectConvBiasAndOutput(check, input, weights, weights.d[0]);
}

Status Eval(const KernelIo& io) {
  const WindowGeometry g = ConvGeometryOf(io);
  const int out_c = InputTensor(io, 1).shape[0];
  const int c_in = g.in_c;
  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  const float* bias = HasInput(io, 2) ? InputFloats(io, 2) : nullptr;
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  if (UsingFastKernels() && ConvPatchesFit(g, out_c)) {
    ConvForwardByPatches(g, x, w, out_c, bias, y);
    ApplyActivationInPlace(activation, y, static_cast<size_t>(OutputPixels(g) * out_c));
    return Status::Ok();
  }
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    float* y_pixel = y + p * out_c;
    for (int o = 0; o < out_c; ++o) {
      float sum = bias != nullptr ? bias[o] : 0.0f;
      for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
        for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
          const float* x_pixel = x + InputPixel(g, taps, ky, kx) * c_in;
          const float* w_taps = w + ((o * g.filter_h + ky) * g.filter_w + kx) * c_in;
          for (int c = 0; c < c_in; ++c) sum += x_pixel[c] * w_taps[c];
        }
      }
      y_pixel[o] = ApplyActivation(activation, sum);
    }
  }
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  const WindowGeometry g = ConvGeometryOf(io);
  const int out_c = InputTensor(io, 1).shape[0];
  const int c_in = g.in_c;
  const RowRange rows = TrainedRows(io.rank, out_c);
  ConvGradients grads;
  TS_RETURN_IF_ERROR(StartConvBackward(io, out_c, io.trainable && !rows.empty(), &grads));
  const float* dz = grads.dz;
  float* d_weights = grads.d_weights;
  float* dx = grads.dx;
  if (d_weights == nullptr && dx == nullptr) return Status::Ok();

  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  if (UsingFastKernels() && ConvPatchesFit(g, out_c)) {
    ConvBackwardByPatches(g, x, w, out_c, dz, rows, d_weights, dx);
    return Status::Ok();
  }
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    const float* dz_pixel = dz + p * out_c;
    for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
      for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
        const int pixel = InputPixel(g, taps, ky, kx) * c_in;
        const int tap = ky * g.filter_w + kx;
        if (d_weights != nullptr) {
          for (int o = rows.begin; o < rows.end; ++o) {
            float* dw_taps = d_weights + ((o - rows.begin) * g.filter_h * g.filter_w + tap) * c_in;
            for (int c = 0; c < c_in; ++c) dw_taps[c] += dz_pixel[o] * x[pixel + c];
          }
        }
        if (dx != nullptr) {
          for (int o = 0; o < out_c; ++o) {
            const float* w_taps = w + (o * g.filter_h * g.filter_w + tap) * c_in;
            for (int c = 0; c < c_in; ++c) dx[pixel + c] += dz_pixel[o] * w_taps[c];
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationConv2D() {
  static constexpr OpRegistration kRegistration =
      ConvRegistration(op::kConv2D, Prepare, Eval, Backward, /*half_rank=*/true);
  return kRegistration;
}

}  // namespace trainscope
