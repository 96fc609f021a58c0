// SPDX-License-Identifier: Apache-2.0
//
// MAX_POOL_2D (NHWC): each output is the maximum of the window cells inside the input (padding
// cells never win). Backward routes each output's gradient to the first maximum of its window in
// row-major window order, re-found from the saved forward input; windows that overlap add their
// gradients (+=), unlike onert-micro's assignment. Reads the input, and the output when an
// activation is fused.
#include "engine/kernels/pool_windows.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

// Flat input offset of the first maximum of channel c in the window (-1 when it has no cells).
int ArgMax(const WindowGeometry& g, const WindowTaps& taps, const float* x, int c) {
  int best = -1;
  float best_value = 0.0f;
  for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
    for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
      const int offset = InputPixel(g, taps, ky, kx) * g.in_c + c;
      if (best < 0 || x[offset] > best_value) {
        best = offset;
        best_value = x[offset];
      }
    }
  }
  return best;
}

Status Eval(const KernelIo& io) {
  const WindowGeometry g = PoolGeometryOf(io);
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  for (int p = 0; p < OutputPixels(g); ++p) {
    const WindowTaps taps = TapsOf(g, p);
    for (int c = 0; c < g.in_c; ++c) {
      const int best = ArgMax(g, taps, x, c);
      const float value = best >= 0 ? x[best] : 0.0f;
      y[p * g.in_c + c] = ApplyActivation(activation, value);
    }
  }
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  PoolGradients grads;
  TS_RETURN_IF_ERROR(StartPoolBackward(io, &grads));
  if (grads.dx == nullptr) return Status::Ok();
  const WindowGeometry g = PoolGeometryOf(io);
  const float* x = InputFloats(io, 0);
  for (int p = 0; p < OutputPixels(g); ++p) {
    const WindowTaps taps = TapsOf(g, p);
    for (int c = 0; c < g.in_c; ++c) {
      const int best = ArgMax(g, taps, x, c);
      if (best >= 0) grads.dx[best] += grads.dz[p * g.in_c + c];
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationMaxPool2D() {
  static constexpr OpRegistration kRegistration =
      PoolRegistration(op::kMaxPool2D, Eval, Backward, /*backward_reads_inputs=*/1u << 0);
  return kRegistration;
}

}  // namespace trainscope
