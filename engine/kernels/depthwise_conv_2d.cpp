// SPDX-License-Identifier: Apache-2.0
//
// DEPTHWISE_CONV_2D, NHWC input [N, H, W, C], weights [1, KH, KW, C*M], optional bias [C*M]:
// output channel oc = c*M + m filters input channel c only,
//   y[n][oy][ox][oc] = act(bias[oc] + sum_{ky,kx} x[n][iy][ix][c] * w[0][ky][kx][oc]).
// The depth multiplier M comes from the shapes; a non-zero depth_multiplier option must agree.
// Backward reads the input and, with a fused activation, the output. The weights have a single
// row, so the half ranks train all of them (as in onert-micro, where only FC and CONV_2D halve).
#include "engine/kernels/conv_common.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(ExpectConvOperands(check));
  const Dims input = check.InputDims(0);
  const Dims weights = check.InputDims(1);
  const int out_c = weights.d[3];
  if (weights.d[0] != 1) {
    return check.Error("weights must be [1, KH, KW, C*M], dimension 0 is %d",
                       static_cast<int>(weights.d[0]));
  }
  if (out_c % input.d[3] != 0) {
    return check.Error(
        "weights have %d output channels, not a multiple of the %d input "
        "channels",
        out_c, static_cast<int>(input.d[3]));
  }
  const int multiplier = out_c / input.d[3];
  if (op.options.depth_multiplier != 0 && op.options.depth_multiplier != multiplier) {
    return check.Error("depth_multiplier is %d but the shapes imply %d",
                       static_cast<int>(op.options.depth_multiplier), multiplier);
  }
  return ExpectConvBiasAndOutput(check, input, weights, out_c);
}

Status Eval(const KernelIo& io) {
  const WindowGeometry g = ConvGeometryOf(io);
  const int out_c = InputTensor(io, 1).shape[3];
  const int multiplier = out_c / g.in_c;
  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  const float* bias = HasInput(io, 2) ? InputFloats(io, 2) : nullptr;
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  for (int p = 0; p < OutputPixels(g); ++p) {
    const WindowTaps taps = TapsOf(g, p);
    float* y_pixel = y + p * out_c;
    for (int oc = 0; oc < out_c; ++oc) {
      const int c = oc / multiplier;
      float sum = bias != nullptr ? bias[oc] : 0.0f;
      for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
        for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
          sum +=
              x[InputPixel(g, taps, ky, kx) * g.in_c + c] * w[(ky * g.filter_w + kx) * out_c + oc];
        }
      }
      y_pixel[oc] = ApplyActivation(activation, sum);
    }
  }
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  const WindowGeometry g = ConvGeometryOf(io);
  const int out_c = InputTensor(io, 1).shape[3];
  const int multiplier = out_c / g.in_c;
  ConvGradients grads;
  TS_RETURN_IF_ERROR(
      StartConvBackward(io, out_c, io.trainable && io.rank != TrainRank::kOnlyBias, &grads));
  const float* dz = grads.dz;
  float* d_weights = grads.d_weights;
  float* dx = grads.dx;
  if (d_weights == nullptr && dx == nullptr) return Status::Ok();

  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  for (int p = 0; p < OutputPixels(g); ++p) {
    const WindowTaps taps = TapsOf(g, p);
    const float* dz_pixel = dz + p * out_c;
    for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
      for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
        const int pixel = InputPixel(g, taps, ky, kx) * g.in_c;
        const int tap = (ky * g.filter_w + kx) * out_c;
        for (int oc = 0; oc < out_c; ++oc) {
          const int c = oc / multiplier;
          if (d_weights != nullptr) d_weights[tap + oc] += dz_pixel[oc] * x[pixel + c];
          if (dx != nullptr) dx[pixel + c] += dz_pixel[oc] * w[tap + oc];
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationDepthwiseConv2D() {
  static constexpr OpRegistration kRegistration =
      ConvRegistration(op::kDepthwiseConv2D, Prepare, Eval, Backward, /*half_rank=*/false);
  return kRegistration;
}

}  // namespace trainscope
