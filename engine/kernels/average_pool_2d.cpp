// SPDX-License-Identifier: Apache-2.0
//
// AVERAGE_POOL_2D (NHWC): each output is the mean of the window cells inside the input; with SAME
// padding the padded cells are excluded from the count, as in TFLite. Backward spreads each
// output's gradient evenly over those cells (+=). Reads only the output, and only when an
// activation is fused.
#include "engine/kernels/pool_windows.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  const WindowGeometry g = PoolGeometryOf(io);
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  for (int p = 0; p < OutputPixels(g); ++p) {
    const WindowTaps taps = TapsOf(g, p);
    const int cells = taps.Count();
    for (int c = 0; c < g.in_c; ++c) {
      float sum = 0.0f;
      for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
        for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
          sum += x[InputPixel(g, taps, ky, kx) * g.in_c + c];
        }
      }
      const float mean = cells > 0 ? sum / static_cast<float>(cells) : 0.0f;
      y[p * g.in_c + c] = ApplyActivation(activation, mean);
    }
  }
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  PoolGradients grads;
  TS_RETURN_IF_ERROR(StartPoolBackward(io, &grads));
  if (grads.dx == nullptr) return Status::Ok();
  const WindowGeometry g = PoolGeometryOf(io);
  for (int p = 0; p < OutputPixels(g); ++p) {
    const WindowTaps taps = TapsOf(g, p);
    const int cells = taps.Count();
    if (cells == 0) continue;
    const float scale = 1.0f / static_cast<float>(cells);
    for (int c = 0; c < g.in_c; ++c) {
      const float share = grads.dz[p * g.in_c + c] * scale;
      for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
        for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
          grads.dx[InputPixel(g, taps, ky, kx) * g.in_c + c] += share;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationAveragePool2D() {
  static constexpr OpRegistration kRegistration =
      PoolRegistration(op::kAveragePool2D, Eval, Backward, /*backward_reads_inputs=*/0);
  return kRegistration;
}

}  // namespace trainscope
