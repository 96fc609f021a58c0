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

// Runs are short (a filter row of a few channels): an inline loop beats a call to memcpy.
inline void CopyFloats(const float* from, int count, float* to) {
  for (int i = 0; i < count; ++i) to[i] = from[i];
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
      CopyFloats(x + InputPixel(g, taps, ky, kx) * c, (taps.kx_end - kx) * c, patch_row + kx * c);
      continue;
    }
    for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
      CopyFloats(x + InputPixel(g, taps, ky, kx) * c, c, patch_row + kx * c);
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

// Output pixel (n, oy, ox) walked in NHWC order, with the window's input corner.
struct PixelWalk {
  int n = 0, oy = 0, ox = 0;

  PixelWalk(const WindowGeometry& g, int pixel)
      : n(pixel / g.out_w / g.out_h), oy(pixel / g.out_w % g.out_h), ox(pixel % g.out_w) {}
  void Next(const WindowGeometry& g) {
    if (++ox < g.out_w) return;
    ox = 0;
    if (++oy < g.out_h) return;
    oy = 0;
    ++n;
  }
  // The input offset of tap (0, 0) when the whole window lies inside the input with adjacent
  // columns (dilation_w == 1), else -1: the common case, copied a filter row at a time.
  int WholeWindowOffset(const WindowGeometry& g) const {
    const int top = oy * g.stride_h - g.pad_top;
    const int left = ox * g.stride_w - g.pad_left;
    const bool inside = g.dilation_w == 1 && top >= 0 &&
                        top + (g.filter_h - 1) * g.dilation_h < g.in_h && left >= 0 &&
                        left + g.filter_w - 1 < g.in_w;
    return inside ? ((n * g.in_h + top) * g.in_w + left) * g.in_c : -1;
  }
};

void GatherBlock(const WindowGeometry& g, const float* x, int first, int count, float* patches) {
  const int depth = PatchDepth(g);
  const int row_floats = g.filter_w * g.in_c;
  const int row_step = g.dilation_h * g.in_w * g.in_c;
  PixelWalk walk(g, first);
  for (int p = 0; p < count; ++p, walk.Next(g)) {
    float* patch = patches + p * depth;
    const int offset = walk.WholeWindowOffset(g);
    if (offset < 0) {
      GatherPatch(g, x, first + p, patch);
      continue;
    }
    const float* window = x + offset;
    for (int ky = 0; ky < g.filter_h; ++ky) {
      CopyFloats(window + ky * row_step, row_floats, patch + ky * row_floats);
    }
  }
}

void ScatterBlock(const WindowGeometry& g, const float* patches, int first, int count, float* dx) {
  const int depth = PatchDepth(g);
  const int row_floats = g.filter_w * g.in_c;
  const int row_step = g.dilation_h * g.in_w * g.in_c;
  PixelWalk walk(g, first);
  for (int p = 0; p < count; ++p, walk.Next(g)) {
    const float* patch = patches + p * depth;
    const int offset = walk.WholeWindowOffset(g);
    if (offset < 0) {
      ScatterPatchGradient(g, patch, first + p, dx);
      continue;
    }
    float* window = dx + offset;
    for (int ky = 0; ky < g.filter_h; ++ky) {
      float* to = window + ky * row_step;
      const float* from = patch + ky * row_floats;
      for (int i = 0; i < row_floats; ++i) to[i] += from[i];
    }
  }
}

// Whether the weights, transposed to [KH * KW * C][out_c] (or the weight gradient in that
// layout), fit the second stack buffer. Then every product runs with output channels or patch
// depth as the wide side, which fills whole vectors where a dot product of 27 would not.
bool TransposedWeightsFit(const WindowGeometry& g, int out_c) {
  return PatchDepth(g) * out_c <= kMaxPatchFloats;
}

}  // namespace

void ConvForwardByPatches(const WindowGeometry& g, const float* x, const float* w, int out_c,
                          const float* bias, float* y) {
  float patches[kMaxPatchFloats];
  float transposed[kMaxPatchFloats];
  const int depth = PatchDepth(g);
  const int block = BlockPixels(g);
  const int pixels = OutputPixels(g);
  const bool transpose = TransposedWeightsFit(g, out_c);
  if (transpose) {
    for (int o = 0; o < out_c; ++o) {
      for (int k = 0; k < depth; ++k) transposed[k * out_c + o] = w[o * depth + k];
    }
  }
  for (int first = 0; first < pixels; first += block) {
    const int count = std::min(block, pixels - first);
    GatherBlock(g, x, first, count, patches);
    float* y_block = y + first * out_c;
    if (!transpose) {
      DenseForward(patches, count, depth, w, out_c, bias, y_block);
      continue;
    }
    for (int p = 0; p < count; ++p) {
      for (int o = 0; o < out_c; ++o) y_block[p * out_c + o] = bias != nullptr ? bias[o] : 0.0f;
    }
    MatrixMultiplyAdd(count, out_c, depth, patches, depth, 1, transposed, out_c, y_block, out_c);
  }
}

void ConvBackwardByPatches(const WindowGeometry& g, const float* x, const float* w, int out_c,
                           const float* dz, RowRange trained, float* d_weights, float* dx) {
  float patches[kMaxPatchFloats];
  float transposed[kMaxPatchFloats];  // the weight gradient as [depth][trained rows]
  const int depth = PatchDepth(g);
  const int block = BlockPixels(g);
  const int pixels = OutputPixels(g);
  const int trained_count = trained.count();
  const bool transpose = d_weights != nullptr && TransposedWeightsFit(g, trained_count);
  if (transpose) {
    std::memset(transposed, 0, sizeof(float) * static_cast<size_t>(depth * trained_count));
  }
  for (int first = 0; first < pixels; first += block) {
    const int count = std::min(block, pixels - first);
    const float* dz_block = dz + first * out_c;
    if (d_weights != nullptr) {
      GatherBlock(g, x, first, count, patches);
      if (transpose) {
        MatrixMultiplyAdd(depth, trained_count, count, patches, 1, depth, dz_block + trained.begin,
                          out_c, transposed, trained_count);
      } else {
        DenseWeightGradient(dz_block, count, out_c, trained, patches, depth, d_weights);
      }
    }
    if (dx != nullptr) {
      std::memset(patches, 0, sizeof(float) * static_cast<size_t>(count * depth));
      MatrixMultiplyAdd(count, depth, out_c, dz_block, out_c, 1, w, depth, patches, depth);
      ScatterBlock(g, patches, first, count, dx);
    }
  }
  if (transpose) {
    for (int o = 0; o < trained_count; ++o) {
      for (int k = 0; k < depth; ++k) d_weights[o * depth + k] += transposed[k * trained_count + o];
    }
  }
}

}  // namespace trainscope
