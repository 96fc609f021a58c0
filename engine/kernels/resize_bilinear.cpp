// SPDX-License-Identifier: Apache-2.0
//
// RESIZE_BILINEAR on NHWC (resize.h for the size and scale). Output pixel y maps to the input
// coordinate y * scale, or (y + 0.5) * scale - 0.5 with half_pixel_centers; the two neighbouring
// rows floor and ceil of it (clamped to the image) are blended by the coordinate's distance to
// the lower one, and likewise for columns, as TFLite's reference computes. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/resize.h"

namespace trainscope {
namespace {

struct Neighbours {
  float at = 0.0f;  // the input coordinate
  int lower = 0;
  int upper = 0;
};

Neighbours NeighboursOf(int out, float scale, bool half_pixel, int size) {
  Neighbours n;
  n.at = half_pixel ? (static_cast<float>(out) + 0.5f) * scale - 0.5f
                    : static_cast<float>(out) * scale;
  const int floor = static_cast<int>(std::floor(n.at));
  const int ceil = static_cast<int>(std::ceil(n.at));
  n.lower = floor < 0 ? 0 : floor;
  n.upper = ceil > size - 1 ? size - 1 : ceil;
  return n;
}

Status Eval(const KernelIo& io) {
  ResizeGeometry g;
  TS_RETURN_IF_ERROR(ResolveResize(io, &g));
  const bool half_pixel = io.op->options.half_pixel_centers;
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const auto pixel = [&](int n, int row, int column) {
    return x + ((n * g.in_h + row) * g.in_w + column) * g.channels;
  };
  int i = 0;
  for (int n = 0; n < g.batch; ++n) {
    for (int oy = 0; oy < g.out_h; ++oy) {
      const Neighbours r = NeighboursOf(oy, g.scale_h, half_pixel, g.in_h);
      const float dy = r.at - static_cast<float>(r.lower);
      for (int ox = 0; ox < g.out_w; ++ox) {
        const Neighbours c = NeighboursOf(ox, g.scale_w, half_pixel, g.in_w);
        const float dx = c.at - static_cast<float>(c.lower);
        const float* top_left = pixel(n, r.lower, c.lower);
        const float* top_right = pixel(n, r.lower, c.upper);
        const float* bottom_left = pixel(n, r.upper, c.lower);
        const float* bottom_right = pixel(n, r.upper, c.upper);
        for (int ch = 0; ch < g.channels; ++ch, ++i) {
          y[i] = top_left[ch] * (1.0f - dy) * (1.0f - dx) + bottom_left[ch] * dy * (1.0f - dx) +
                 top_right[ch] * (1.0f - dy) * dx + bottom_right[ch] * dy * dx;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationResizeBilinear() {
  static constexpr OpRegistration kRegistration = ResizeRegistration(op::kResizeBilinear, Eval);
  return kRegistration;
}

}  // namespace trainscope
