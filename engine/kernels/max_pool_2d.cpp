// SPDX-License-Identifier: Apache-2.0
//
// MAX_POOL_2D (NHWC): each output is the maximum of the window cells inside the input (padding
// cells never win). Backward routes each output's gradient to the first maximum of its window in
// row-major window order, re-found from the saved forward input; windows that overlap add their
// gradients (+=), unlike onert-micro's assignment. Reads the input, and the output when an
// activation is fused. BackwardAsOnertMicro assigns instead (research §7.4): where windows
// overlap, the later window's gradient replaces the earlier one's.
#include "engine/kernels/dense_loops.h"
#include "engine/kernels/pool_windows.h"
#include "engine/kernels/registrations.h"
#include "engine/train/host_simd.h"

namespace trainscope {

#if defined(TRAINSCOPE_AVX2_PATH)
// max_pool_loops_avx512.cpp: the same windows, 16 channels a vector, the same bits; used with
// the AVX-512 kernels (KernelPath::kAvx512).
void MaxPoolForwardAvx512(const WindowGeometry& g, const float* x, float* y);
void MaxPoolBackwardAvx512(const WindowGeometry& g, const float* x, const float* dz, float* dx);
#endif

namespace {

// Channels are the inner loop everywhere: adjacent in memory, and one compare-and-select each,
// which the compiler vectorises instead of branching on every comparison.
constexpr int kChannelChunk = 64;

// y = the window maxima of x, the portable loops.
void WindowMaxima(const WindowGeometry& g, const float* x, float* y) {
  const int channels = g.in_c;
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    float* y_pixel = y + p * channels;
    if (taps.Count() == 0) {
      for (int c = 0; c < channels; ++c) y_pixel[c] = 0.0f;
      continue;
    }
    const float* first = x + InputPixel(g, taps, taps.ky_begin, taps.kx_begin) * channels;
    for (int c = 0; c < channels; ++c) y_pixel[c] = first[c];
    for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
      for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
        if (ky == taps.ky_begin && kx == taps.kx_begin) continue;
        const float* cell = x + InputPixel(g, taps, ky, kx) * channels;
        for (int c = 0; c < channels; ++c) {
          const float v = cell[c], best = y_pixel[c];
          y_pixel[c] = v > best ? v : best;
        }
      }
    }
  }
}

Status Eval(const KernelIo& io) {
  const WindowGeometry g = PoolGeometryOf(io);
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
#if defined(TRAINSCOPE_AVX2_PATH)
  if (ActiveKernelPath() == KernelPath::kAvx512) {
    MaxPoolForwardAvx512(g, x, y);
  } else {
    WindowMaxima(g, x, y);
  }
#else
  WindowMaxima(g, x, y);
#endif
  ApplyActivationInPlace(io.op->options.activation, y,
                         static_cast<size_t>(OutputPixels(g) * g.in_c));
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  PoolGradients grads;
  TS_RETURN_IF_ERROR(StartPoolBackward(io, &grads));
  if (grads.dx == nullptr) return Status::Ok();
  const WindowGeometry g = PoolGeometryOf(io);
  const float* x = InputFloats(io, 0);
#if defined(TRAINSCOPE_AVX2_PATH)
  if (ActiveKernelPath() == KernelPath::kAvx512) {
    MaxPoolBackwardAvx512(g, x, grads.dz, grads.dx);
    return Status::Ok();
  }
#endif
  const int channels = g.in_c;
  // The first cell of a window wins unconditionally; folding that into the compare loop keeps
  // it one loop (a separate copy loop becomes a slow string move for a few channels).
  float best[kChannelChunk] = {};
  int where[kChannelChunk] = {};  // flat input offset of the channel's first maximum so far
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    if (taps.Count() == 0) continue;
    for (int c0 = 0; c0 < channels; c0 += kChannelChunk) {
      const int n = channels - c0 < kChannelChunk ? channels - c0 : kChannelChunk;
      int first_cell = -1;  // all ones for the window's first cell
      for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
        for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
          const int cell = InputPixel(g, taps, ky, kx) * channels + c0;
          for (int c = 0; c < n; ++c) {
            const float v = x[cell + c];
            const int keep = first_cell | -static_cast<int>(v > best[c]);  // all ones: v wins
            best[c] = keep != 0 ? v : best[c];
            where[c] ^= (where[c] ^ (cell + c)) & keep;
          }
          first_cell = 0;
        }
      }
      const float* dz = grads.dz + p * channels + c0;
      for (int c = 0; c < n; ++c) grads.dx[where[c]] += dz[c];
    }
  }
  return Status::Ok();
}

// Assigning into the zero-filled buffer is what onert-micro does to its own dX; an input that feeds
// other operators too would lose their share here, as onert-micro's per-op buffers would.
Status BackwardAsOnertMicro(const BackwardIo& io) {
  PoolGradients grads;
  TS_RETURN_IF_ERROR(StartPoolBackward(io, &grads));
  if (grads.dx == nullptr) return Status::Ok();
  const WindowGeometry g = PoolGeometryOf(io);
  const float* x = InputFloats(io, 0);
  const int channels = g.in_c;
  OutputPixelWalk walk;
  for (int p = 0; p < OutputPixels(g); ++p, walk.Next(g)) {
    const WindowTaps taps = walk.Taps(g);
    if (taps.Count() == 0) continue;
    for (int c = 0; c < channels; ++c) {
      int where = InputPixel(g, taps, taps.ky_begin, taps.kx_begin) * channels + c;
      for (int ky = taps.ky_begin; ky < taps.ky_end; ++ky) {
        for (int kx = taps.kx_begin; kx < taps.kx_end; ++kx) {
          const int cell = InputPixel(g, taps, ky, kx) * channels + c;
          if (x[cell] > x[where]) where = cell;
        }
      }
      grads.dx[where] = grads.dz[p * channels + c];
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationMaxPool2D() {
  static constexpr OpRegistration kRegistration = WithOnertBackward(
      PoolRegistration(op::kMaxPool2D, Eval, Backward, /*backward_reads_inputs=*/1u << 0),
      BackwardAsOnertMicro);
  return kRegistration;
}

}  // namespace trainscope
