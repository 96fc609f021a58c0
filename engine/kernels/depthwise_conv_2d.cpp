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

// Output channels are the inner loop (adjacent in weights and output, so the loops vectorise);
// every output still sums its bias and then its taps in row-major window order, and every
// gradient element receives its terms in the order of the plain per-channel loops.
Status Eval(const KernelIo& io) {
  const WindowGeometry g = ConvGeometryOf(io);
  const int out_c = InputTensor(io, 1).shape[3];
  const int multiplier = out_c / g.in_c;
  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  const float* bias = HasInput(io, 2) ? InputFloats(io, 2) : nullptr;
  float* y = MutableOutputFloats(io);
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    float* y_pixel = y + p * out_c;
    for (int oc = 0; oc < out_c; ++oc) y_pixel[oc] = bias != nullptr ? bias[oc] : 0.0f;
    for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
      for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
        const float* x_cell = x + InputPixel(g, taps, ky, kx) * g.in_c;
        const float* w_tap = w + (ky * g.filter_w + kx) * out_c;
        if (multiplier == 1) {
          for (int oc = 0; oc < out_c; ++oc) y_pixel[oc] += x_cell[oc] * w_tap[oc];
          continue;
        }
        for (int c = 0; c < g.in_c; ++c) {
          for (int m = 0; m < multiplier; ++m) {
            const int oc = c * multiplier + m;
            y_pixel[oc] += x_cell[c] * w_tap[oc];
          }
        }
      }
    }
  }
  ApplyActivationInPlace(io.op->options.activation, y,
                         static_cast<size_t>(OutputPixels(g) * out_c));
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  const WindowGeometry g = ConvGeometryOf(io);
  const int out_c = InputTensor(io, 1).shape[3];
  const int multiplier = out_c / g.in_c;
  ConvGradients grads;
  TS_RETURN_IF_ERROR(
      StartConvBackward(io, out_c, io.trainable && io.rank != TrainRank::kOnlyBias, &grads));
  float* d_weights = grads.d_weights;
  float* dx = grads.dx;
  if (d_weights == nullptr && dx == nullptr) return Status::Ok();

  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    const float* dz = grads.dz + p * out_c;
    for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
      for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
        const int pixel = InputPixel(g, taps, ky, kx) * g.in_c;
        const int tap = (ky * g.filter_w + kx) * out_c;
        if (d_weights != nullptr) {
          float* dw_tap = d_weights + tap;
          for (int c = 0; c < g.in_c; ++c) {
            for (int m = 0; m < multiplier; ++m) {
              const int oc = c * multiplier + m;
              dw_tap[oc] += dz[oc] * x[pixel + c];
            }
          }
        }
        if (dx != nullptr) {
          const float* w_tap = w + tap;
          for (int c = 0; c < g.in_c; ++c) {
            for (int m = 0; m < multiplier; ++m) {
              const int oc = c * multiplier + m;
              dx[pixel + c] += dz[oc] * w_tap[oc];
            }
          }
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
