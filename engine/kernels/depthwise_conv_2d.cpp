// SPDX-License-Identifier: Apache-2.0
//
// DEPTHWISE_CONV_2D, NHWC input [N, H, W, C], weights [1, KH, KW, C*M], optional bias [C*M]:
// output channel oc = c*M + m filters input channel c only,
//   y[n][oy][ox][oc] = act(bias[oc] + sum_{ky,kx} x[n][iy][ix][c] * w[0][ky][kx][oc]).
// The depth multiplier M comes from the shapes; a non-zero depth_multiplier option must agree.
// Backward reads the input and, with a fused activation, the output. The weights have a single
// row, so the half ranks train all of them (as in onert-micro, where only FC and CONV_2D halve).
#include "engine/kernels/registrations.h"
#include "engine/kernels/window_geometry.h"

namespace trainscope {
namespace {

template <typename Io>
WindowGeometry GeometryOf(const Io& io) {
  const Tensor& weights = InputTensor(io, 1);
  return MakeWindow(DimsOf(InputTensor(io, 0)), io.op->options, weights.shape[1], weights.shape[2],
                    true);
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 3, 2));
  TS_RETURN_IF_ERROR(check.ExpectSupportedActivation());
  TS_RETURN_IF_ERROR(check.ExpectInputRank(0, 4));
  TS_RETURN_IF_ERROR(check.ExpectInputRank(1, 4));
  const Dims input = check.InputDims(0);
  const Dims weights = check.InputDims(1);
  const int out_c = weights.d[3];
  if (weights.d[0] != 1) {
    return check.Error("weights must be [1, KH, KW, C*M], dimension 0 is %d", weights.d[0]);
  }
  if (out_c % input.d[3] != 0) {
    return check.Error(
        "weights have %d output channels, not a multiple of the %d input "
        "channels",
        out_c, input.d[3]);
  }
  const int multiplier = out_c / input.d[3];
  if (op.options.depth_multiplier != 0 && op.options.depth_multiplier != multiplier) {
    return check.Error("depth_multiplier is %d but the shapes imply %d",
                       op.options.depth_multiplier, multiplier);
  }
  if (check.HasInput(2) && check.Input(2).element_count() != static_cast<size_t>(out_c)) {
    return check.Error("bias tensor %d '%s' has %zu elements, expected %d (output channels)",
                       op.inputs[2], check.Input(2).name.c_str(), check.Input(2).element_count(),
                       out_c);
  }
  TS_RETURN_IF_ERROR(ValidateWindow(check, input, weights.d[1], weights.d[2], true));
  const WindowGeometry g = MakeWindow(input, op.options, weights.d[1], weights.d[2], true);
  Dims expected;
  expected.rank = 4;
  expected.d[0] = g.batch;
  expected.d[1] = g.out_h;
  expected.d[2] = g.out_w;
  expected.d[3] = out_c;
  return check.ExpectOutputDims(expected, "from the input, weights, strides and padding");
}

Status Eval(const KernelIo& io) {
  const WindowGeometry g = GeometryOf(io);
  const int out_c = InputTensor(io, 1).shape[3];
  const int multiplier = out_c / g.in_c;
  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  const float* bias = HasInput(io, 2) ? InputFloats(io, 2) : nullptr;
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  for (int n = 0; n < g.batch; ++n) {
    for (int oy = 0; oy < g.out_h; ++oy) {
      for (int ox = 0; ox < g.out_w; ++ox) {
        float* y_pixel = y + ((n * g.out_h + oy) * g.out_w + ox) * out_c;
        for (int oc = 0; oc < out_c; ++oc) {
          const int c = oc / multiplier;
          float sum = bias != nullptr ? bias[oc] : 0.0f;
          for (int ky = 0; ky < g.filter_h; ++ky) {
            const int iy = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
            if (iy < 0 || iy >= g.in_h) continue;
            for (int kx = 0; kx < g.filter_w; ++kx) {
              const int ix = ox * g.stride_w - g.pad_left + kx * g.dilation_w;
              if (ix < 0 || ix >= g.in_w) continue;
              sum += x[((n * g.in_h + iy) * g.in_w + ix) * g.in_c + c] *
                     w[(ky * g.filter_w + kx) * out_c + oc];
            }
          }
          y_pixel[oc] = ApplyActivation(activation, sum);
        }
      }
    }
  }
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  const WindowGeometry g = GeometryOf(io);
  const int out_c = InputTensor(io, 1).shape[3];
  const int multiplier = out_c / g.in_c;
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  // Every buffer is checked before anything is written, so an error leaves them all unchanged.
  float* d_weights = nullptr;
  float* d_bias = nullptr;
  TS_RETURN_IF_ERROR(
      ParamGradient(io, 1, io.trainable && io.rank != TrainRank::kOnlyBias, &d_weights));
  TS_RETURN_IF_ERROR(ParamGradient(io, 2, io.trainable, &d_bias));
  const size_t out_count = OutputTensor(io).element_count();
  const float* dz =
      PreActivationGradient(io.op->options.activation, OutputFloats(io), dy, out_count, io.scratch);

  if (d_bias != nullptr) {
    for (size_t i = 0; i < out_count; ++i) d_bias[i % static_cast<size_t>(out_c)] += dz[i];
  }

  float* dx = InputGradient(io, 0);
  if (d_weights == nullptr && dx == nullptr) return Status::Ok();

  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  for (int n = 0; n < g.batch; ++n) {
    for (int oy = 0; oy < g.out_h; ++oy) {
      for (int ox = 0; ox < g.out_w; ++ox) {
        const float* dz_pixel = dz + ((n * g.out_h + oy) * g.out_w + ox) * out_c;
        for (int ky = 0; ky < g.filter_h; ++ky) {
          const int iy = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
          if (iy < 0 || iy >= g.in_h) continue;
          for (int kx = 0; kx < g.filter_w; ++kx) {
            const int ix = ox * g.stride_w - g.pad_left + kx * g.dilation_w;
            if (ix < 0 || ix >= g.in_w) continue;
            const int pixel = ((n * g.in_h + iy) * g.in_w + ix) * g.in_c;
            const int tap = (ky * g.filter_w + kx) * out_c;
            for (int oc = 0; oc < out_c; ++oc) {
              const int c = oc / multiplier;
              if (d_weights != nullptr) d_weights[tap + oc] += dz_pixel[oc] * x[pixel + c];
              if (dx != nullptr) dx[pixel + c] += dz_pixel[oc] * w[tap + oc];
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
  static constexpr OpRegistration kRegistration = {op::kDepthwiseConv2D,
                                                   Prepare,
                                                   Eval,
                                                   Backward,
                                                   FusedActivationScratch,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/1u << 0,
                                                   OutputUse::kFusedActivation,
                                                   /*weights_input=*/1,
                                                   /*bias_input=*/2,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
