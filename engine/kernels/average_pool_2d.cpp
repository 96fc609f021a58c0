// SPDX-License-Identifier: Apache-2.0
//
// AVERAGE_POOL_2D (NHWC): each output is the mean of the window cells inside the input; with SAME
// padding the padded cells are excluded from the count, as in TFLite. Backward spreads each
// output's gradient evenly over those cells (+=). Reads only the output, and only when an
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

// The window of output (oy, ox) clipped to the input: rows [y0, y1), columns [x0, x1).
struct Clip {
  int y0, y1, x0, x1;
  int Cells() const { return (y1 - y0) * (x1 - x0); }
};

Clip ClipWindow(const WindowGeometry& g, int oy, int ox) {
  const int top = oy * g.stride_h - g.pad_top;
  const int left = ox * g.stride_w - g.pad_left;
  Clip clip;
  clip.y0 = top < 0 ? 0 : top;
  clip.y1 = top + g.filter_h < g.in_h ? top + g.filter_h : g.in_h;
  clip.x0 = left < 0 ? 0 : left;
  clip.x1 = left + g.filter_w < g.in_w ? left + g.filter_w : g.in_w;
  if (clip.y1 < clip.y0) clip.y1 = clip.y0;
  if (clip.x1 < clip.x0) clip.x1 = clip.x0;
  return clip;
}

Status Eval(const KernelIo& io) {
  const WindowGeometry g = GeometryOf(io);
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  for (int n = 0; n < g.batch; ++n) {
    for (int oy = 0; oy < g.out_h; ++oy) {
      for (int ox = 0; ox < g.out_w; ++ox) {
        const Clip clip = ClipWindow(g, oy, ox);
        const int cells = clip.Cells();
        for (int c = 0; c < g.in_c; ++c) {
          float sum = 0.0f;
          for (int iy = clip.y0; iy < clip.y1; ++iy) {
            for (int ix = clip.x0; ix < clip.x1; ++ix) {
              sum += x[((n * g.in_h + iy) * g.in_w + ix) * g.in_c + c];
            }
          }
          const float mean = cells > 0 ? sum / static_cast<float>(cells) : 0.0f;
          y[((n * g.out_h + oy) * g.out_w + ox) * g.in_c + c] = ApplyActivation(activation, mean);
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
  for (int n = 0; n < g.batch; ++n) {
    for (int oy = 0; oy < g.out_h; ++oy) {
      for (int ox = 0; ox < g.out_w; ++ox) {
        const Clip clip = ClipWindow(g, oy, ox);
        const int cells = clip.Cells();
        if (cells == 0) continue;
        const float scale = 1.0f / static_cast<float>(cells);
        for (int c = 0; c < g.in_c; ++c) {
          const float share = dz[((n * g.out_h + oy) * g.out_w + ox) * g.in_c + c] * scale;
          for (int iy = clip.y0; iy < clip.y1; ++iy) {
            for (int ix = clip.x0; ix < clip.x1; ++ix) {
              dx[((n * g.in_h + iy) * g.in_w + ix) * g.in_c + c] += share;
            }
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationAveragePool2D() {
  static constexpr OpRegistration kRegistration = {op::kAveragePool2D,
                                                   PreparePool,
                                                   Eval,
                                                   Backward,
                                                   FusedActivationScratch,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kFusedActivation,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
