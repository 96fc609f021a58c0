// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/dense_loops.h"

#include <cstring>

#include "engine/train/host_simd.h"

namespace trainscope {

#if defined(TRAINSCOPE_AVX2_PATH)
// dense_loops_avx2.cpp
void DenseForwardAvx2(const float* x, int rows, int depth, const float* w, int out,
                      const float* bias, float* y);
void DenseInputGradientAvx2(const float* dz, int rows, int out, const float* w, int depth,
                            float* dx);
void DenseWeightGradientAvx2(const float* dz, int rows, int out, RowRange trained, const float* x,
                             int depth, float* dw);
void WeightGradientOneRowSetAvx2(const float* dz, RowRange trained, const float* x, int depth,
                                 float* dw);
void MatrixMultiplyAddAvx2(int rows, int cols, int inner, const float* a, int a_row, int a_col,
                           const float* b, int b_row, float* c, int c_row);
// dense_loops_avx512.cpp
void DenseForwardAvx512(const float* x, int rows, int depth, const float* w, int out,
                        const float* bias, float* y);
void DenseInputGradientAvx512(const float* dz, int rows, int out, const float* w, int depth,
                              float* dx);
void DenseWeightGradientAvx512(const float* dz, int rows, int out, RowRange trained, const float* x,
                               int depth, float* dw);
void WeightGradientOneRowSetAvx512(const float* dz, RowRange trained, const float* x, int depth,
                                   float* dw);
void MatrixMultiplyAddAvx512(int rows, int cols, int inner, const float* a, int a_row, int a_col,
                             const float* b, int b_row, float* c, int c_row);
void MatrixMultiplyRunsAvx512(int rows, int cols, int runs, int length, const float* a, int a_row,
                              int a_run, const float* b, int b_row, const float* bias, float* c,
                              int c_row);
void MatrixMultiplyTransposedAddAvx512(int rows, int cols, int segments, int length, const float* a,
                                       int a_row, int a_segment, const float* b, int b_row,
                                       float* c, int c_row);
// dense_loops_avx2.cpp
void MatrixMultiplyRunsAvx2(int rows, int cols, int runs, int length, const float* a, int a_row,
                            int a_run, const float* b, int b_row, const float* bias, float* c,
                            int c_row);
void MatrixMultiplyTransposedAddAvx2(int rows, int cols, int segments, int length, const float* a,
                                     int a_row, int a_segment, const float* b, int b_row, float* c,
                                     int c_row);
#endif

namespace {

// What UseKernelPath() asked for; the fastest by default (constant-initialised, no constructor).
KernelPath requested_path = KernelPath::kAvx512;

}  // namespace

const char* KernelPathName(KernelPath path) {
  switch (path) {
    case KernelPath::kReference:
      return "reference";
    case KernelPath::kAvx2:
      return "avx2";
    case KernelPath::kAvx512:
      return "avx512";
  }
  return "?";
}

KernelPath FastestKernelPath() {
#if defined(TRAINSCOPE_AVX2_PATH)
  static const KernelPath fastest = !HostHasAvx2()    ? KernelPath::kReference
                                    : HostHasAvx512() ? KernelPath::kAvx512
                                                      : KernelPath::kAvx2;
  return fastest;
#else
  return KernelPath::kReference;
#endif
}

KernelPath ActiveKernelPath() {
  const KernelPath fastest = FastestKernelPath();
  return static_cast<uint8_t>(requested_path) < static_cast<uint8_t>(fastest) ? requested_path
                                                                              : fastest;
}

void UseKernelPath(KernelPath path) {
  requested_path = path;
}

void DenseForward(const float* x, int rows, int depth, const float* w, int out, const float* bias,
                  float* y) {
#if defined(TRAINSCOPE_AVX2_PATH)
  if (ActiveKernelPath() == KernelPath::kAvx512) {
    return DenseForwardAvx512(x, rows, depth, w, out, bias, y);
  }
  if (UsingFastKernels()) return DenseForwardAvx2(x, rows, depth, w, out, bias, y);
#endif
  for (int r = 0; r < rows; ++r) {
    const float* x_row = x + r * depth;
    for (int o = 0; o < out; ++o) {
      const float* w_row = w + o * depth;
      float sum = bias != nullptr ? bias[o] : 0.0f;
      for (int k = 0; k < depth; ++k) sum += x_row[k] * w_row[k];
      y[r * out + o] = sum;
    }
  }
}

void DenseInputGradient(const float* dz, int rows, int out, const float* w, int depth, float* dx) {
#if defined(TRAINSCOPE_AVX2_PATH)
  if (ActiveKernelPath() == KernelPath::kAvx512) {
    return DenseInputGradientAvx512(dz, rows, out, w, depth, dx);
  }
  if (UsingFastKernels()) return DenseInputGradientAvx2(dz, rows, out, w, depth, dx);
#endif
  for (int r = 0; r < rows; ++r) {
    float* dx_row = dx + r * depth;
    for (int o = 0; o < out; ++o) {
      const float g = dz[r * out + o];
      if (g == 0.0f) continue;
      const float* w_row = w + o * depth;
      for (int k = 0; k < depth; ++k) dx_row[k] += g * w_row[k];
    }
  }
}

void DenseWeightGradient(const float* dz, int rows, int out, RowRange trained, const float* x,
                         int depth, float* dw) {
#if defined(TRAINSCOPE_AVX2_PATH)
  if (ActiveKernelPath() == KernelPath::kAvx512) {
    return DenseWeightGradientAvx512(dz, rows, out, trained, x, depth, dw);
  }
  if (UsingFastKernels()) return DenseWeightGradientAvx2(dz, rows, out, trained, x, depth, dw);
#endif
  for (int r = 0; r < rows; ++r) {
    const float* x_row = x + r * depth;
    for (int o = trained.begin; o < trained.end; ++o) {
      const float g = dz[r * out + o];
      if (g == 0.0f) continue;
      float* dw_row = dw + (o - trained.begin) * depth;
      for (int k = 0; k < depth; ++k) dw_row[k] += g * x_row[k];
    }
  }
}

void DenseWeightGradientSet(const float* dz, int rows, int out, RowRange trained, const float* x,
                            int depth, float* dw) {
  if (trained.empty()) return;
  if (rows != 1) {
    // Several rows sum into each element: the zero-fill is a small part of their products.
    std::memset(dw, 0, static_cast<size_t>(trained.count()) * depth * sizeof(float));
    return DenseWeightGradient(dz, rows, out, trained, x, depth, dw);
  }
#if defined(TRAINSCOPE_AVX2_PATH)
  if (ActiveKernelPath() == KernelPath::kAvx512) {
    return WeightGradientOneRowSetAvx512(dz, trained, x, depth, dw);
  }
  if (UsingFastKernels()) return WeightGradientOneRowSetAvx2(dz, trained, x, depth, dw);
#endif
  for (int o = trained.begin; o < trained.end; ++o) {
    const float g = dz[o];
    float* dw_row = dw + (o - trained.begin) * depth;
    if (g == 0.0f) {
      std::memset(dw_row, 0, static_cast<size_t>(depth) * sizeof(float));
      continue;
    }
    // 0 + g x, not g x: a product of -0 becomes +0, as DenseWeightGradient leaves it.
    for (int k = 0; k < depth; ++k) dw_row[k] = 0.0f + g * x[k];
  }
}

void MatrixMultiplyAdd(int rows, int cols, int inner, const float* a, int a_row, int a_col,
                       const float* b, int b_row, float* c, int c_row) {
#if defined(TRAINSCOPE_AVX2_PATH)
  if (ActiveKernelPath() == KernelPath::kAvx512) {
    return MatrixMultiplyAddAvx512(rows, cols, inner, a, a_row, a_col, b, b_row, c, c_row);
  }
  if (UsingFastKernels()) {
    return MatrixMultiplyAddAvx2(rows, cols, inner, a, a_row, a_col, b, b_row, c, c_row);
  }
#endif
  for (int m = 0; m < rows; ++m) {
    for (int j = 0; j < inner; ++j) {
      const float scale = a[m * a_row + j * a_col];
      const float* b_row_j = b + j * b_row;
      float* c_row_m = c + m * c_row;
      for (int n = 0; n < cols; ++n) c_row_m[n] += scale * b_row_j[n];
    }
  }
}

void MatrixMultiplyRuns(int rows, int cols, int runs, int length, const float* a, int a_row,
                        int a_run, const float* b, int b_row, const float* bias, float* c,
                        int c_row) {
#if defined(TRAINSCOPE_AVX2_PATH)
  if (ActiveKernelPath() == KernelPath::kAvx512) {
    return MatrixMultiplyRunsAvx512(rows, cols, runs, length, a, a_row, a_run, b, b_row, bias, c,
                                    c_row);
  }
  if (UsingFastKernels()) {
    return MatrixMultiplyRunsAvx2(rows, cols, runs, length, a, a_row, a_run, b, b_row, bias, c,
                                  c_row);
  }
#endif
  for (int m = 0; m < rows; ++m) {
    float* c_row_m = c + m * c_row;
    for (int n = 0; n < cols; ++n) c_row_m[n] = bias != nullptr ? bias[n] : 0.0f;
    for (int s = 0; s < runs; ++s) {
      for (int j = 0; j < length; ++j) {
        const float scale = a[m * a_row + s * a_run + j];
        const float* b_row_j = b + (s * length + j) * b_row;
        for (int n = 0; n < cols; ++n) c_row_m[n] += scale * b_row_j[n];
      }
    }
  }
}

void MatrixMultiplyTransposedAdd(int rows, int cols, int segments, int length, const float* a,
                                 int a_row, int a_segment, const float* b, int b_row, float* c,
                                 int c_row) {
#if defined(TRAINSCOPE_AVX2_PATH)
  if (ActiveKernelPath() == KernelPath::kAvx512) {
    return MatrixMultiplyTransposedAddAvx512(rows, cols, segments, length, a, a_row, a_segment, b,
                                             b_row, c, c_row);
  }
  if (UsingFastKernels()) {
    return MatrixMultiplyTransposedAddAvx2(rows, cols, segments, length, a, a_row, a_segment, b,
                                           b_row, c, c_row);
  }
#endif
  for (int m = 0; m < rows; ++m) {
    for (int n = 0; n < cols; ++n) {
      float sum = 0.0f;
      for (int s = 0; s < segments; ++s) {
        const float* a_run = a + m * a_row + s * a_segment;
        const float* b_run = b + n * b_row + s * length;
        for (int k = 0; k < length; ++k) sum += a_run[k] * b_run[k];
      }
      c[m * c_row + n] += sum;
    }
  }
}

}  // namespace trainscope
