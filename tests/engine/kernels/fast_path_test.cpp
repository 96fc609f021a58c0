// SPDX-License-Identifier: Apache-2.0
//
// The fast host paths of FULLY_CONNECTED and CONV_2D (dense_loops.h, conv_patches.h; AVX2, and
// AVX-512 where the CPU has it) against the reference loops the firmware runs: the same op, inputs
// and output gradient through both, every output and gradient equal within float rounding. Shapes
// are hand-picked edge cases (tails of the 8-wide vectors and of the register blocks, a single row,
// padding on every side, strides, dilation, half ranks) plus seeded random ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace trainscope
