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

// The output pixels [lo, hi) of one output row whose windows lie whole inside the input, with
// dilation_w == 1: their inputs are a strided matrix per filter row (pixel step stride_w * C,
// KW * C adjacent values), so the products read the input where it is, without patches.
struct InteriorRun {
  int lo = 0, hi = 0;
  int input = 0;  // input offset of pixel lo's tap (0, 0)
  bool empty() const { return hi <= lo; }
};

InteriorRun InteriorRunOf(const WindowGeometry& g, int n, int oy) {
  InteriorRun run;
  const int top = oy * g.stride_h - g.pad_top;
  const int reach = g.in_w - g.filter_w + g.pad_left;  // largest left + pad_left inside
  if (g.dilation_w != 1 || top < 0 || top + (g.filter_h - 1) * g.dilation_h >= g.in_h ||
      reach < 0) {
    return run;
  }
  run.lo = (g.pad_left + g.stride_w - 1) / g.stride_w;
  run.hi = std::min(g.out_w, reach / g.stride_w + 1);
  run.input = ((n * g.in_h + top) * g.in_w + run.lo * g.stride_w - g.pad_left) * g.in_c;
  return run;
}

// Everything one call works with: geometry, operands and the two stack buffers.
class PatchProducts {
 public:
  PatchProducts(const WindowGeometry& g, const float* x, const float* w, int out_c)
      : g_(g),
        x_(x),
        w_(w),
        out_c_(out_c),
        depth_(PatchDepth(g)),
        block_(BlockPixels(g)),
        row_floats_(g.filter_w * g.in_c),
        row_step_(g.dilation_h * g.in_w * g.in_c),
        pixel_step_(g.stride_w * g.in_c) {}

  // Calls range(first, count) for the pixels that need patches and run(first, run) for the
  // interior runs, in pixel order; every run when `direct` is false goes through patches.
  template <typename Range, typename Run>
  void ForEachPart(bool direct, Range&& range, Run&& run) const {
    for (int n = 0; n < g_.batch; ++n) {
      for (int oy = 0; oy < g_.out_h; ++oy) {
        const int row_first = (n * g_.out_h + oy) * g_.out_w;
        const InteriorRun interior = direct ? InteriorRunOf(g_, n, oy) : InteriorRun();
        if (interior.empty()) {
          range(row_first, g_.out_w);
          continue;
        }
        range(row_first, interior.lo);
        run(row_first + interior.lo, interior);
        range(row_first + interior.hi, g_.out_w - interior.hi);
      }
    }
  }

  void Forward(const float* bias, float* y) {
    const bool transpose = depth_ * out_c_ <= kMaxPatchFloats;
    if (transpose) {
      for (int o = 0; o < out_c_; ++o) {
        for (int k = 0; k < depth_; ++k) weights_[k * out_c_ + o] = w_[o * depth_ + k];
      }
    }
    const auto set_bias = [&](float* y_pixels, int count) {
      for (int p = 0; p < count; ++p) {
        for (int o = 0; o < out_c_; ++o) y_pixels[p * out_c_ + o] = bias != nullptr ? bias[o] : 0;
      }
    };
    const auto range = [&](int first, int count) {
      for (int done = 0; done < count; done += block_) {
        const int pixels = std::min(block_, count - done);
        float* y_block = y + (first + done) * out_c_;
        GatherBlock(g_, x_, first + done, pixels, patches_);
        if (!transpose) {
          DenseForward(patches_, pixels, depth_, w_, out_c_, bias, y_block);
          continue;
        }
        set_bias(y_block, pixels);
        MatrixMultiplyAdd(pixels, out_c_, depth_, patches_, depth_, 1, weights_, out_c_, y_block,
                          out_c_);
      }
    };
    const auto run = [&](int first, const InteriorRun& interior) {
      const int pixels = interior.hi - interior.lo;
      float* y_run = y + first * out_c_;
      set_bias(y_run, pixels);
      for (int ky = 0; ky < g_.filter_h; ++ky) {
        MatrixMultiplyAdd(pixels, out_c_, row_floats_, x_ + interior.input + ky * row_step_,
                          pixel_step_, 1, weights_ + ky * row_floats_ * out_c_, out_c_, y_run,
                          out_c_);
      }
    };
    ForEachPart(transpose, range, run);
  }

  void Backward(const float* dz, RowRange trained, float* d_weights, float* dx) {
    const int trained_count = trained.count();
    // The weight gradient is summed transposed, [depth][trained rows], when it fits.
    const bool transpose = d_weights == nullptr || depth_ * trained_count <= kMaxPatchFloats;
    if (d_weights != nullptr && transpose) {
      std::memset(weights_, 0, sizeof(float) * static_cast<size_t>(depth_ * trained_count));
    }
    const auto range = [&](int first, int count) {
      for (int done = 0; done < count; done += block_) {
        const int pixels = std::min(block_, count - done);
        const float* dz_block = dz + (first + done) * out_c_;
        if (d_weights != nullptr) {
          GatherBlock(g_, x_, first + done, pixels, patches_);
          if (transpose) {
            MatrixMultiplyAdd(depth_, trained_count, pixels, patches_, 1, depth_,
                              dz_block + trained.begin, out_c_, weights_, trained_count);
          } else {
            DenseWeightGradient(dz_block, pixels, out_c_, trained, patches_, depth_, d_weights);
          }
        }
        if (dx != nullptr) {
          std::memset(patches_, 0, sizeof(float) * static_cast<size_t>(pixels * depth_));
          MatrixMultiplyAdd(pixels, depth_, out_c_, dz_block, out_c_, 1, w_, depth_, patches_,
                            depth_);
          ScatterBlock(g_, patches_, first + done, pixels, dx);
        }
      }
    };
    // dX rows of neighbouring pixels overlap in the input when the stride is below the filter
    // width; MatrixMultiplyAdd adds its rows in order, so the overlaps sum.
    const auto run = [&](int first, const InteriorRun& interior) {
      const int pixels = interior.hi - interior.lo;
      const float* dz_run = dz + first * out_c_;
      for (int ky = 0; ky < g_.filter_h; ++ky) {
        const int input = interior.input + ky * row_step_;
        if (d_weights != nullptr) {
          MatrixMultiplyAdd(row_floats_, trained_count, pixels, x_ + input, 1, pixel_step_,
                            dz_run + trained.begin, out_c_,
                            weights_ + ky * row_floats_ * trained_count, trained_count);
        }
        if (dx != nullptr) {
          MatrixMultiplyAdd(pixels, row_floats_, out_c_, dz_run, out_c_, 1, w_ + ky * row_floats_,
                            depth_, dx + input, pixel_step_);
        }
      }
    };
    ForEachPart(transpose, range, run);
    if (d_weights != nullptr && transpose) {
      for (int o = 0; o < trained_count; ++o) {
        for (int k = 0; k < depth_; ++k) {
          d_weights[o * depth_ + k] += weights_[k * trained_count + o];
        }
      }
    }
  }

 private:
  const WindowGeometry& g_;
  const float* x_;
  const float* w_;
  const int out_c_, depth_, block_;
  const int row_floats_;  // KW * C: one filter row of a patch
  const int row_step_;    // input floats from one filter row to the next
  const int pixel_step_;  // input floats from one output pixel's window to the next
  float patches_[kMaxPatchFloats];
  float weights_[kMaxPatchFloats];  // transposed weights, or the transposed weight gradient
};

}  // namespace

void ConvForwardByPatches(const WindowGeometry& g, const float* x, const float* w, int out_c,
                          const float* bias, float* y) {
  PatchProducts(g, x, w, out_c).Forward(bias, y);
}

void ConvBackwardByPatches(const WindowGeometry& g, const float* x, const float* w, int out_c,
                           const float* dz, RowRange trained, float* d_weights, float* dx) {
  PatchProducts(g, x, w, out_c).Backward(dz, trained, d_weights, dx);
}

}  // namespace trainscope
