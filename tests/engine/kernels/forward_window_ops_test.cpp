// SPDX-License-Identifier: Apache-2.0
//
// Hand-computed forward cases for the windowed and dense ops the fixtures do not cover:
// depthwise convolution, convolution with SAME padding / stride / dilation, pools with SAME
// padding, fully connected with batches, softmax with beta, fused activations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/model/model_builder.h"
#include "tests/engine/kernels/kernel_harness.h"

namespace trainscope {
namespace {

using ::testing::ElementsAreArray;
using ::testing::FloatNear;
using ::testing::Pointwise;
using testing::RunSingleOutput;
using testing::TryRun;

std::vector<float> Iota(int count, float start = 1.0f, float step = 1.0f) {
  std::vector<float> values(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    values[static_cast<size_t>(i)] = start + step * static_cast<float>(i);
  return values;
}

TEST(DepthwiseConv2D, MultipliesEachInputChannelIntoItsOwnOutputChannels) {
  // Input 3x3 (one channel) = 1..9; multiplier 2: channel 0 sums the main diagonal of each 2x2
  // window, channel 1 the anti-diagonal; bias [0.5, -1].
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 3, 3, 1});
  const int w = b.AddConstant("w", {1, 2, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0});
  const int bias = b.AddConstant("bias", {2}, {0.5f, -1.0f});
  const int y = b.AddTensor("y", {1, 2, 2, 2});
  OpOptions o;
  o.padding = Padding::kValid;
  o.stride_w = o.stride_h = 1;
  o.depth_multiplier = 2;
  b.AddOperator(op::kDepthwiseConv2D, {x, w, bias}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_THAT(RunSingleOutput(b, {Iota(9)}),
              ElementsAreArray({6.5f, 5.0f, 8.5f, 7.0f, 12.5f, 11.0f, 14.5f, 13.0f}));
}

TEST(DepthwiseConv2D, SamePaddingWithStrideTwoSkipsPaddedCells) {
  // Two channels (channel 1 = 10 x channel 0), 3x3 all-ones filter, SAME, stride 2: the padding
  // is one row/column before, so each output sums the in-range part of its window.
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 3, 3, 2});
  const int w = b.AddConstant("w", {1, 3, 3, 2}, std::vector<float>(18, 1.0f));
  const int y = b.AddTensor("y", {1, 2, 2, 2});
  OpOptions o;
  o.padding = Padding::kSame;
  o.stride_w = o.stride_h = 2;
  b.AddOperator(op::kDepthwiseConv2D, {x, w, -1}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<float> input;
  for (float v = 1; v <= 9; ++v) {
    input.push_back(v);
    input.push_back(10 * v);
  }
  EXPECT_THAT(RunSingleOutput(b, {input}),
              ElementsAreArray({12.0f, 120.0f, 16.0f, 160.0f, 24.0f, 240.0f, 28.0f, 280.0f}));
}

TEST(Conv2D, DilationSpreadsTheFilterTaps) {
  // 4x4 input 1..16, 2x2 all-ones filter, dilation 2, VALID: taps (y, x), (y, x+2), (y+2, x),
  // (y+2, x+2).
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 4, 4, 1});
  const int w = b.AddConstant("w", {1, 2, 2, 1}, {1, 1, 1, 1});
  const int y = b.AddTensor("y", {1, 2, 2, 1});
  OpOptions o;
  o.padding = Padding::kValid;
  o.stride_w = o.stride_h = 1;
  o.dilation_w = o.dilation_h = 2;
  b.AddOperator(op::kConv2D, {x, w, -1}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_THAT(RunSingleOutput(b, {Iota(16)}), ElementsAreArray({24.0f, 28.0f, 40.0f, 44.0f}));
}

TEST(Conv2D, SamePaddingWithStrideTwoPutsTheOddPaddingAfter) {
  // 4x4 input 1..16, 3x3 filters (ones, twos), SAME, stride 2: total padding 1 goes after, so
  // windows cover rows/cols {0..2} and {2..3}. Bias [0, 1].
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 4, 4, 1});
  std::vector<float> weights(9, 1.0f);
  weights.insert(weights.end(), 9, 2.0f);
  const int w = b.AddConstant("w", {2, 3, 3, 1}, weights);
  const int bias = b.AddConstant("bias", {2}, {0.0f, 1.0f});
  const int y = b.AddTensor("y", {1, 2, 2, 2});
  OpOptions o;
  o.padding = Padding::kSame;
  o.stride_w = o.stride_h = 2;
  b.AddOperator(op::kConv2D, {x, w, bias}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_THAT(RunSingleOutput(b, {Iota(16)}),
              ElementsAreArray({54.0f, 109.0f, 45.0f, 91.0f, 72.0f, 145.0f, 54.0f, 109.0f}));
}

OpOptions PoolOptions(Padding padding, int filter, int stride) {
  OpOptions o;
  o.padding = padding;
  o.filter_w = o.filter_h = filter;
  o.stride_w = o.stride_h = stride;
  return o;
}

std::vector<float> RunPool(int32_t opcode, const OpOptions& o, std::vector<int32_t> out_shape,
                           const std::vector<float>& input) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 3, 3, 1});
  const int y = b.AddTensor("y", std::move(out_shape));
  b.AddOperator(opcode, {x}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  return RunSingleOutput(b, {input});
}

TEST(AveragePool2D, SamePaddingExcludesPaddedCellsFromTheCount) {
  // 2x2 windows, stride 2 over 3x3 (1..9): the right and bottom windows are partly padding.
  EXPECT_THAT(RunPool(op::kAveragePool2D, PoolOptions(Padding::kSame, 2, 2), {1, 2, 2, 1}, Iota(9)),
              ElementsAreArray({3.0f, 4.5f, 7.5f, 9.0f}));
  // 3x3 windows, stride 1: corners average 4 cells, edges 6, the centre all 9.
  EXPECT_THAT(RunPool(op::kAveragePool2D, PoolOptions(Padding::kSame, 3, 1), {1, 3, 3, 1}, Iota(9)),
              ElementsAreArray({3.0f, 3.5f, 4.0f, 4.5f, 5.0f, 5.5f, 6.0f, 6.5f, 7.0f}));
}

TEST(MaxPool2D, SamePaddingNeverLetsAPaddedZeroWin) {
  // All inputs negative (-1..-9): a padded zero would win every border window if counted.
  EXPECT_THAT(RunPool(op::kMaxPool2D, PoolOptions(Padding::kSame, 3, 1), {1, 3, 3, 1},
                      Iota(9, -1.0f, -1.0f)),
              ElementsAreArray({-1.0f, -1.0f, -2.0f, -1.0f, -1.0f, -2.0f, -4.0f, -4.0f, -5.0f}));
}

TEST(FullyConnected, FlattensLeadingDimensionsIntoBatchRows) {
  // x [2, 3, 2] is 6 rows of 2 features; W [3, 2]; bias [3].
  const std::vector<float> input = Iota(12, -3.0f, 0.5f);
  const std::vector<float> weights = {1, -1, 0.5f, 2, -2, 0.25f};
  const std::vector<float> bias = {0.1f, 0.2f, 0.3f};
  std::vector<float> expected;
  for (int r = 0; r < 6; ++r) {
    for (int o = 0; o < 3; ++o) {
      expected.push_back(bias[o] + input[r * 2] * weights[o * 2] +
                         input[r * 2 + 1] * weights[o * 2 + 1]);
    }
  }
  for (bool keep_num_dims : {false, true}) {
    SCOPED_TRACE(keep_num_dims ? "keep_num_dims" : "flattened");
    ModelBuilder b;
    const int x = b.AddTensor("x", {2, 3, 2});
    const int w = b.AddConstant("w", {3, 2}, weights);
    const int bb = b.AddConstant("b", {3}, bias);
    const int y = b.AddTensor(
        "y", keep_num_dims ? std::vector<int32_t>{2, 3, 3} : std::vector<int32_t>{6, 3});
    OpOptions o;
    o.keep_num_dims = keep_num_dims;
    b.AddOperator(op::kFullyConnected, {x, w, bb}, {y}, o);
    b.SetInputs({x});
    b.SetOutputs({y});
    EXPECT_THAT(RunSingleOutput(b, {input}), Pointwise(FloatNear(1e-6f), expected));
  }
}

TEST(FullyConnected, WrongOutputShapeIsReportedWithTheOperatorIndex) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 4});
  const int w = b.AddConstant("w", {2, 4}, std::vector<float>(8, 1.0f));
  const int y = b.AddTensor("y", {1, 3});
  b.AddOperator(op::kFullyConnected, {x, w, -1}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const Status status = TryRun(b, {{1, 2, 3, 4}});
  ASSERT_FALSE(status.ok());
  EXPECT_STREQ(status.message(),
               "operator 0 (FULLY_CONNECTED): output tensor 2 'y' has shape [1, 3], expected "
               "[1, 2] ([batch, weights rows])");
}

TEST(Conv2D, StridesOutsideTheSupportedRangeAreAPrepareError) {
  for (int32_t stride : {0, -1, 1 << 30}) {
    ModelBuilder b;
    const int x = b.AddTensor("x", {1, 4, 4, 1});
    const int w = b.AddConstant("w", {1, 2, 2, 1}, {1, 1, 1, 1});
    const int y = b.AddTensor("y", {1, 1, 1, 1});
    OpOptions o;
    o.stride_h = stride;
    o.stride_w = 1;
    b.AddOperator(op::kConv2D, {x, w, -1}, {y}, o);
    b.SetInputs({x});
    b.SetOutputs({y});
    const Status status = TryRun(b, {Iota(16)});
    ASSERT_FALSE(status.ok()) << stride;
    EXPECT_THAT(status.message(), ::testing::HasSubstr("operator 0 (CONV_2D): strides must be in"));
  }
}

TEST(Softmax, BetaSharpensEveryRowIndependently) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {2, 3});
  const int y = b.AddTensor("y", {2, 3});
  OpOptions o;
  o.beta = 2.0f;
  b.AddOperator(op::kSoftmax, {x}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  // Row 0: exp(2 * [1, 2, 3]) normalised; row 1 is constant, so uniform whatever beta is.
  EXPECT_THAT(
      RunSingleOutput(b, {{1, 2, 3, 5, 5, 5}}),
      Pointwise(FloatNear(1e-6f), std::vector<float>{0.0158762400f, 0.1173104278f, 0.8668133322f,
                                                     1.0f / 3, 1.0f / 3, 1.0f / 3}));
}

struct ActivationCase {
  Activation activation;
  std::vector<float> expected;  // for inputs {-8, -0.5, 0.25, 3, 7}
};

class FusedActivation : public ::testing::TestWithParam<ActivationCase> {};

TEST_P(FusedActivation, ClampsOrSquashesTheAddResult) {
  ModelBuilder b;
  const int a = b.AddTensor("a", {5});
  const int zero = b.AddConstant("zero", {1}, {0.0f});
  const int y = b.AddTensor("y", {5});
  OpOptions o;
  o.activation = GetParam().activation;
  b.AddOperator(op::kAdd, {a, zero}, {y}, o);
  b.SetInputs({a});
  b.SetOutputs({y});
  EXPECT_THAT(RunSingleOutput(b, {{-8, -0.5f, 0.25f, 3, 7}}),
              Pointwise(FloatNear(1e-6f), GetParam().expected));
}

INSTANTIATE_TEST_SUITE_P(
    AllSupported, FusedActivation,
    ::testing::Values(ActivationCase{Activation::kNone, {-8, -0.5f, 0.25f, 3, 7}},
                      ActivationCase{Activation::kRelu, {0, 0, 0.25f, 3, 7}},
                      ActivationCase{Activation::kReluN1To1, {-1, -0.5f, 0.25f, 1, 1}},
                      ActivationCase{Activation::kRelu6, {0, 0, 0.25f, 3, 6}},
                      ActivationCase{Activation::kTanh,
                                     {std::tanh(-8.0f), std::tanh(-0.5f), std::tanh(0.25f),
                                      std::tanh(3.0f), std::tanh(7.0f)}}),
    [](const ::testing::TestParamInfo<ActivationCase>& param) {
      return std::string(ActivationName(param.param.activation));
    });

TEST(FusedActivation, AppliesAfterConvolutionPoolingAndConcatenation) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 2, 2, 1});
  const int w = b.AddConstant("w", {1, 1, 1, 1}, {3.0f});
  const int conv = b.AddTensor("conv", {1, 2, 2, 1});
  OpOptions relu6;
  relu6.padding = Padding::kValid;
  relu6.stride_w = relu6.stride_h = 1;
  relu6.activation = Activation::kRelu6;
  b.AddOperator(op::kConv2D, {x, w, -1}, {conv}, relu6);  // 3x clamped to [0, 6]
  const int pool = b.AddTensor("pool", {1, 1, 1, 1});
  OpOptions pool_options = PoolOptions(Padding::kValid, 2, 2);
  pool_options.activation = Activation::kReluN1To1;
  b.AddOperator(op::kMaxPool2D, {conv}, {pool}, pool_options);  // max 6, clamped to 1
  const int joined = b.AddTensor("joined", {1, 2, 2, 2});
  OpOptions concat;
  concat.axis = -1;
  concat.activation = Activation::kRelu;
  const int neg = b.AddConstant("neg", {1, 2, 2, 1}, {-1, 2, -3, 4});
  b.AddOperator(op::kConcatenation, {conv, neg}, {joined}, concat);
  b.SetInputs({x});
  b.SetOutputs({joined, pool});
  testing::KernelHarness h;
  ASSERT_TRUE(h.Load(b).ok());
  h.Set(x, {-1, 1, 2.5f, 4});
  ASSERT_TRUE(h.Forward().ok());
  EXPECT_THAT(h.Values(conv), ElementsAreArray({0.0f, 3.0f, 6.0f, 6.0f}));
  EXPECT_THAT(h.Values(pool), ElementsAreArray({1.0f}));
  EXPECT_THAT(h.Values(joined), ElementsAreArray({0.0f, 0.0f, 3.0f, 2.0f, 6.0f, 0.0f, 6.0f, 4.0f}));
}

}  // namespace
}  // namespace trainscope
