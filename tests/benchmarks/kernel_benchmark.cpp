// SPDX-License-Identifier: Apache-2.0
//
// The FULLY_CONNECTED and CONV_2D products on the shapes of the PyTorch comparison (the MLP's
// 784x128 layer, the ConvNet's two convolutions), through the portable loops (path:0), AVX2
// (path:1) and AVX-512 (path:2), in floating-point operations per second (2 per multiply-add).
// The FMA-throughput loops at the end measure what this core reaches with AVX2 and AVX-512 FMAs
// alone (the "peak" of docs/benchmarks.md), and the streams over a buffer the size of the FC
// weights what its caches deliver (the bound of the one-sample products, which use each weight
// once), in the same session.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "engine/kernels/conv_patches.h"
#include "engine/kernels/dense_loops.h"
#include "engine/kernels/trained_rows.h"
#include "engine/kernels/window_geometry.h"
#include "engine/train/host_simd.h"

#if defined(TRAINSCOPE_AVX2_PATH)
#include <immintrin.h>
#endif

namespace trainscope {
namespace {

// Floats starting `offset` bytes past a 64-byte cache line boundary, whatever the allocator
// returned (large blocks land at one offset or another from run to run, and a product whose
// vectors straddle lines loses up to a third of its speed). The engine's arena aligns buffers to
// 16 bytes, so 16 past a line is a placement activations and gradients meet in use; its constant
// store aligns weights to a line on x86-64 hosts, so weights are placed on one (offset 0).
class Floats {
 public:
  explicit Floats(size_t count, size_t offset = 16) : storage_(count + 32) {
    const uintptr_t start = reinterpret_cast<uintptr_t>(storage_.data());
    const uintptr_t line = (start + 63) / 64 * 64;
    data_ = reinterpret_cast<float*>(line + offset);
    size_ = count;
  }
  // A move keeps the heap block, so data() stays valid; a copy would point into the original.
  Floats(Floats&&) = default;
  Floats(const Floats&) = delete;
  Floats& operator=(const Floats&) = delete;

  float* data() { return data_; }
  const float* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::vector<float> storage_;
  float* data_ = nullptr;
  size_t size_ = 0;
};

Floats Random(size_t count, uint32_t seed, size_t offset = 16) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Floats values(count, offset);
  for (size_t i = 0; i < count; ++i) values.data()[i] = uniform(rng);
  return values;
}

void UsePath(benchmark::State& state) {
  const auto path = static_cast<KernelPath>(state.range(0));
  UseKernelPath(path);
  if (ActiveKernelPath() != path) state.SkipWithError("this CPU lacks that path");
}

void CountFlops(benchmark::State& state, double multiply_adds) {
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * multiply_adds * static_cast<double>(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
  UseKernelPath(KernelPath::kAvx512);
}

// The MLP's first layer, one sample: forward, weight gradient; the second layer's input gradient.
void BM_FcForward784x128(benchmark::State& state) {
  UsePath(state);
  const Floats x = Random(784, 1), w = Random(784 * 128, 2, 0), b = Random(128, 3);
  Floats y(128);
  for (auto _ : state) {
    DenseForward(x.data(), 1, 784, w.data(), 128, b.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
  CountFlops(state, 784.0 * 128);
}
BENCHMARK(BM_FcForward784x128)->DenseRange(0, 2)->ArgName("path")->Unit(benchmark::kMicrosecond);

// One sample: a rank-1 update, one multiply-add per dW element read and written (bound by the
// cache, see BM_StreamReadModifyWrite400KB).
void BM_FcWeightGradient784x128(benchmark::State& state) {
  UsePath(state);
  const Floats x = Random(784, 1), dz = Random(128, 3);
  Floats dw(784 * 128);
  for (auto _ : state) {
    DenseWeightGradient(dz.data(), 1, 128, RowRange{0, 128}, x.data(), 784, dw.data());
    benchmark::DoNotOptimize(dw.data());
  }
  CountFlops(state, 784.0 * 128);
}
BENCHMARK(BM_FcWeightGradient784x128)
    ->DenseRange(0, 2)
    ->ArgName("path")
    ->Unit(benchmark::kMicrosecond);

// A batch's first sample as the trainer runs it: write:0 zero-fills dW and adds into it (before
// DenseWeightGradientSet), write:1 writes dW whole, each element stored once. FLOPs count the
// multiply-adds only, so the figure compares the two as times.
void BM_FcWeightGradientFirstSample784x128(benchmark::State& state) {
  UsePath(state);
  const Floats x = Random(784, 1), dz = Random(128, 3);
  Floats dw(784 * 128);
  const bool set = state.range(1) != 0;
  for (auto _ : state) {
    if (set) {
      DenseWeightGradientSet(dz.data(), 1, 128, RowRange{0, 128}, x.data(), 784, dw.data());
    } else {
      std::memset(dw.data(), 0, dw.size() * sizeof(float));
      DenseWeightGradient(dz.data(), 1, 128, RowRange{0, 128}, x.data(), 784, dw.data());
    }
    benchmark::DoNotOptimize(dw.data());
  }
  CountFlops(state, 784.0 * 128);
}
BENCHMARK(BM_FcWeightGradientFirstSample784x128)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->ArgNames({"path", "write"})
    ->Unit(benchmark::kMicrosecond);

// Sixteen samples' dZ and X in one call (a batch's rows): each dW element read and written once
// for 16 multiply-adds, the GEMM-shaped case.
void BM_FcWeightGradient784x128Rows16(benchmark::State& state) {
  UsePath(state);
  constexpr int kRows = 16;
  const Floats x = Random(kRows * 784, 1), dz = Random(kRows * 128, 3);
  Floats dw(784 * 128);
  for (auto _ : state) {
    DenseWeightGradient(dz.data(), kRows, 128, RowRange{0, 128}, x.data(), 784, dw.data());
    benchmark::DoNotOptimize(dw.data());
  }
  CountFlops(state, kRows * 784.0 * 128);
}
BENCHMARK(BM_FcWeightGradient784x128Rows16)
    ->DenseRange(0, 2)
    ->ArgName("path")
    ->Unit(benchmark::kMicrosecond);

void BM_FcInputGradient784x128(benchmark::State& state) {
  UsePath(state);
  const Floats w = Random(784 * 128, 2, 0), dz = Random(128, 3);
  Floats dx(784);
  for (auto _ : state) {
    DenseInputGradient(dz.data(), 1, 128, w.data(), 784, dx.data());
    benchmark::DoNotOptimize(dx.data());
  }
  CountFlops(state, 784.0 * 128);
}
BENCHMARK(BM_FcInputGradient784x128)
    ->DenseRange(0, 2)
    ->ArgName("path")
    ->Unit(benchmark::kMicrosecond);

// The ConvNet's convolutions, 3x3 SAME stride 1: {height/width, input channels, output channels}.
struct ConvLayer {
  int size, in_c, out_c;
};
constexpr ConvLayer kConvLayers[] = {{32, 3, 16}, {16, 16, 32}};

WindowGeometry Geometry(const ConvLayer& layer) {
  WindowGeometry g;
  g.batch = 1;
  g.in_h = g.in_w = g.out_h = g.out_w = layer.size;
  g.in_c = layer.in_c;
  g.filter_h = g.filter_w = 3;
  g.pad_top = g.pad_left = 1;
  return g;
}

double ConvMultiplyAdds(const ConvLayer& layer) {
  return static_cast<double>(layer.size) * layer.size * layer.out_c * 9 * layer.in_c;
}

// Arguments: path, layer index. The reference path is the op's own loop, which this benchmark
// cannot reach without an op; it runs the patches through the portable dense products instead.
void BM_ConvForward(benchmark::State& state) {
  UsePath(state);
  const ConvLayer layer = kConvLayers[state.range(1)];
  const WindowGeometry g = Geometry(layer);
  const Floats x = Random(static_cast<size_t>(layer.size * layer.size * layer.in_c), 1);
  const Floats w = Random(static_cast<size_t>(layer.out_c * 9 * layer.in_c), 2, 0);
  const Floats b = Random(static_cast<size_t>(layer.out_c), 3);
  Floats y(static_cast<size_t>(layer.size * layer.size * layer.out_c));
  for (auto _ : state) {
    ConvForwardByPatches(g, x.data(), w.data(), layer.out_c, b.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
  CountFlops(state, ConvMultiplyAdds(layer));
}
BENCHMARK(BM_ConvForward)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->ArgNames({"path", "layer"})
    ->Unit(benchmark::kMicrosecond);

// Weight and input gradients together (the first layer's input gradient is never needed in a
// network, but is counted here like the second's).
void BM_ConvBackward(benchmark::State& state) {
  UsePath(state);
  const ConvLayer layer = kConvLayers[state.range(1)];
  const WindowGeometry g = Geometry(layer);
  const size_t in_count = static_cast<size_t>(layer.size * layer.size * layer.in_c);
  const Floats x = Random(in_count, 1);
  const Floats w = Random(static_cast<size_t>(layer.out_c * 9 * layer.in_c), 2, 0);
  const Floats dz = Random(static_cast<size_t>(layer.size * layer.size * layer.out_c), 3);
  Floats dw(w.size()), dx(in_count);
  for (auto _ : state) {
    ConvBackwardByPatches(g, x.data(), w.data(), layer.out_c, dz.data(), RowRange{0, layer.out_c},
                          dw.data(), dx.data());
    benchmark::DoNotOptimize(dw.data());
    benchmark::DoNotOptimize(dx.data());
  }
  CountFlops(state, 2.0 * ConvMultiplyAdds(layer));
}
BENCHMARK(BM_ConvBackward)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->ArgNames({"path", "layer"})
    ->Unit(benchmark::kMicrosecond);

#if defined(TRAINSCOPE_AVX2_PATH)
// Ten independent 8-wide FMA chains: enough to cover the latency of two FMA units.
__attribute__((target("avx2,fma"))) void FmaChains(int64_t rounds, float* out) {
  __m256 acc[10];
  for (int i = 0; i < 10; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 10
    for (int i = 0; i < 10; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < 10; ++i) sum = _mm256_add_ps(sum, acc[i]);
  _mm256_storeu_ps(out, sum);
}

void BM_Avx2FmaPeak(benchmark::State& state) {
  if (FastestKernelPath() == KernelPath::kReference) state.SkipWithError("no AVX2/FMA here");
  float out[8];
  constexpr int64_t kRounds = 100000;
  for (auto _ : state) {
    FmaChains(kRounds, out);
    benchmark::DoNotOptimize(out);
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * 8 * 10 * kRounds * static_cast<double>(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Avx2FmaPeak)->Unit(benchmark::kMicrosecond);

// The same with 16-float vectors, where the CPU has AVX-512.
__attribute__((target("avx512f"))) void Fma512Chains(int64_t rounds, float* out) {
  __m512 acc[10];
  for (int i = 0; i < 10; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 10
    for (int i = 0; i < 10; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < 10; ++i) sum = _mm512_add_ps(sum, acc[i]);
  _mm512_storeu_ps(out, sum);
}

void BM_Avx512FmaPeak(benchmark::State& state) {
  if (FastestKernelPath() != KernelPath::kAvx512) state.SkipWithError("no AVX-512 here");
  float out[16];
  constexpr int64_t kRounds = 100000;
  for (auto _ : state) {
    Fma512Chains(kRounds, out);
    benchmark::DoNotOptimize(out);
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * 16 * 10 * kRounds * static_cast<double>(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Avx512FmaPeak)->Unit(benchmark::kMicrosecond);

// Streams over 784 x 128 floats (401 KB, the FC weights and their gradient: more than the
// first-level cache, less than the second), 16-float vectors, four independent ones a step.
constexpr int kStreamFloats = 784 * 128;

// Reads every float once (what the one-sample forward and input gradient do with W).
__attribute__((target("avx512f"))) float SumStream(const float* p, int count) {
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                   _mm512_setzero_ps()};
  for (int i = 0; i < count; i += 64) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) acc[v] = _mm512_add_ps(acc[v], _mm512_loadu_ps(p + i + 16 * v));
  }
  return _mm512_reduce_add_ps(
      _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
}

// Reads and writes back every float once, one multiply-add each (what the one-sample weight
// gradient does with dW, without its second operand).
__attribute__((target("avx512f"))) void ScaleStream(float* p, int count) {
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < count; i += 64) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      _mm512_storeu_ps(p + i + 16 * v, _mm512_fmadd_ps(a, _mm512_loadu_ps(p + i + 16 * v), b));
    }
  }
}

// GB/s of floats moved, and the GFLOP/s a product using each float once for one multiply-add
// could reach at that speed (2 flops per float).
void CountStream(benchmark::State& state, double bytes_per_float) {
  const double floats =
      static_cast<double>(kStreamFloats) * static_cast<double>(state.iterations());
  state.counters["GB/s"] =
      benchmark::Counter(bytes_per_float * floats / 1e9, benchmark::Counter::kIsRate);
  state.counters["GFLOPS_bound"] =
      benchmark::Counter(2.0 * floats / 1e9, benchmark::Counter::kIsRate);
}

void BM_StreamRead400KB(benchmark::State& state) {
  if (FastestKernelPath() != KernelPath::kAvx512) state.SkipWithError("no AVX-512 here");
  const Floats values = Random(kStreamFloats, 4, 0);
  for (auto _ : state) {
    float sum = SumStream(values.data(), kStreamFloats);
    benchmark::DoNotOptimize(sum);
  }
  CountStream(state, 4.0);
}
BENCHMARK(BM_StreamRead400KB)->Unit(benchmark::kMicrosecond);

void BM_StreamReadModifyWrite400KB(benchmark::State& state) {
  if (FastestKernelPath() != KernelPath::kAvx512) state.SkipWithError("no AVX-512 here");
  Floats values = Random(kStreamFloats, 4, 0);
  for (auto _ : state) {
    ScaleStream(values.data(), kStreamFloats);
    benchmark::DoNotOptimize(values.data());
  }
  CountStream(state, 8.0);
}
BENCHMARK(BM_StreamReadModifyWrite400KB)->Unit(benchmark::kMicrosecond);
#endif

}  // namespace
}  // namespace trainscope

BENCHMARK_MAIN();
