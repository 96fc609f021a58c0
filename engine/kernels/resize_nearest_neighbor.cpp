// SPDX-License-Identifier: Apache-2.0
//
// RESIZE_NEAREST_NEIGHBOR on NHWC (resize.h for the size and scale): output row y copies input
// row floor((y + o) * scale), o = 0.5 with half_pixel_centers and 0 otherwise; align_corners
// rounds (halves away from zero) instead of flooring; the row is clamped to the image, as in
// TFLite. Likewise for columns. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/resize.h"

namespace trainscope {
namespace {

int NearestOf(int out, float scale, bool align_corners, bool half_pixel, int size) {
  const float at = (static_cast<float>(out) + (half_pixel ? 0.5f : 0.0f)) * scale;
  int in = static_cast<int>(align_corners ? std::round(at) : std::floor(at));
  if (in > size - 1) in = size - 1;
  if (in < 0) in = 0;
  return in;
}

Status Eval(const KernelIo& io) {
  ResizeGeometry g;
  TS_RETURN_IF_ERROR(ResolveResize(io, &g));
  const bool align = io.op->options.align_corners;
  const bool half_pixel = io.op->options.half_pixel_centers;
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  int i = 0;
  for (int n = 0; n < g.batch; ++n) {
    for (int oy = 0; oy < g.out_h; ++oy) {
      const int row = NearestOf(oy, g.scale_h, align, half_pixel, g.in_h);
      for (int ox = 0; ox < g.out_w; ++ox) {
        const int column = NearestOf(ox, g.scale_w, align, half_pixel, g.in_w);
        const float* from = x + ((n * g.in_h + row) * g.in_w + column) * g.channels;
        for (int ch = 0; ch < g.channels; ++ch, ++i) y[i] = from[ch];
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationResizeNearestNeighbor() {
  static constexpr OpRegistration kRegistration =
      ResizeRegistration(op::kResizeNearestNeighbor, Eval);
  return kRegistration;
}

}  // namespace trainscope
