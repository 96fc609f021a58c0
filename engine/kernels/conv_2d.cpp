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
//
// BackwardAsOnertMicro computes what onert-micro's Conv2D train kernel computes instead
// (research/onert-micro-training.md §7.3), for BackwardMath::kOnertMicro:
//   dW[o][ky][kx][c] = sum_{oy,ox} x[ky*sh + dh*oy][kx*sw + dw*ox][c] * dz[oy][ox][o]
//     (no padding; stride and dilation in swapped roles; o counts from 0 for LOWER_1_2_PART too)
//   dX[y][x][c] = sum_{fy,fx} dz[y*sh + dh*fy][x*sw + dw*fx][o_last] * w[o_last][fy][KW-1-fx][c]
//     (columns mirrored only, dz not padded, and each output channel overwrites the previous
//     one's sum, so only the last survives). Terms outside x or dz are skipped, as there.
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

Status BackwardAsOnertMicro(const BackwardIo& io) {
  const WindowGeometry g = ConvGeometryOf(io);
  const int out_c = InputTensor(io, 1).shape[0];
  const int c_in = g.in_c;
  const int rows = TrainedRows(io.rank, out_c).count();
  ConvGradients grads;
  TS_RETURN_IF_ERROR(StartConvBackward(io, out_c, io.trainable && rows > 0, &grads));
  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  const int kh = g.filter_h, kw = g.filter_w;
  const int sh = g.stride_h, sw = g.stride_w, dh = g.dilation_h, dw = g.dilation_w;
  for (int n = 0; n < g.batch; ++n) {
    const float* x_n = x + n * g.in_h * g.in_w * c_in;
    const float* dz_n = grads.dz + n * g.out_h * g.out_w * out_c;
    if (grads.d_weights != nullptr) {
      for (int o = 0; o < rows; ++o) {
        for (int ky = 0; ky < kh; ++ky) {
          for (int kx = 0; kx < kw; ++kx) {
            float* dw_taps = grads.d_weights + ((o * kh + ky) * kw + kx) * c_in;
            for (int oy = 0; oy < g.out_h; ++oy) {
              const int iy = ky * sh + dh * oy;
              if (iy >= g.in_h) continue;
              for (int ox = 0; ox < g.out_w; ++ox) {
                const int ix = kx * sw + dw * ox;
                if (ix >= g.in_w) continue;
                const float dz = dz_n[(oy * g.out_w + ox) * out_c + o];
                const float* x_pixel = x_n + (iy * g.in_w + ix) * c_in;
                for (int c = 0; c < c_in; ++c) dw_taps[c] += x_pixel[c] * dz;
              }
            }
          }
        }
      }
    }
    if (grads.dx != nullptr) {
      float* dx_n = grads.dx + n * g.in_h * g.in_w * c_in;
      const int o = out_c - 1;
      for (int y = 0; y < g.in_h; ++y) {
        for (int xx = 0; xx < g.in_w; ++xx) {
          for (int c = 0; c < c_in; ++c) {
            float sum = 0.0f;
            for (int fy = 0; fy < kh; ++fy) {
              const int gy = y * sh + dh * fy;
              if (gy >= g.out_h) continue;
              for (int fx = 0; fx < kw; ++fx) {
                const int gx = xx * sw + dw * fx;
                if (gx >= g.out_w) continue;
                const float mirrored = w[((o * kh + fy) * kw + (kw - 1 - fx)) * c_in + c];
                sum += dz_n[(gy * g.out_w + gx) * out_c + o] * mirrored;
              }
            }
            dx_n[(y * g.in_w + xx) * c_in + c] += sum;
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
      WithOnertBackward(ConvRegistration(op::kConv2D, Prepare, Eval, Backward, /*half_rank=*/true),
                        BackwardAsOnertMicro);
  return kRegistration;
}

}  // namespace trainscope
