// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/conv_patches.h"

#include <algorithm>
#include <cstring>

#include "engine/kernels/dense_loops.h"

namespace trainscope {
namespace {

// Up to this many pixels a block: enough rows for the products' register blocks, few enough
// that a block of small patches stays in the first-level cache.
constexpr int kMaxBlockPixels = 64;

int BlockPixels(const WindowGeometry& g) {
  return std::max(1, std::min(kMaxBlockPixels, kMaxPatchFloats / PatchDepth(g)));
}

// With dilation_w == 1 the taps of one filter row are adjacent in both the input and the patch.
void GatherPatch(const WindowGeometry& g, const float* x, int pixel, float* patch) {
  const WindowTaps taps = TapsOf(g, pixel);
  const int c = g.in_c;
  if (taps.Count() != g.filter_h * g.filter_w) {
    std::memset(patch, 0, sizeof(float) * static_cast<size_t>(PatchDepth(g)));
  }
  for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
    float* patch_row = patch + ky * g.filter_w * c;
    if (g.dilation_w == 1) {
      const int kx = taps.kx_begin;
      std::memcpy(patch_row + kx * c, x + InputPixel(g, taps, ky, kx) * c,
                  sizeof(float) * static_cast<size_t>((taps.kx_end - kx) * c));
      continue;
    }
    for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
      std::memcpy(patch_row + kx * c, x + InputPixel(g, taps, ky, kx) * c,
                  sizeof(float) * static_cast<size_t>(c));
    }
  }
}

// dx += the patch gradient under output pixel `pixel`'s window (padding cells dropped).
void ScatterPatchGradient(const WindowGeometry& g, const float* patch, int pixel, float* dx) {
  const WindowTaps taps = TapsOf(g, pixel);
  const int c = g.in_c;
  for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
    for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
      const float* from = patch + (ky * g.filter_w + kx) * c;
      float* to = dx + InputPixel(g, taps, ky, kx) * c;
      for (int i = 0; i < c; ++i) to[i] += from[i];
    }
  }
}

}  // namespace

void ConvForwardByPatches(const WindowGeometry& g, const float* x, const float* w, int out_c,
                          const float* bias, float* y) {
  float patches[kMaxPatchFloats];
  const int depth = PatchDepth(g);
  const int block = BlockPixels(g);
  const int pixels = OutputPixels(g);
  for (int first = 0; first < pixels; first += block) {
    const int count = std::min(block, pixels - first);
    for (int p = 0; p < count; ++p) GatherPatch(g, x, first + p, patches + p * depth);
    DenseForward(patches, count, depth, w, out_c, bias, y + first * out_c);
  }
}

void ConvBackwardByPatches(const WindowGeometry& g, const float* x, const float* w, int out_c,
                           const float* dz, RowRange trained, float* d_weights, float* dx) {
  float patches[kMaxPatchFloats];
  const int depth = PatchDepth(g);
  const int block = BlockPixels(g);
  const int pixels = OutputPixels(g);
  for (int first = 0; first < pixels; first += block) {
    const int count = std::min(block, pixels - first);
    const float* dz_block = dz + first * out_c;
    if (d_weights != nullptr) {
      for (int p = 0; p < count; ++p) GatherPatch(g, x, first + p, patches + p * depth);
      DenseWeightGradient(dz_block, count, out_c, trained, patches, depth, d_weights);
    }
    if (dx != nullptr) {
      std::memset(patches, 0, sizeof(float) * static_cast<size_t>(count * depth));
      DenseInputGradient(dz_block, count, out_c, w, depth, patches);
      for (int p = 0; p < count; ++p) ScatterPatchGradient(g, patches + p * depth, first + p, dx);
    }
  }
}

}  // namespace trainscope
