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

// Channels are the inner loop (adjacent in memory, so the loops vectorise); every output still
// sums its cells in row-major window order.
Status Eval(const KernelIo& io) {
  const WindowGeometry g = PoolGeometryOf(io);
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const int channels = g.in_c;
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    const int cells = taps.Count();
    float* y_pixel = y + p * channels;
    for (int c = 0; c < channels; ++c) y_pixel[c] = 0.0f;
    for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
      for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
        const float* cell = x + InputPixel(g, taps, ky, kx) * channels;
        for (int c = 0; c < channels; ++c) y_pixel[c] += cell[c];
      }
    }
    if (cells > 0) {
      const float count = static_cast<float>(cells);
      for (int c = 0; c < channels; ++c) y_pixel[c] /= count;
    }
  }
  ApplyActivationInPlace(io.op->options.activation, y,
                         static_cast<size_t>(OutputPixels(g) * channels));
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  PoolGradients grads;
  TS_RETURN_IF_ERROR(StartPoolBackward(io, &grads));
  if (grads.dx == nullptr) return Status::Ok();
  const WindowGeometry g = PoolGeometryOf(io);
  const int channels = g.in_c;
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    const int cells = taps.Count();
    if (cells == 0) continue;
    const float scale = 1.0f / static_cast<float>(cells);
    const float* dz = grads.dz + p * channels;
    for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
      for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
        float* cell = grads.dx + InputPixel(g, taps, ky, kx) * channels;
        for (int c = 0; c < channels; ++c) cell[c] += dz[c] * scale;
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
