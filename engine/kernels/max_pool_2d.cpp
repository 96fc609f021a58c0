// SPDX-License-Identifier: Apache-2.0
//
// MAX_POOL_2D (NHWC): each output is the maximum of the window cells inside the input (padding
// cells never win). Backward routes each output's gradient to the first maximum of its window in
// row-major window order, re-found from the saved forward input; windows that overlap add their
// gradients (+=), unlike onert-micro's assignment. Reads the input, and the output when an
// activation is fused.
#include "engine/kernels/registrations.h"
#include "engine/kernels/window_geometry.h"

namespace trainscope {
namespace {

template <typename Io>
WindowGeometry GeometryOf(const Io& io) {
  const OpOptions& o = io.op->options;
  return MakeWindow(DimsOf(InputTensor(io, 0)), o, o.filter_h, o.filter_w, false);
}

// Flat input offset of the window's first maximum for output (n, oy, ox, c).
int ArgMax(const WindowGeometry& g, const float* x, int n, int oy, int ox, int c) {
  int best = -1;
  float best_value = 0.0f;
  for (int ky = 0; ky < g.filter_h; ++ky) {
    const int iy = oy * g.stride_h - g.pad_top + ky;
    if (iy < 0 || iy >= g.in_h) continue;
    for (int kx = 0; kx < g.filter_w; ++kx) {
      const int ix = ox * g.stride_w - g.pad_left + kx;
      if (ix < 0 || ix >= g.in_w) continue;
      const int offset = ((n * g.in_h + iy) * g.in_w + ix) * g.in_c + c;
      if (best < 0 || x[offset] > best_value) {
        best = offset;
        best_value = x[offset];
      }
    }
  }
  return best;
}

Status Eval(const KernelIo& io) {
  const WindowGeometry g = GeometryOf(io);
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  for (int n = 0; n < g.batch; ++n) {
    for (int oy = 0; oy < g.out_h; ++oy) {
      for (int ox = 0; ox < g.out_w; ++ox) {
        for (int c = 0; c < g.in_c; ++c) {
          const int best = ArgMax(g, x, n, oy, ox, c);
          const float value = best >= 0 ? x[best] : 0.0f;
          y[((n * g.out_h + oy) * g.out_w + ox) * g.in_c + c] = ApplyActivation(activation, value);
        }
      }
    }
  }
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const WindowGeometry g = GeometryOf(io);
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  const float* dz = PreActivationGradient(io.op->options.activation, OutputFloats(io), dy,
                                          OutputTensor(io).element_count(), io.scratch);
  const float* x = InputFloats(io, 0);
  for (int n = 0; n < g.batch; ++n) {
    for (int oy = 0; oy < g.out_h; ++oy) {
      for (int ox = 0; ox < g.out_w; ++ox) {
        for (int c = 0; c < g.in_c; ++c) {
          const int best = ArgMax(g, x, n, oy, ox, c);
          if (best >= 0) dx[best] += dz[((n * g.out_h + oy) * g.out_w + ox) * g.in_c + c];
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationMaxPool2D() {
  static constexpr OpRegistration kRegistration = {op::kMaxPool2D,
                                                   PreparePool,
                                                   Eval,
                                                   Backward,
                                                   FusedActivationScratch,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/1u << 0,
                                                   OutputUse::kFusedActivation,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
