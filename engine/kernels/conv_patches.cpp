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

// Runs of a filter row of a few channels are short, where an inline loop beats a call to
// memcpy; longer ones (a transposed convolution's filter row of dZ, 48 floats for 3 x 16
// channels) go to memcpy's wide vectors (the loop gets only the baseline's 4-float ones).
inline void CopyFloats(const float* from, int count, float* to) {
  if (count >= 16) {
    std::memcpy(to, from, sizeof(float) * static_cast<size_t>(count));
    return;
  }
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

// to[c][r] += from[r][c] for a [rows][cols] matrix `from`.
void AddTransposed(const float* from, int rows, int cols, float* to) {
  for (int c = 0; c < cols; ++c) {
    for (int r = 0; r < rows; ++r) to[c * rows + r] += from[r * cols + c];
  }
}

// turned[c][taps - 1 - t][o] = w[o][t][c] for the `taps` filter taps t (flipping both kernel
// axes reverses the tap order): the weights of the transposed convolution.
void TurnWeights(const float* w, int out_c, int taps, int in_c, float* turned) {
  for (int o = 0; o < out_c; ++o) {
    for (int t = 0; t < taps; ++t) {
      const float* from = w + (o * taps + t) * in_c;
      for (int c = 0; c < in_c; ++c) turned[(c * taps + taps - 1 - t) * out_c + o] = from[c];
    }
  }
}

// The output pixels [lo, hi) of one output row whose windows lie whole inside the input, with
// dilation_w == 1: their inputs are a strided matrix per filter row (pixel step stride_w * C,
// KW * C adjacent values), so the products read the input where it is, without patches.
struct InteriorRun {
  int lo = 0, hi = 0;
  int input = 0;                  // input offset of pixel lo's tap (0, 0)
  const float* window = nullptr;  // where that tap's values are read (the input, or a band)
  int row_step = 0;               // floats from one filter row to the next there
  bool empty() const { return hi <= lo; }
};

InteriorRun InteriorRunOf(const WindowGeometry& g, const float* x, int n, int oy) {
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
  run.window = x + run.input;
  run.row_step = g.dilation_h * g.in_w * g.in_c;
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
        pixel_step_(g.stride_w * g.in_c),
        band_w_((g.out_w - 1) * g.stride_w + g.filter_w) {}

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
    TurnWeights(w, g_.in_c, g_.filter_h * g_.filter_w, out_c_, weights_);
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
    // dX is added under each window in the input itself, so only dW alone may read bands.
    band_rows_ = transpose_ && dx == nullptr ? BandRows() : 0;
    ForEachRun([&](int first, const InteriorRun& interior) {
      const int pixels = interior.hi - interior.lo;
      const float* dz_run = dz + first * out_c_;
      for (int ky = 0; ky < g_.filter_h; ++ky) {
        const int input = interior.input + ky * row_step_;
        if (d_weights != nullptr) {
          MatrixMultiplyAdd(row_floats_, trained_count, pixels,
                            interior.window + ky * interior.row_step, 1, pixel_step_,
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
      AddTransposed(weights_, depth_, trained_count, d_weights);
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
    band_rows_ = BandRows();
    ForEachRun([&](int first, const InteriorRun& interior) {
      const int pixels = interior.hi - interior.lo;
      float* y_run = y + first * out_c_;
      if (transpose_) {
        MatrixMultiplyRuns(pixels, out_c_, g_.filter_h, row_floats_, interior.window, pixel_step_,
                           interior.row_step, weights_, out_c_, bias_, y_run, out_c_);
        return;
      }
      if (!accumulate) SetBias(y_run, pixels);
      MatrixMultiplyTransposedAdd(pixels, out_c_, g_.filter_h, row_floats_, interior.window,
                                  pixel_step_, interior.row_step, w_, depth_, y_run, out_c_);
    });
  }

  // Input rows under `out_rows` output rows: what a band of them copies.
  int BandInputRows(int out_rows) const {
    return (out_rows - 1) * g_.stride_h + (g_.filter_h - 1) * g_.dilation_h + 1;
  }

  // Output rows a band (in the patch buffer: the windows' input rows, band_w_ pixels wide,
  // padding included) holds; 0 when not even one row's fits, or the windows' columns are not
  // adjacent (dilation_w > 1).
  int BandRows() const {
    const int row_floats = band_w_ * g_.in_c;
    if (g_.dilation_w != 1 || BandInputRows(1) * row_floats > kMaxPatchFloats) return 0;
    const int spare_rows = kMaxPatchFloats / row_floats - BandInputRows(1);
    return std::min(g_.out_h, 1 + spare_rows / g_.stride_h);
  }

  // Copies the input under output rows [oy0, oy1) of batch n to the patch buffer, band_w_
  // pixels a row from input column -pad_left, the padding as zeros. Every window of those rows
  // then lies inside the band, so the products read whole output rows in place and no border
  // pixel is left for patches.
  void CopyBand(int n, int oy0, int oy1) {
    const int c = g_.in_c;
    const int top = oy0 * g_.stride_h - g_.pad_top;
    const int first = std::min(band_w_, g_.pad_left);  // band columns [first, last) are input
    const int last = std::max(first, std::min(band_w_, g_.pad_left + g_.in_w));
    const auto floats = [](int count) { return sizeof(float) * static_cast<size_t>(count); };
    for (int r = 0; r < BandInputRows(oy1 - oy0); ++r) {
      float* band_row = patches_ + r * band_w_ * c;
      const int iy = top + r;
      if (iy < 0 || iy >= g_.in_h || last == first) {
        std::memset(band_row, 0, floats(band_w_ * c));
        continue;
      }
      const float* x_row = x_ + ((n * g_.in_h + iy) * g_.in_w + first - g_.pad_left) * c;
      std::memset(band_row, 0, floats(first * c));
      std::memcpy(band_row + first * c, x_row, floats((last - first) * c));
      std::memset(band_row + last * c, 0, floats((band_w_ - last) * c));
    }
  }

  // Calls run(first pixel, run) for every interior run (when those are read in place) and sends
  // every other pixel through patches.
  template <typename Run>
  void ForEachRun(Run&& run) {
    if (band_rows_ > 0) {
      for (int n = 0; n < g_.batch; ++n) {
        for (int oy0 = 0; oy0 < g_.out_h; oy0 += band_rows_) {
          const int oy1 = std::min(g_.out_h, oy0 + band_rows_);
          CopyBand(n, oy0, oy1);
          for (int oy = oy0; oy < oy1; ++oy) {
            InteriorRun whole_row;
            whole_row.hi = g_.out_w;
            whole_row.window = patches_ + (oy - oy0) * g_.stride_h * band_w_ * g_.in_c;
            whole_row.row_step = g_.dilation_h * band_w_ * g_.in_c;
            run((n * g_.out_h + oy) * g_.out_w, whole_row);
          }
        }
      }
      return;
    }
    for (int n = 0; n < g_.batch; ++n) {
      for (int oy = 0; oy < g_.out_h; ++oy) {
        const int row_first = (n * g_.out_h + oy) * g_.out_w;
        const InteriorRun interior = in_place_runs_ ? InteriorRunOf(g_, x_, n, oy) : InteriorRun();
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

  // The pixels' rows are adjacent: zeros in one call; the bias by a loop (a call per pixel to
  // copy a few channels costs more than the copy).
  void SetBias(float* y_pixels, int count) const {
    if (bias_ == nullptr || accumulate_) {
      std::memset(y_pixels, 0, sizeof(float) * static_cast<size_t>(count * out_c_));
      return;
    }
    for (int p = 0; p < count; ++p) {
      float* y_pixel = y_pixels + p * out_c_;
      for (int o = 0; o < out_c_; ++o) y_pixel[o] = bias_[o];
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
      if (transpose_) {
        MatrixMultiplyRuns(count, out_c_, 1, depth_, patches_, depth_, 0, weights_, out_c_, bias_,
                           rows_, out_c_);
      } else {
        SetBias(rows_, count);
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
  const int band_w_;        // pixels of a band row: the windows' extent along an output row
  int band_rows_ = 0;       // output rows a band holds; 0: interior runs and patches instead
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
  // Patches or a band; weights or their gradient transposed, or the weights turned around; Y or
  // dZ rows of the pending pixels. Aligned to cache lines, so that rows of 16 floats (a pixel of
  // 16 channels in a band) are read as whole lines.
  alignas(64) float patches_[kMaxPatchFloats];
  alignas(64) float weights_[kMaxPatchFloats];
  alignas(64) float rows_[kMaxPatchFloats];
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
