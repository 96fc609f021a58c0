// SPDX-License-Identifier: Apache-2.0
//
// The fast host paths of FULLY_CONNECTED and CONV_2D (dense_loops.h, conv_patches.h; AVX2, and
// AVX-512 where the CPU has it) against the reference loops the firmware runs: the same op, inputs
// and output gradient through both, every output and gradient equal within float rounding. Shapes
// are hand-picked edge cases (tails of the 8- and 16-wide vectors and of the register blocks, a
// single row, padding on every side, strides, dilation, half ranks) plus seeded random ones.
// The products of dense_loops.h are also held one by one to their portable loops, on every row
// count 1..20, with guard cells around each output that no path may write.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "engine/kernels/dense_loops.h"
#include "engine/kernels/kernel.h"
#include "engine/model/model_builder.h"
#include "tests/engine/kernels/kernel_harness.h"

namespace trainscope {
namespace {

using testing::KernelHarness;

struct OpCase {
  std::string name;
  ModelBuilder builder;
  TrainRank rank = TrainRank::kAll;
};

size_t Count(const std::vector<int32_t>& shape) {
  size_t count = 1;
  for (int32_t d : shape) count *= static_cast<size_t>(d);
  return count;
}

OpCase FcCase(int rows, int in, int out, Activation activation, bool bias, TrainRank rank) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {rows, in});
  const int w = b.AddConstant("w", {out, in}, std::vector<float>(Count({out, in})));
  const int bb = bias ? b.AddConstant("b", {out}, std::vector<float>(Count({out}))) : -1;
  const int y = b.AddTensor("y", {rows, out});
  OpOptions o;
  o.activation = activation;
  b.AddOperator(op::kFullyConnected, {x, w, bb}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  std::ostringstream name;
  name << "FC rows " << rows << " in " << in << " out " << out << " act "
       << ActivationName(activation) << (bias ? "" : " no bias") << " rank " << TrainRankName(rank);
  return {name.str(), b, rank};
}

struct ConvShape {
  int n, h, w, c, out_c, kh, kw;
  Padding padding;
  int sh, sw, dh, dw;
};

int32_t OutSize(Padding padding, int32_t in, int32_t k, int32_t s, int32_t d) {
  const int32_t effective = (k - 1) * d + 1;
  return padding == Padding::kSame ? (in + s - 1) / s : (in - effective + s) / s;
}

OpCase ConvCase(const ConvShape& s, Activation activation, TrainRank rank) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {s.n, s.h, s.w, s.c});
  const std::vector<int32_t> w_shape = {s.out_c, s.kh, s.kw, s.c};
  const int w = b.AddConstant("w", w_shape, std::vector<float>(Count(w_shape)));
  const int bias = b.AddConstant("b", {s.out_c}, std::vector<float>(Count({s.out_c})));
  const int y = b.AddTensor("y", {s.n, OutSize(s.padding, s.h, s.kh, s.sh, s.dh),
                                  OutSize(s.padding, s.w, s.kw, s.sw, s.dw), s.out_c});
  OpOptions o;
  o.padding = s.padding;
  o.stride_h = s.sh;
  o.stride_w = s.sw;
  o.dilation_h = s.dh;
  o.dilation_w = s.dw;
  o.activation = activation;
  b.AddOperator(op::kConv2D, {x, w, bias}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  std::ostringstream name;
  name << "CONV " << s.n << "x" << s.h << "x" << s.w << "x" << s.c << " -> " << s.out_c << " k "
       << s.kh << "x" << s.kw << " " << PaddingName(s.padding) << " stride " << s.sh << "," << s.sw
       << " dilation " << s.dh << "," << s.dw << " act " << ActivationName(activation) << " rank "
       << TrainRankName(rank);
  return {name.str(), b, rank};
}

// Everything one run of the op produces: the output, then dX, dW (compact rows) and dB.
struct Results {
  std::vector<std::vector<float>> buffers;
};

// Runs Eval and Backward of the single op with the given path. Inputs, weights, bias and the
// output gradient come from `seed`; the gradient buffers start at a random prior (Backward adds).
Results Run(const OpCase& c, KernelPath path, uint32_t seed) {
  UseKernelPath(path);
  Results results;
  KernelHarness harness;
  const Status loaded = harness.Load(c.builder);
  EXPECT_TRUE(loaded.ok()) << loaded.message();
  if (!loaded.ok()) return results;
  const Subgraph& g = harness.subgraph();
  const Operator& op = g.operators[0];
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (op.inputs[i] < 0) continue;
    for (float& v : harness.Values(op.inputs[i])) v = uniform(rng);
  }
  const Status forward = harness.Forward();
  EXPECT_TRUE(forward.ok()) << forward.message();
  results.buffers.push_back(harness.Values(op.outputs[0]));

  std::vector<std::vector<float>> gradients(g.tensors.size());
  std::vector<float*> pointers(g.tensors.size(), nullptr);
  const RowRange rows = WeightGradientRows(g, op, c.rank);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    size_t size = g.tensors[t].element_count();
    if (static_cast<int32_t>(t) == op.inputs[1]) {
      if (rows.empty()) continue;
      size = size / static_cast<size_t>(g.tensors[t].shape[0]) * static_cast<size_t>(rows.count());
    }
    gradients[t].resize(size);
    for (float& v : gradients[t]) v = uniform(rng);
    pointers[t] = gradients[t].data();
  }
  std::vector<float> scratch(BackwardScratchFloats(g, op));
  BackwardIo io;
  io.subgraph = &g;
  io.op = &op;
  io.tensor_data = harness.data();
  io.gradients = pointers.data();
  io.trainable = true;
  io.rank = c.rank;
  io.scratch = scratch.empty() ? nullptr : scratch.data();
  const Status backward = FindRegistration(op.opcode)->backward(io);
  EXPECT_TRUE(backward.ok()) << backward.message();
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (op.inputs[i] >= 0) results.buffers.push_back(gradients[op.inputs[i]]);
  }
  UseKernelPath(KernelPath::kAvx512);  // the default: the fastest the CPU has
  return results;
}

// Sums of up to a few hundred products of values in [-1, 1], summed in another order: a few
// ulps of the largest partial sums, far below what a wrong index or a lost tail gives.
void ExpectSameWithinRounding(const OpCase& c, uint32_t seed) {
  SCOPED_TRACE(c.name);
  const Results reference = Run(c, KernelPath::kReference, seed);
  for (KernelPath path : {KernelPath::kAvx2, KernelPath::kAvx512}) {
    if (static_cast<int>(path) > static_cast<int>(FastestKernelPath())) continue;
    SCOPED_TRACE(KernelPathName(path));
    const Results fast = Run(c, path, seed);
    ASSERT_EQ(fast.buffers.size(), reference.buffers.size());
    const char* names[] = {"output", "input gradient", "weight gradient", "bias gradient"};
    for (size_t b = 0; b < fast.buffers.size(); ++b) {
      ASSERT_EQ(fast.buffers[b].size(), reference.buffers[b].size()) << names[b];
      for (size_t i = 0; i < fast.buffers[b].size(); ++i) {
        const float want = reference.buffers[b][i];
        ASSERT_NEAR(fast.buffers[b][i], want, 1e-4f * (1.0f + std::fabs(want)))
            << names[b] << " element " << i;
      }
    }
  }
}

class FastPath : public ::testing::Test {
 protected:
  void SetUp() override {
    if (FastestKernelPath() == KernelPath::kReference) {
      GTEST_SKIP() << "this host has no AVX2/FMA: only the reference path";
    }
  }
};

TEST_F(FastPath, FullyConnectedMatchesReferenceOnEdgeShapes) {
  const TrainRank ranks[] = {TrainRank::kAll, TrainRank::kUpperHalf, TrainRank::kLowerHalf,
                             TrainRank::kOnlyBias};
  const int shapes[][3] = {{1, 784, 128}, {1, 1, 1},   {1, 7, 3},    {1, 8, 8},
                           {1, 65, 13},   {3, 9, 4},   {4, 31, 9},   {5, 17, 11},
                           {16, 128, 10}, {7, 100, 5}, {2, 2048, 10}};
  uint32_t seed = 1;
  for (const auto& s : shapes) {
    for (TrainRank rank : ranks) {
      ExpectSameWithinRounding(FcCase(s[0], s[1], s[2], Activation::kNone, true, rank), ++seed);
    }
    ExpectSameWithinRounding(FcCase(s[0], s[1], s[2], Activation::kRelu, false, TrainRank::kAll),
                             ++seed);
  }
}

TEST_F(FastPath, FullyConnectedMatchesReferenceOnRandomShapes) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> rows(1, 9), depth(1, 300), out(1, 40), rank(0, 3);
  for (uint32_t i = 0; i < 40; ++i) {
    ExpectSameWithinRounding(
        FcCase(rows(rng), depth(rng), out(rng), i % 2 ? Activation::kRelu : Activation::kNone,
               i % 3 != 0, static_cast<TrainRank>(rank(rng))),
        100 + i);
  }
}

TEST_F(FastPath, ConvMatchesReferenceOnEdgeShapes) {
  const ConvShape shapes[] = {
      {1, 32, 32, 3, 16, 3, 3, Padding::kSame, 1, 1, 1, 1},   // the ConvNet's first layer
      {1, 16, 16, 16, 32, 3, 3, Padding::kSame, 1, 1, 1, 1},  // and its second
      {1, 11, 11, 1, 4, 2, 2, Padding::kValid, 1, 1, 1, 1},   // simple_mnist
      {2, 9, 7, 5, 7, 3, 3, Padding::kSame, 2, 2, 1, 1},      // stride 2, odd sizes, batch 2
      {1, 10, 12, 4, 9, 5, 3, Padding::kSame, 2, 1, 1, 1},    // uneven padding
      {1, 13, 11, 3, 6, 3, 2, Padding::kSame, 1, 1, 2, 3},    // dilation
      {1, 12, 12, 6, 5, 3, 3, Padding::kValid, 1, 2, 2, 1},   // VALID, dilation, stride
      {1, 6, 6, 17, 3, 1, 1, Padding::kValid, 1, 1, 1, 1},    // 1x1
      {1, 4, 4, 2, 3, 7, 7, Padding::kSame, 1, 1, 1, 1},      // filter larger than the input
      {1, 9, 9, 200, 8, 3, 3, Padding::kSame, 1, 1, 1, 1},    // deep patches, few per block
      {1, 3, 3, 1000, 2, 3, 3, Padding::kSame, 1, 1, 1, 1},   // a patch beyond the buffer
      {1, 5, 64, 64, 4, 3, 3, Padding::kSame, 1, 1, 1, 1},    // rows too wide for a band
      {1, 4, 64, 3, 48, 3, 3, Padding::kSame, 1, 1, 1, 1},    // dZ rows too wide for a band
      {2, 20, 7, 2, 3, 4, 2, Padding::kSame, 3, 1, 2, 1},     // bands with stride and dilation
  };
  const TrainRank ranks[] = {TrainRank::kAll, TrainRank::kUpperHalf, TrainRank::kLowerHalf,
                             TrainRank::kOnlyBias};
  uint32_t seed = 1000;
  for (const ConvShape& s : shapes) {
    for (TrainRank rank : ranks) {
      ExpectSameWithinRounding(ConvCase(s, Activation::kNone, rank), ++seed);
    }
    ExpectSameWithinRounding(ConvCase(s, Activation::kRelu, TrainRank::kAll), ++seed);
  }
}

TEST_F(FastPath, ConvMatchesReferenceOnRandomShapes) {
  std::mt19937 rng(11);
  const auto pick = [&](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(rng);
  };
  for (uint32_t i = 0; i < 40; ++i) {
    ConvShape s{};
    s.n = pick(1, 2);
    s.c = pick(1, 20);
    s.out_c = pick(1, 24);
    s.kh = pick(1, 4);
    s.kw = pick(1, 4);
    s.sh = pick(1, 3);
    s.sw = pick(1, 3);
    s.dh = pick(1, 2);
    s.dw = pick(1, 2);
    s.padding = pick(0, 1) == 0 ? Padding::kSame : Padding::kValid;
    // VALID needs the dilated filter inside the input.
    s.h = pick((s.kh - 1) * s.dh + 1, 14);
    s.w = pick((s.kw - 1) * s.dw + 1, 14);
    ExpectSameWithinRounding(ConvCase(s, i % 2 ? Activation::kRelu : Activation::kNone,
                                      static_cast<TrainRank>(pick(0, 3))),
                             2000 + i);
  }
}

// MAX_POOL_2D with the AVX-512 windows against the portable loops: the same bits, forward and
// backward, over channel counts around the 16-float vector, SAME padding, overlapping windows
// (which add their gradients), ties (the first maximum wins) and NaN (never wins unless first).
TEST_F(FastPath, MaxPoolGivesThePortableBits) {
  if (FastestKernelPath() != KernelPath::kAvx512) GTEST_SKIP() << "no AVX-512 on this CPU";
  struct PoolShape {
    int h, w, c, k, stride;
    Padding padding;
  };
  const PoolShape shapes[] = {{8, 8, 16, 2, 2, Padding::kValid}, {7, 9, 1, 2, 2, Padding::kSame},
                              {6, 6, 17, 3, 1, Padding::kSame},  {5, 7, 33, 3, 2, Padding::kSame},
                              {4, 4, 15, 2, 1, Padding::kValid}, {9, 5, 32, 3, 3, Padding::kValid},
                              {3, 3, 48, 4, 1, Padding::kSame}};
  std::mt19937 rng(47);
  for (const PoolShape& s : shapes) {
    ModelBuilder b;
    const int x = b.AddTensor("x", {2, s.h, s.w, s.c});
    const int y = b.AddTensor("y", {2, OutSize(s.padding, s.h, s.k, s.stride, 1),
                                    OutSize(s.padding, s.w, s.k, s.stride, 1), s.c});
    OpOptions o;
    o.padding = s.padding;
    o.stride_h = o.stride_w = s.stride;
    o.filter_h = o.filter_w = s.k;
    b.AddOperator(op::kMaxPool2D, {x}, {y}, o);
    b.SetInputs({x});
    b.SetOutputs({y});
    // Few distinct values make ties common; a few NaN.
    std::vector<float> input(Count({2, s.h, s.w, s.c}));
    for (float& v : input) v = static_cast<float>(static_cast<int>(rng() % 7) - 3);
    for (size_t i = 0; i < input.size(); i += 37) input[i] = std::nanf("");
    std::vector<float> dz(Count({2, OutSize(s.padding, s.h, s.k, s.stride, 1),
                                 OutSize(s.padding, s.w, s.k, s.stride, 1), s.c}));
    for (float& v : dz) v = static_cast<float>(rng() % 1000) / 997.0f - 0.5f;
    std::vector<std::vector<float>> outputs, input_gradients;
    for (KernelPath path : {KernelPath::kReference, KernelPath::kAvx512}) {
      UseKernelPath(path);
      KernelHarness harness;
      ASSERT_TRUE(harness.Load(b).ok());
      const Subgraph& g = harness.subgraph();
      harness.Values(x) = input;
      ASSERT_TRUE(harness.Forward().ok());
      outputs.push_back(harness.Values(y));
      std::vector<std::vector<float>> gradients(g.tensors.size());
      std::vector<float*> pointers(g.tensors.size(), nullptr);
      gradients[static_cast<size_t>(x)].assign(input.size(), 0.0f);
      gradients[static_cast<size_t>(y)] = dz;
      pointers[static_cast<size_t>(x)] = gradients[static_cast<size_t>(x)].data();
      pointers[static_cast<size_t>(y)] = gradients[static_cast<size_t>(y)].data();
      std::vector<float> scratch(BackwardScratchFloats(g, g.operators[0]) + 1);
      BackwardIo io;
      io.subgraph = &g;
      io.op = &g.operators[0];
      io.tensor_data = harness.data();
      io.gradients = pointers.data();
      io.scratch = scratch.data();
      ASSERT_TRUE(FindRegistration(op::kMaxPool2D)->backward(io).ok());
      input_gradients.push_back(gradients[static_cast<size_t>(x)]);
    }
    UseKernelPath(KernelPath::kAvx512);
    SCOPED_TRACE("pool " + std::to_string(s.h) + "x" + std::to_string(s.w) + "x" +
                 std::to_string(s.c) + " k " + std::to_string(s.k) + " stride " +
                 std::to_string(s.stride));
    ASSERT_EQ(outputs[0].size(), outputs[1].size());
    EXPECT_EQ(std::memcmp(outputs[0].data(), outputs[1].data(), outputs[0].size() * 4), 0);
    EXPECT_EQ(std::memcmp(input_gradients[0].data(), input_gradients[1].data(),
                          input_gradients[0].size() * 4),
              0);
    double routed = 0.0;
    for (float v : input_gradients[1]) routed += std::fabs(v);
    EXPECT_GT(routed, 0.0) << "no gradient routed: the check would be vacuous";
  }
}

// ---- The products one by one, every path against the portable loops.

std::vector<float> RandomFloats(size_t count, std::mt19937& rng, float zero_share = 0.0f) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f), pick(0.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = pick(rng) < zero_share ? 0.0f : uniform(rng);
  return values;
}

std::vector<float> Magnitudes(std::vector<float> values) {
  for (float& v : values) v = std::fabs(v);
  return values;
}

// A copy of `values` followed by `slack` floats and then an inaccessible page (Linux), so that a
// path reading or writing past the end of an operand crashes the test, even when it would write
// back the value it read; elsewhere an ordinary buffer. The slack moves the start off the cache
// line alignment a whole number of lines would give (the fast paths treat the two differently).
class FencedFloats {
 public:
  FencedFloats(const std::vector<float>& values, size_t slack) {
    const size_t bytes = (values.size() + slack) * sizeof(float);
#if defined(__linux__)
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    mapped_bytes_ = (bytes + page - 1) / page * page + page;
    void* mapped =
        mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(mapped, MAP_FAILED);
    mapped_ = static_cast<char*>(mapped);
    char* fence = mapped_ + mapped_bytes_ - page;
    EXPECT_EQ(mprotect(fence, page, PROT_NONE), 0);
    data_ = reinterpret_cast<float*>(fence - bytes);
#else
    storage_.resize(values.size() + slack + 1);
    data_ = storage_.data();
#endif
    std::copy(values.begin(), values.end(), data_);
    size_ = values.size();
  }
  ~FencedFloats() {
#if defined(__linux__)
    munmap(mapped_, mapped_bytes_);
#endif
  }
  FencedFloats(const FencedFloats&) = delete;
  FencedFloats& operator=(const FencedFloats&) = delete;

  float* data() {
    return data_;
  }
  std::vector<float> values() const {
    return std::vector<float>(data_, data_ + size_);
  }

 private:
#if defined(__linux__)
  char* mapped_ = nullptr;
  size_t mapped_bytes_ = 0;
#else
  std::vector<float> storage_;
#endif
  float* data_ = nullptr;
  size_t size_ = 0;
};

// Cells before every output, holding a value no product writes (the fence guards the end).
constexpr size_t kGuard = 40;
constexpr float kGuardValue = 12345.0f;

// A product reading its operands `in` and adding into (or writing) `out`; the same callable runs
// every path.
using Product = std::function<void(const std::vector<const float*>& in, float* out)>;

// Runs `product` through the reference loops on the operands and on their magnitudes (the sum of
// the terms' sizes bounds the rounding of any order of summing them: 1e-5 of it is many times
// the rounding of a few thousand terms, and far below one lost or doubled term), then through
// every fast path with the operands ending at the fence and, again, a few floats before it:
// each output element within that bound, the guard cells untouched, and the same bits wherever
// the operands lie (a run restarted on buffers at other addresses, or a board beside the
// desktop, must reproduce every loss to the bit).
void ExpectProductAgrees(const std::string& what, const std::vector<std::vector<float>>& in,
                         const std::vector<float>& prior, const Product& product) {
  SCOPED_TRACE(what);
  const auto run = [&](KernelPath path, const std::vector<std::vector<float>>& operands,
                       const std::vector<float>& start, size_t slack) {
    std::vector<std::unique_ptr<FencedFloats>> fenced;
    std::vector<const float*> pointers;
    for (const std::vector<float>& v : operands) {
      fenced.push_back(std::make_unique<FencedFloats>(v, slack));
      pointers.push_back(fenced.back()->data());
    }
    std::vector<float> out_start(kGuard, kGuardValue);
    out_start.insert(out_start.end(), start.begin(), start.end());
    FencedFloats out(out_start, slack);
    UseKernelPath(path);
    product(pointers, out.data() + kGuard);
    UseKernelPath(KernelPath::kAvx512);
    return out.values();
  };
  const std::vector<float> reference = run(KernelPath::kReference, in, prior, 0);
  std::vector<std::vector<float>> magnitude_in;
  for (const std::vector<float>& v : in) magnitude_in.push_back(Magnitudes(v));
  const std::vector<float> magnitude =
      run(KernelPath::kReference, magnitude_in, Magnitudes(prior), 0);
  for (KernelPath path : {KernelPath::kAvx2, KernelPath::kAvx512}) {
    if (static_cast<int>(path) > static_cast<int>(FastestKernelPath())) continue;
    std::vector<float> first;
    // Slacks that put the operands at different offsets from a 64-byte cache line.
    for (size_t slack : {0, 3, 1, 4, 13}) {
      SCOPED_TRACE(std::string(KernelPathName(path)) + ", " + std::to_string(slack) +
                   " floats off the fence");
      const std::vector<float> fast = run(path, in, prior, slack);
      for (size_t i = 0; i < fast.size(); ++i) {
        if (i < kGuard) {
          ASSERT_EQ(fast[i], kGuardValue) << "guard cell " << i << " written";
          continue;
        }
        ASSERT_NEAR(fast[i], reference[i], 1e-5f * magnitude[i])
            << "element " << i - kGuard << " of " << prior.size();
      }
      if (first.empty()) {
        first = fast;
      } else {
        ASSERT_EQ(std::memcmp(fast.data(), first.data(), fast.size() * sizeof(float)), 0)
            << "the result's bits depend on where the operands lie";
      }
    }
  }
}

struct DenseShape {
  int rows, depth, out;
};

std::string Describe(const char* product, const DenseShape& s) {
  std::ostringstream name;
  name << product << " rows " << s.rows << " depth " << s.depth << " out " << s.out;
  return name.str();
}

// Depths around the 8- and 16-float vectors and the column blocks (8 vectors of 16), outputs
// around the dot-product blocks (16, 8, 4, 3, 2, 1 outputs), on every row count 1..20 with a few
// of them, and seeded random shapes.
std::vector<DenseShape> DenseShapes() {
  std::vector<DenseShape> shapes;
  const int pairs[][2] = {{1, 1},  {7, 3},   {16, 16},  {17, 5},  {33, 2},   {64, 17},
                          {65, 4}, {127, 9}, {129, 33}, {255, 1}, {784, 13}, {1000, 7}};
  for (int rows = 1; rows <= 20; ++rows) {
    for (const auto& p : pairs) shapes.push_back({rows, p[0], p[1]});
  }
  shapes.push_back({1, 784, 128});
  shapes.push_back({16, 784, 128});
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> rows(1, 20), depth(1, 300), out(1, 40);
  for (int i = 0; i < 60; ++i) shapes.push_back({rows(rng), depth(rng), out(rng)});
  return shapes;
}

TEST_F(FastPath, DenseForwardMatchesPortableLoops) {
  std::mt19937 rng(31);
  for (const DenseShape& s : DenseShapes()) {
    for (bool bias : {true, false}) {
      const auto product = [&](const std::vector<const float*>& in, float* y) {
        DenseForward(in[0], s.rows, s.depth, in[1], s.out, bias ? in[2] : nullptr, y);
      };
      ExpectProductAgrees(Describe("DenseForward", s) + (bias ? "" : " no bias"),
                          {RandomFloats(static_cast<size_t>(s.rows * s.depth), rng),
                           RandomFloats(static_cast<size_t>(s.out * s.depth), rng),
                           RandomFloats(static_cast<size_t>(s.out), rng)},
                          std::vector<float>(static_cast<size_t>(s.rows * s.out)), product);
    }
  }
}

TEST_F(FastPath, DenseInputGradientMatchesPortableLoops) {
  std::mt19937 rng(37);
  for (const DenseShape& s : DenseShapes()) {
    // A third of dZ exactly zero, as after a ReLU: the skipped outputs must not matter.
    const auto product = [&](const std::vector<const float*>& in, float* dx) {
      DenseInputGradient(in[0], s.rows, s.out, in[1], s.depth, dx);
    };
    ExpectProductAgrees(Describe("DenseInputGradient", s),
                        {RandomFloats(static_cast<size_t>(s.rows * s.out), rng, 0.35f),
                         RandomFloats(static_cast<size_t>(s.out * s.depth), rng)},
                        RandomFloats(static_cast<size_t>(s.rows * s.depth), rng), product);
  }
}

TEST_F(FastPath, DenseWeightGradientMatchesPortableLoops) {
  std::mt19937 rng(41);
  for (const DenseShape& s : DenseShapes()) {
    const RowRange ranges[] = {{0, s.out},
                               TrainedRows(TrainRank::kUpperHalf, s.out),
                               TrainedRows(TrainRank::kLowerHalf, s.out),
                               {std::min(1, s.out), std::max(std::min(1, s.out), s.out - 1)}};
    for (const RowRange& trained : ranges) {
      const auto product = [&](const std::vector<const float*>& in, float* dw) {
        DenseWeightGradient(in[0], s.rows, s.out, trained, in[1], s.depth, dw);
      };
      std::ostringstream name;
      name << Describe("DenseWeightGradient", s) << " trained [" << trained.begin << ", "
           << trained.end << ")";
      ExpectProductAgrees(
          name.str(),
          {RandomFloats(static_cast<size_t>(s.rows * s.out), rng, 0.35f),
           RandomFloats(static_cast<size_t>(s.rows * s.depth), rng)},
          RandomFloats(static_cast<size_t>(std::max(0, trained.count()) * s.depth), rng), product);
    }
  }
}

// DenseWeightGradientSet writes DW whole: on every path and shape, over stale bytes (NaN, huge
// values), the very bits DenseWeightGradient gives on a zero-filled DW, the zero outputs' rows
// zero even where X holds an infinity, and nothing outside the trained rows.
TEST_F(FastPath, DenseWeightGradientSetGivesTheBitsOfAddingIntoZeros) {
  std::mt19937 rng(43);
  const float kStale = std::nanf("");
  for (const DenseShape& s : DenseShapes()) {
    const RowRange ranges[] = {{0, s.out}, TrainedRows(TrainRank::kLowerHalf, s.out)};
    for (const RowRange& trained : ranges) {
      if (trained.empty()) continue;
      const std::vector<float> dz = RandomFloats(static_cast<size_t>(s.rows * s.out), rng, 0.35f);
      std::vector<float> x = RandomFloats(static_cast<size_t>(s.rows * s.depth), rng);
      x[x.size() / 2] = std::numeric_limits<float>::infinity();
      for (float& v : x) v = v == 0.0f ? -0.0f : v;  // -0 products must come out as +0
      const size_t count = static_cast<size_t>(trained.count() * s.depth);
      for (KernelPath path : {KernelPath::kReference, KernelPath::kAvx2, KernelPath::kAvx512}) {
        if (static_cast<int>(path) > static_cast<int>(FastestKernelPath())) continue;
        SCOPED_TRACE(Describe("DenseWeightGradientSet", s) + " trained [" +
                     std::to_string(trained.begin) + ", " + std::to_string(trained.end) + "), " +
                     KernelPathName(path));
        std::vector<float> added(count + 2, 0.0f), set(count + 2, kStale);
        set.back() = 7.0f;
        UseKernelPath(path);
        DenseWeightGradient(dz.data(), s.rows, s.out, trained, x.data(), s.depth, added.data());
        DenseWeightGradientSet(dz.data(), s.rows, s.out, trained, x.data(), s.depth, set.data());
        UseKernelPath(KernelPath::kAvx512);
        ASSERT_EQ(std::memcmp(set.data(), added.data(), count * sizeof(float)), 0);
        ASSERT_EQ(set.back(), 7.0f) << "written past the trained rows";
      }
    }
  }
}

struct MultiplyShape {
  int rows, cols, inner;
  int a_row, a_col, b_row, c_row;  // 0: the dense stride (inner, 1, cols, cols)
};

// C += A B with dense and strided operands, adjacent A rows (a_row 1, the weight gradients'
// layout) and overlapping C rows (c_row < cols, a transposed convolution's windows).
TEST_F(FastPath, MatrixMultiplyAddMatchesPortableLoops) {
  std::vector<MultiplyShape> shapes;
  for (int rows = 1; rows <= 30; ++rows) {
    shapes.push_back({rows, 16, 27, 0, 0, 0, 0});
    shapes.push_back({rows, 33, 9, 0, 0, 0, 0});
    shapes.push_back({rows, 9, 16, 16, 1, 27, 3});   // overlapping C rows, the conv dX
    shapes.push_back({rows, 16, 30, 1, 3, 16, 16});  // adjacent A rows, the conv dW
    shapes.push_back({rows, 47, 5, 1, 40, 50, 47});  // adjacent A rows, two column blocks
  }
  std::mt19937 rng(43);
  std::uniform_int_distribution<int> size(1, 70), stride_extra(0, 3);
  for (int i = 0; i < 60; ++i) {
    MultiplyShape s{size(rng), size(rng), size(rng), 0, 0, 0, 0};
    if (i % 3 == 1) s.a_row = 1, s.a_col = s.rows + stride_extra(rng);
    if (i % 3 == 2) s.c_row = std::max(1, s.cols - 2 - stride_extra(rng));
    shapes.push_back(s);
  }
  for (MultiplyShape s : shapes) {
    if (s.a_row == 0) s.a_row = s.inner, s.a_col = 1;
    if (s.b_row == 0) s.b_row = s.cols;
    if (s.c_row == 0) s.c_row = s.cols;
    const size_t a_size = static_cast<size_t>((s.rows - 1) * s.a_row + (s.inner - 1) * s.a_col + 1);
    const size_t b_size = static_cast<size_t>((s.inner - 1) * s.b_row + s.cols);
    const size_t c_size = static_cast<size_t>((s.rows - 1) * s.c_row + s.cols);
    const auto product = [&](const std::vector<const float*>& in, float* c) {
      MatrixMultiplyAdd(s.rows, s.cols, s.inner, in[0], s.a_row, s.a_col, in[1], s.b_row, c,
                        s.c_row);
    };
    std::ostringstream name;
    name << "MatrixMultiplyAdd " << s.rows << " x " << s.cols << " inner " << s.inner << " a "
         << s.a_row << "," << s.a_col << " b " << s.b_row << " c " << s.c_row;
    ExpectProductAgrees(name.str(), {RandomFloats(a_size, rng), RandomFloats(b_size, rng)},
                        RandomFloats(c_size, rng), product);
  }
}

struct RunsShape {
  int rows, cols, runs, length, a_row, a_run;
};

// C = bias + A B with A's inner dimension in runs: a conv row's windows (3 runs of 9 or 48
// floats, a pixel apart), one dense run (border patches), columns around the vector and block
// widths, with and without a bias. The prior contents of C must not matter.
TEST_F(FastPath, MatrixMultiplyRunsMatchesPortableLoops) {
  std::vector<RunsShape> shapes;
  for (int rows = 1; rows <= 30; ++rows) {
    shapes.push_back({rows, 16, 3, 9, 3, 34 * 3});     // the ConvNet's first layer
    shapes.push_back({rows, 32, 3, 48, 16, 18 * 16});  // and its second
    shapes.push_back({rows, 7, 1, 27, 27, 0});         // border patches
    shapes.push_back({rows, 33, 2, 5, 2, 40});
  }
  std::mt19937 rng(53);
  std::uniform_int_distribution<int> size(1, 40), runs(1, 4), stride(1, 12);
  for (int i = 0; i < 60; ++i) {
    const int length = size(rng);
    shapes.push_back({size(rng), size(rng), runs(rng), length, stride(rng), length + stride(rng)});
  }
  for (const RunsShape& s : shapes) {
    for (bool bias : {true, false}) {
      const size_t a_size =
          static_cast<size_t>((s.rows - 1) * s.a_row + (s.runs - 1) * s.a_run + s.length);
      const int b_row = s.cols + s.rows % 3;
      const size_t b_size = static_cast<size_t>((s.runs * s.length - 1) * b_row + s.cols);
      const int c_row = s.cols + s.rows % 2;
      const size_t c_size = static_cast<size_t>((s.rows - 1) * c_row + s.cols);
      const auto product = [&](const std::vector<const float*>& in, float* c) {
        MatrixMultiplyRuns(s.rows, s.cols, s.runs, s.length, in[0], s.a_row, s.a_run, in[1], b_row,
                           bias ? in[2] : nullptr, c, c_row);
      };
      std::ostringstream name;
      name << "MatrixMultiplyRuns " << s.rows << " x " << s.cols << ", " << s.runs << " runs of "
           << s.length << " a " << s.a_row << "," << s.a_run << (bias ? "" : " no bias");
      // Prior C contents are overwritten; only the gaps between rows (c_row > cols) keep them.
      ExpectProductAgrees(name.str(),
                          {RandomFloats(a_size, rng), RandomFloats(b_size, rng),
                           RandomFloats(static_cast<size_t>(s.cols), rng)},
                          RandomFloats(c_size, rng), product);
    }
  }
}

struct TransposedShape {
  int rows, cols, segments, length;
  int a_row, a_segment;  // 0: one dense row of segments * length
};

// C += A B^T as dot products over segmented A rows: the conv windows read in place (3 filter
// rows of 48 floats, rows a pixel apart), dense rows (the FC forward), every column count the
// blocks use (1..5, 16 and a remainder), lengths around the vector widths.
TEST_F(FastPath, MatrixMultiplyTransposedAddMatchesPortableLoops) {
  std::vector<TransposedShape> shapes;
  for (int rows = 1; rows <= 20; ++rows) {
    for (int cols : {1, 2, 3, 4, 5, 16, 19}) {
      shapes.push_back({rows, cols, 3, 48, 16, 32 * 16});  // the ConvNet's first-layer dX
      shapes.push_back({rows, cols, 1, 37, 0, 0});
    }
    shapes.push_back({rows, 3, 2, 7, 5, 9});  // short runs, overlapping windows
    shapes.push_back({rows, 8, 5, 16, 16, 100});
  }
  std::mt19937 rng(47);
  std::uniform_int_distribution<int> rows(1, 20), cols(1, 20), segments(1, 4), length(1, 70);
  for (int i = 0; i < 60; ++i) {
    shapes.push_back({rows(rng), cols(rng), segments(rng), length(rng), 0, 0});
    if (i % 2 == 1) {  // strided, overlapping rows
      shapes.back().a_row = 1 + i % 9;
      shapes.back().a_segment = shapes.back().length + i % 5;
    }
  }
  for (TransposedShape s : shapes) {
    if (s.a_row == 0) s.a_row = s.segments * s.length;
    const size_t a_size =
        static_cast<size_t>((s.rows - 1) * s.a_row + (s.segments - 1) * s.a_segment + s.length);
    const int b_row = s.segments * s.length + s.rows % 3;  // B rows with and without a gap
    const size_t b_size = static_cast<size_t>((s.cols - 1) * b_row + s.segments * s.length);
    const int c_row = s.cols + s.rows % 2;
    const size_t c_size = static_cast<size_t>((s.rows - 1) * c_row + s.cols);
    const auto product = [&](const std::vector<const float*>& in, float* c) {
      MatrixMultiplyTransposedAdd(s.rows, s.cols, s.segments, s.length, in[0], s.a_row, s.a_segment,
                                  in[1], b_row, c, c_row);
    };
    std::ostringstream name;
    name << "MatrixMultiplyTransposedAdd " << s.rows << " x " << s.cols << ", " << s.segments
         << " runs of " << s.length << " a " << s.a_row << "," << s.a_segment << " b " << b_row
         << " c " << c_row;
    ExpectProductAgrees(name.str(), {RandomFloats(a_size, rng), RandomFloats(b_size, rng)},
                        RandomFloats(c_size, rng), product);
  }
}

}  // namespace
}  // namespace trainscope
