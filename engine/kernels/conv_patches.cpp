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

// Fewer output channels than this fill less than half a 16-float vector when they are the
// vector side (transposed weights): the forward then takes each output as a dot product of a
// window and a weight row instead (MatrixMultiplyTransposedAdd, the weights read in place).
constexpr int kMinTransposedOutputs = 8;

// Runs are short (a filter row of a few channels): an inline loop beats a call to memcpy.
inline void CopyFloats(const float* from, int count, float* to) {
  for (int i = 0; i < count; ++i) to[i] = from[i];
}

// With dilation_w == 1 the taps of one filter row are adjacent in both the input and the patch.
void GatherPatch(const WindowGeometry& g, const float* x, const WindowTaps& taps, float* patch) {
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

// dx += the patch gradient under the window `taps` (padding cells dropped).
void ScatterPatchGradient(const WindowGeometry& g, const float* patch, const WindowTaps& taps,
                          float* dx) {
  const int c = g.in_c;
  for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
    for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
      const float* from = patch + (ky * g.filter_w + kx) * c;
      float* to = dx + InputPixel(g, taps, ky, kx) * c;
      for (int i = 0; i < c; ++i) to[i] += from[i];
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

// Everything one call works with: geometry, operands, the stack buffers, and the border pixels
// waiting for a block of patches. Border pixels are few per output row (one or two each side for
// a 3x3 SAME filter), so they are collected across rows into full blocks.
class PatchProducts {
 public:
  PatchProducts(const WindowGeometry& g, const float* x, const float* w, int out_c)
      : g_(g),
        x_(x),
        w_(w),
        out_c_(out_c),
        depth_(PatchDepth(g)),
        block_(std::max(1, std::min({kMaxBlockPixels, kMaxPatchFloats / depth_,
                                     kMaxPatchFloats / std::max(1, out_c)}))),
        row_floats_(g.filter_w * g.in_c),
        row_step_(g.dilation_h * g.in_w * g.in_c),
        pixel_step_(g.stride_w * g.in_c) {}

  // y = conv(x, w) + bias (bias may be nullptr).
  void Forward(const float* bias, float* y) {
    bias_ = bias;
    transpose_ = out_c_ >= kMinTransposedOutputs && depth_ * out_c_ <= kMaxPatchFloats;
    if (transpose_) {
      for (int k = 0; k < depth_; ++k) {
        for (int o = 0; o < out_c_; ++o) weights_[k * out_c_ + o] = w_[o * depth_ + k];
      }
    }
    RunForward(y, /*accumulate=*/false);
  }

  // dx += the transposed convolution of dz with `w`, where this object was made for it: over
  // dz (TransposedConvolution(g)) with w == nullptr and out_c the original input channels. The
  // weights, turned around (kernel flipped, input and output channels swapped), go to the
  // weights buffer; the outputs are dot products of dz windows and those rows.
  void AddTransposedConvolution(const float* w, float* dx) {
    const int kh = g_.filter_h, kw = g_.filter_w, original_out_c = g_.in_c;
    for (int c = 0; c < out_c_; ++c) {
      for (int ky = 0; ky < kh; ++ky) {
        for (int kx = 0; kx < kw; ++kx) {
          float* turned = weights_ + ((c * kh + ky) * kw + kx) * original_out_c;
          const float* from = w + ((kh - 1 - ky) * kw + (kw - 1 - kx)) * out_c_ + c;
          for (int o = 0; o < original_out_c; ++o) turned[o] = from[o * kh * kw * out_c_];
        }
      }
    }
    w_ = weights_;
    transpose_ = false;
    RunForward(dx, /*accumulate=*/true);
  }

  // dX rows of neighbouring pixels overlap in the input when the stride is below the filter
  // width; MatrixMultiplyAdd adds its rows in order, so the overlaps sum.
  void Backward(const float* dz, RowRange trained, float* d_weights, float* dx) {
    dz_ = dz;
    trained_ = trained;
    d_weights_ = d_weights;
    dx_ = dx;
    const int trained_count = trained.count();
    // The weight gradient is summed transposed, [depth][trained rows], when it fits.
    transpose_ = d_weights == nullptr || depth_ * trained_count <= kMaxPatchFloats;
    if (d_weights != nullptr && transpose_) {
      std::memset(weights_, 0, sizeof(float) * static_cast<size_t>(depth_ * trained_count));
    }
    in_place_runs_ = transpose_;
    ForEachRun([&](int first, const InteriorRun& interior) {
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
    });
    if (d_weights != nullptr && transpose_) {
      for (int o = 0; o < trained_count; ++o) {
        for (int k = 0; k < depth_; ++k) {
          d_weights[o * depth_ + k] += weights_[k * trained_count + o];
        }
      }
    }
  }

 private:
  // The forward products, y = bias + conv (accumulate: y += conv). Interior windows are read in
  // place, either way: a strided matrix per filter row times the transposed weights, or one
  // segment per filter row of each dot product with a weight row.
  void RunForward(float* y, bool accumulate) {
    y_ = y;
    accumulate_ = accumulate;
    in_place_runs_ = true;
    ForEachRun([&](int first, const InteriorRun& interior) {
      const int pixels = interior.hi - interior.lo;
      float* y_run = y + first * out_c_;
      if (!accumulate) SetBias(y_run, pixels);
      const float* x_run = x_ + interior.input;
      if (!transpose_) {
        MatrixMultiplyTransposedAdd(pixels, out_c_, g_.filter_h, row_floats_, x_run, pixel_step_,
                                    row_step_, w_, depth_, y_run, out_c_);
        return;
      }
      for (int ky = 0; ky < g_.filter_h; ++ky) {
        MatrixMultiplyAdd(pixels, out_c_, row_floats_, x_run + ky * row_step_, pixel_step_, 1,
                          weights_ + ky * row_floats_ * out_c_, out_c_, y_run, out_c_);
      }
    });
  }

  // Calls run(first pixel, run) for every interior run (when those are read in place) and sends
  // every other pixel through patches.
  template <typename Run>
  void ForEachRun(Run&& run) {
    for (int n = 0; n < g_.batch; ++n) {
      for (int oy = 0; oy < g_.out_h; ++oy) {
        const int row_first = (n * g_.out_h + oy) * g_.out_w;
        const InteriorRun interior = in_place_runs_ ? InteriorRunOf(g_, n, oy) : InteriorRun();
        if (interior.empty()) {
          AddToPatches(n, oy, 0, g_.out_w);
          continue;
        }
        AddToPatches(n, oy, 0, interior.lo);
        run(row_first + interior.lo, interior);
        AddToPatches(n, oy, interior.hi, g_.out_w);
      }
    }
    FlushPatches();
  }

  // Output pixels (n, oy, ox) for ox in [ox_begin, ox_end).
  void AddToPatches(int n, int oy, int ox_begin, int ox_end) {
    for (int ox = ox_begin; ox < ox_end; ++ox) {
      pending_[pending_count_] = (n * g_.out_h + oy) * g_.out_w + ox;
      pending_taps_[pending_count_] = TapsAt(g_, n, oy, ox);
      if (++pending_count_ == block_) FlushPatches();
    }
  }

  void SetBias(float* y_pixels, int count) const {
    const size_t row_bytes = sizeof(float) * static_cast<size_t>(out_c_);
    for (int p = 0; p < count; ++p) {
      if (bias_ != nullptr && !accumulate_) {
        std::memcpy(y_pixels + p * out_c_, bias_, row_bytes);
      } else {
        std::memset(y_pixels + p * out_c_, 0, row_bytes);
      }
    }
  }

  // The pending pixels' patches through the products, their rows of Y or dZ copied through
  // rows_ (the pixels are not evenly spaced).
  void FlushPatches() {
    const int count = pending_count_;
    pending_count_ = 0;
    if (count == 0) return;
    if (d_weights_ != nullptr || y_ != nullptr) {
      for (int i = 0; i < count; ++i) GatherPatch(g_, x_, pending_taps_[i], patches_ + i * depth_);
    }
    if (y_ != nullptr) {
      SetBias(rows_, count);
      if (transpose_) {
        MatrixMultiplyAdd(count, out_c_, depth_, patches_, depth_, 1, weights_, out_c_, rows_,
                          out_c_);
      } else {
        MatrixMultiplyTransposedAdd(count, out_c_, 1, depth_, patches_, depth_, 0, w_, depth_,
                                    rows_, out_c_);
      }
      for (int i = 0; i < count; ++i) {
        float* y_pixel = y_ + pending_[i] * out_c_;
        const float* row = rows_ + i * out_c_;
        if (accumulate_) {
          for (int o = 0; o < out_c_; ++o) y_pixel[o] += row[o];
        } else {
          std::memcpy(y_pixel, row, sizeof(float) * static_cast<size_t>(out_c_));
        }
      }
      return;
    }
    for (int i = 0; i < count; ++i) {
      std::memcpy(rows_ + i * out_c_, dz_ + pending_[i] * out_c_,
                  sizeof(float) * static_cast<size_t>(out_c_));
    }
    if (d_weights_ != nullptr) {
      if (transpose_) {
        MatrixMultiplyAdd(depth_, trained_.count(), count, patches_, 1, depth_,
                          rows_ + trained_.begin, out_c_, weights_, trained_.count());
      } else {
        DenseWeightGradient(rows_, count, out_c_, trained_, patches_, depth_, d_weights_);
      }
    }
    if (dx_ != nullptr) {
      std::memset(patches_, 0, sizeof(float) * static_cast<size_t>(count * depth_));
      MatrixMultiplyAdd(count, depth_, out_c_, rows_, out_c_, 1, w_, depth_, patches_, depth_);
      for (int i = 0; i < count; ++i) {
        ScatterPatchGradient(g_, patches_ + i * depth_, pending_taps_[i], dx_);
      }
    }
  }

  const WindowGeometry& g_;
  const float* x_;
  const float* w_;
  const int out_c_, depth_;
  const int block_;         // pixels a block of patches holds
  const int row_floats_;    // KW * C: one filter row of a patch
  const int row_step_;      // input floats from one filter row to the next
  const int pixel_step_;    // input floats from one output pixel's window to the next
  bool transpose_ = false;  // the products use weights_ (the weights or their gradient transposed)
  bool in_place_runs_ = false;  // interior windows are read in place, not gathered into patches
  // Forward: bias_, y_ and accumulate_ (y += conv, no bias). Backward: dz_, trained_,
  // d_weights_, dx_ (y_ stays nullptr).
  const float* bias_ = nullptr;
  float* y_ = nullptr;
  bool accumulate_ = false;
  const float* dz_ = nullptr;
  RowRange trained_;
  float* d_weights_ = nullptr;
  float* dx_ = nullptr;
  int pending_[kMaxBlockPixels];  // output pixels waiting for patches, and their windows
  WindowTaps pending_taps_[kMaxBlockPixels];
  int pending_count_ = 0;
  float patches_[kMaxPatchFloats];
  float weights_[kMaxPatchFloats];  // transposed weights, or the transposed weight gradient
  float rows_[kMaxPatchFloats];     // Y or dZ rows of the pending pixels
};

// The convolution that gives dX when the stride is 1: dZ is its input, dX its output, the kernel
// flipped and the channels swapped (dX[iy][ix][c] = sum over taps and o of dz[iy + pad_top -
// ky dh][ix + pad_left - kx dw][o] W[o][ky][kx][c]), so the padding becomes what is left of the
// dilated kernel on the other side.
WindowGeometry TransposedConvolution(const WindowGeometry& g, int out_c) {
  WindowGeometry t = g;
  t.in_h = g.out_h;
  t.in_w = g.out_w;
  t.in_c = out_c;
  t.out_h = g.in_h;
  t.out_w = g.in_w;
  t.pad_top = (g.filter_h - 1) * g.dilation_h - g.pad_top;
  t.pad_left = (g.filter_w - 1) * g.dilation_w - g.pad_left;
  return t;
}

// Whether dX goes through the transposed convolution: stride 1, few input channels (there
// Backward's dX product has rows of a few floats, a pixel's channels apart, whose overlapping
// stores the CPU cannot forward to the next row's loads), and the turned weights and the dZ
// patches fit their buffers.
bool InputGradientAsConvolution(const WindowGeometry& g, int out_c) {
  const int turned_depth = g.filter_h * g.filter_w * out_c;
  return g.stride_h == 1 && g.stride_w == 1 && g.in_c < 16 && turned_depth <= kMaxPatchFloats &&
         turned_depth * g.in_c <= kMaxPatchFloats && g.pad_top <= (g.filter_h - 1) * g.dilation_h &&
         g.pad_left <= (g.filter_w - 1) * g.dilation_w;
}

}  // namespace

void ConvForwardByPatches(const WindowGeometry& g, const float* x, const float* w, int out_c,
                          const float* bias, float* y) {
  PatchProducts(g, x, w, out_c).Forward(bias, y);
}

void ConvBackwardByPatches(const WindowGeometry& g, const float* x, const float* w, int out_c,
                           const float* dz, RowRange trained, float* d_weights, float* dx) {
  const bool dx_as_convolution = dx != nullptr && InputGradientAsConvolution(g, out_c);
  if (d_weights != nullptr || (dx != nullptr && !dx_as_convolution)) {
    PatchProducts(g, x, w, out_c)
        .Backward(dz, trained, d_weights, dx_as_convolution ? nullptr : dx);
  }
  if (dx_as_convolution) {
    const WindowGeometry turned = TransposedConvolution(g, out_c);
    PatchProducts(turned, dz, nullptr, g.in_c).AddTransposedConvolution(w, dx);
  }
}

}  // namespace trainscope
