// SPDX-License-Identifier: Apache-2.0
//
// The FULLY_CONNECTED and CONV_2D products on the shapes of the PyTorch comparison (the MLP's
// 784x128 layer, the ConvNet's two convolutions), through the portable loops (path:0), AVX2
// (path:1) and AVX-512 (path:2, used by MatrixMultiplyAdd only, so by the convolutions), in
// floating-point operations per second (2 per multiply-add). The
// FMA-throughput loops at the end measure what this core reaches with AVX2 and AVX-512 FMAs alone
// (the "peak" of docs/benchmarks.md), in the same session.
#include <benchmark/benchmark.h>

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

std::vector<float> Random(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(rng);
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
  const std::vector<float> x = Random(784, 1), w = Random(784 * 128, 2), b = Random(128, 3);
  std::vector<float> y(128);
  for (auto _ : state) {
    DenseForward(x.data(), 1, 784, w.data(), 128, b.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
  CountFlops(state, 784.0 * 128);
}
BENCHMARK(BM_FcForward784x128)->DenseRange(0, 1)->ArgName("path")->Unit(benchmark::kMicrosecond);

void BM_FcWeightGradient784x128(benchmark::State& state) {
  UsePath(state);
  const std::vector<float> x = Random(784, 1), dz = Random(128, 3);
  std::vector<float> dw(784 * 128);
  for (auto _ : state) {
    DenseWeightGradient(dz.data(), 1, 128, RowRange{0, 128}, x.data(), 784, dw.data());
    benchmark::DoNotOptimize(dw.data());
  }
  CountFlops(state, 784.0 * 128);
}
BENCHMARK(BM_FcWeightGradient784x128)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("path")
    ->Unit(benchmark::kMicrosecond);

void BM_FcInputGradient784x128(benchmark::State& state) {
  UsePath(state);
  const std::vector<float> w = Random(784 * 128, 2), dz = Random(128, 3);
  std::vector<float> dx(784);
  for (auto _ : state) {
    DenseInputGradient(dz.data(), 1, 128, w.data(), 784, dx.data());
    benchmark::DoNotOptimize(dx.data());
  }
  CountFlops(state, 784.0 * 128);
}
BENCHMARK(BM_FcInputGradient784x128)
    ->Arg(0)
    ->Arg(1)
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
  const std::vector<float> x = Random(static_cast<size_t>(layer.size * layer.size * layer.in_c), 1);
  const std::vector<float> w = Random(static_cast<size_t>(layer.out_c * 9 * layer.in_c), 2);
  const std::vector<float> b = Random(static_cast<size_t>(layer.out_c), 3);
  std::vector<float> y(static_cast<size_t>(layer.size * layer.size * layer.out_c));
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
  const std::vector<float> x = Random(in_count, 1);
  const std::vector<float> w = Random(static_cast<size_t>(layer.out_c * 9 * layer.in_c), 2);
  const std::vector<float> dz =
      Random(static_cast<size_t>(layer.size * layer.size * layer.out_c), 3);
  std::vector<float> dw(w.size()), dx(in_count);
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
#endif

}  // namespace
}  // namespace trainscope

BENCHMARK_MAIN();
