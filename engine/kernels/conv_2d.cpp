// SPDX-License-Identifier: Apache-2.0
//
// CONV_2D, NHWC input [N, H, W, C], OHWI weights [O, KH, KW, C], optional bias [O]:
//   y[n][oy][ox][o] = act(bias[o] + sum_{ky,kx,c} x[n][oy*sh - pad_top + ky*dh]
//                                                  [ox*sw - pad_left + kx*dw][c] * w[o][ky][kx][c])
// with cells in the padding contributing nothing. Backward is exact for SAME and VALID padding,
// any stride and dilation: dX is the transposed convolution summed over all output channels,
// dW correlates dZ with the input. Backward reads the input and, with a fused activation, the
// output. The weight gradient is compact for the half ranks (output channels TrainedRows()).
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
  if (weights.d[3] != input.d[3]) {
    return check.Unsupported(
        "weights have %d input channels but the input has %d (grouped "
        "convolution is not supported)",
        weights.d[3], input.d[3]);
  }
  const int out_c = weights.d[0];
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
  const int out_c = InputTensor(io, 1).shape[0];
  const int c_in = g.in_c;
  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  const float* bias = HasInput(io, 2) ? InputFloats(io, 2) : nullptr;
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  for (int n = 0; n < g.batch; ++n) {
    for (int oy = 0; oy < g.out_h; ++oy) {
      for (int ox = 0; ox < g.out_w; ++ox) {
        float* y_pixel = y + ((n * g.out_h + oy) * g.out_w + ox) * out_c;
        for (int o = 0; o < out_c; ++o) {
          float sum = bias != nullptr ? bias[o] : 0.0f;
          for (int ky = 0; ky < g.filter_h; ++ky) {
            const int iy = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
            if (iy < 0 || iy >= g.in_h) continue;
            for (int kx = 0; kx < g.filter_w; ++kx) {
              const int ix = ox * g.stride_w - g.pad_left + kx * g.dilation_w;
              if (ix < 0 || ix >= g.in_w) continue;
              const float* x_pixel = x + ((n * g.in_h + iy) * g.in_w + ix) * c_in;
              const float* w_taps = w + ((o * g.filter_h + ky) * g.filter_w + kx) * c_in;
              for (int c = 0; c < c_in; ++c) sum += x_pixel[c] * w_taps[c];
            }
          }
          y_pixel[o] = ApplyActivation(activation, sum);
        }
      }
    }
  }
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  const WindowGeometry g = GeometryOf(io);
  const int out_c = InputTensor(io, 1).shape[0];
  const int c_in = g.in_c;
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  // Every buffer is checked before anything is written, so an error leaves them all unchanged.
  const RowRange rows = TrainedRows(io.rank, out_c);
  float* d_weights = nullptr;
  float* d_bias = nullptr;
  TS_RETURN_IF_ERROR(ParamGradient(io, 1, io.trainable && !rows.empty(), &d_weights));
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
            const int pixel = ((n * g.in_h + iy) * g.in_w + ix) * c_in;
            const int tap = ky * g.filter_w + kx;
            if (d_weights != nullptr) {
              for (int o = rows.begin; o < rows.end; ++o) {
                float* dw_taps =
                    d_weights + ((o - rows.begin) * g.filter_h * g.filter_w + tap) * c_in;
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
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationConv2D() {
  static constexpr OpRegistration kRegistration = {op::kConv2D,
                                                   Prepare,
                                                   Eval,
                                                   Backward,
                                                   FusedActivationScratch,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/1u << 0,
                                                   OutputUse::kFusedActivation,
                                                   /*weights_input=*/1,
                                                   /*bias_input=*/2,
                                                   /*half_rank=*/true};
  return kRegistration;
}

}  // namespace trainscope
