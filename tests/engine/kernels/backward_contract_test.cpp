// SPDX-License-Identifier: Apache-2.0
//
// Hand-computed backward cases and the gradient contract an executor relies on: accumulation,
// max-pool tie breaking and overlapping windows, the transposed convolution summed over output
// channels, aliasing of copy-op gradients, and error Status values for missing buffers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "engine/kernels/kernel.h"
#include "engine/model/model_builder.h"
#include "tests/engine/kernels/kernel_harness.h"

namespace trainscope {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::KernelHarness;

// Runs the backward pass of operator `k` with the given gradient buffers (by tensor index).
Status Backward(KernelHarness& h, uint32_t k, const std::map<int, std::vector<float>*>& buffers,
                bool trainable = true, TrainRank rank = TrainRank::kAll) {
  return h.Backward(k, buffers, {trainable, rank});
}

struct PoolModel {
  ModelBuilder builder;
  int x = 0;
  int y = 0;
};

PoolModel MaxPool(std::vector<int32_t> in, std::vector<int32_t> out, int fh, int fw, int stride) {
  PoolModel m;
  m.x = m.builder.AddTensor("x", std::move(in));
  m.y = m.builder.AddTensor("y", std::move(out));
  OpOptions o;
  o.padding = Padding::kValid;
  o.filter_h = fh;
  o.filter_w = fw;
  o.stride_h = o.stride_w = stride;
  m.builder.AddOperator(op::kMaxPool2D, {m.x}, {m.y}, o);
  m.builder.SetInputs({m.x});
  m.builder.SetOutputs({m.y});
  return m;
}

TEST(MaxPool2DBackward, TiesGoToTheFirstMaximumInWindowOrder) {
  PoolModel m = MaxPool({1, 2, 2, 1}, {1, 1, 1, 1}, 2, 2, 2);
  KernelHarness h;
  ASSERT_TRUE(h.Load(m.builder).ok());
  for (const auto& [input, expected] :
       std::vector<std::pair<std::vector<float>, std::vector<float>>>{
           {{1, 1, 1, 1}, {3, 0, 0, 0}},
           {{0, 2, 2, 1}, {0, 3, 0, 0}},
           {{0, 1, 2, 2}, {0, 0, 3, 0}}}) {
    h.Set(m.x, input);
    ASSERT_TRUE(h.Forward().ok());
    std::vector<float> dy = {3};
    std::vector<float> dx(4, 0.0f);
    ASSERT_TRUE(Backward(h, 0, {{m.x, &dx}, {m.y, &dy}}).ok());
    EXPECT_THAT(dx, ElementsAreArray(expected));
  }
}

TEST(MaxPool2DBackward, OverlappingWindowsAddTheirGradients) {
  // Windows [0, 5] and [5, 0] share the maximum 5: it receives 1 + 2.
  PoolModel m = MaxPool({1, 1, 3, 1}, {1, 1, 2, 1}, 1, 2, 1);
  KernelHarness h;
  ASSERT_TRUE(h.Load(m.builder).ok());
  h.Set(m.x, {0, 5, 0});
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy = {1, 2};
  std::vector<float> dx(3, 0.0f);
  ASSERT_TRUE(Backward(h, 0, {{m.x, &dx}, {m.y, &dy}}).ok());
  EXPECT_THAT(dx, ElementsAreArray({0.0f, 3.0f, 0.0f}));
}

TEST(Conv2DBackward, InputGradientIsTheTransposedConvolutionSummedOverOutputChannels) {
  // 2x2 input, two 2x2 filters, SAME stride 1 (one padding row/column after).
  // Filter 0 = [1 2; 3 4] alone gives dX = [1, 3, 4, 10] for dY = 1 everywhere; filter 1 =
  // [10 0; 0 0] adds 10 to every input position.
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 2, 2, 1});
  const int w = b.AddConstant("w", {2, 2, 2, 1}, {1, 2, 3, 4, 10, 0, 0, 0});
  const int y = b.AddTensor("y", {1, 2, 2, 2});
  OpOptions o;
  o.padding = Padding::kSame;
  o.stride_h = o.stride_w = 1;
  b.AddOperator(op::kConv2D, {x, w, -1}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  KernelHarness h;
  ASSERT_TRUE(h.Load(b).ok());
  h.Set(x, {0.5f, -1, 2, 0.25f});
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy(8, 1.0f);
  std::vector<float> dx(4, 0.0f);
  std::vector<float> dw(8, 0.0f);
  ASSERT_TRUE(Backward(h, 0, {{x, &dx}, {y, &dy}, {w, &dw}}).ok());
  EXPECT_THAT(dx, ElementsAreArray({11.0f, 13.0f, 14.0f, 20.0f}));
  // dW[o][ky][kx] = sum of the inputs each tap saw: tap (0,0) all four, (0,1) the right column,
  // (1,0) the bottom row, (1,1) only x[1][1].
  EXPECT_THAT(dw, ElementsAreArray({1.75f, -0.75f, 2.25f, 0.25f, 1.75f, -0.75f, 2.25f, 0.25f}));
}

struct FcModel {
  ModelBuilder builder;
  int x = 0, w = 0, b = 0, y = 0;
};

FcModel Fc() {
  FcModel m;
  m.x = m.builder.AddTensor("x", {1, 2});
  m.w = m.builder.AddConstant("w", {2, 2}, {1, 2, 3, 4});
  m.b = m.builder.AddConstant("b", {2}, {0, 0});
  m.y = m.builder.AddTensor("y", {1, 2});
  m.builder.AddOperator(op::kFullyConnected, {m.x, m.w, m.b}, {m.y});
  m.builder.SetInputs({m.x});
  m.builder.SetOutputs({m.y});
  return m;
}

TEST(FullyConnectedBackward, AccumulatesIntoEveryGradientBuffer) {
  FcModel m = Fc();
  KernelHarness h;
  ASSERT_TRUE(h.Load(m.builder).ok());
  h.Set(m.x, {5, 7});
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy = {1, -1};
  std::vector<float> dx(2, 0.0f), dw(4, 0.0f), db(2, 0.0f);
  for (int pass = 0; pass < 2; ++pass) {
    ASSERT_TRUE(Backward(h, 0, {{m.x, &dx}, {m.y, &dy}, {m.w, &dw}, {m.b, &db}}).ok());
  }
  EXPECT_THAT(dx, ElementsAreArray({2 * (1.0f - 3.0f), 2 * (2.0f - 4.0f)}));
  EXPECT_THAT(dw, ElementsAreArray({10.0f, 14.0f, -10.0f, -14.0f}));
  EXPECT_THAT(db, ElementsAreArray({2.0f, -2.0f}));
}

TEST(FullyConnectedBackward, LowerHalfFillsACompactBufferWithTheLastRows) {
  FcModel m = Fc();
  KernelHarness h;
  ASSERT_TRUE(h.Load(m.builder).ok());
  h.Set(m.x, {5, 7});
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy = {1, -1};
  std::vector<float> dw(2, 0.0f), db(2, 0.0f);
  ASSERT_TRUE(
      Backward(h, 0, {{m.y, &dy}, {m.w, &dw}, {m.b, &db}}, true, TrainRank::kLowerHalf).ok());
  EXPECT_THAT(dw, ElementsAreArray({-5.0f, -7.0f}));  // row 1 of the full gradient
  EXPECT_THAT(db, ElementsAreArray({1.0f, -1.0f}));
}

TEST(BackwardErrors, MissingOutputGradientIsAStatusNamingTheTensor) {
  FcModel m = Fc();
  KernelHarness h;
  ASSERT_TRUE(h.Load(m.builder).ok());
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dx(2, 0.0f);
  const Status status = Backward(h, 0, {{m.x, &dx}}, false);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(
      status.message(),
      HasSubstr("operator 0 (FULLY_CONNECTED): no gradient buffer for output tensor 3 'y'"));
}

TEST(BackwardErrors, TrainableWeightsWithoutABufferAreAStatus) {
  FcModel m = Fc();
  KernelHarness h;
  ASSERT_TRUE(h.Load(m.builder).ok());
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy(2, 1.0f), db(2, 0.0f);
  const Status status = Backward(h, 0, {{m.y, &dy}, {m.b, &db}}, true, TrainRank::kAll);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("rank ALL but tensor 1 'w' has no gradient buffer"));
  // With ONLY_BIAS the same buffers are enough.
  EXPECT_TRUE(Backward(h, 0, {{m.y, &dy}, {m.b, &db}}, true, TrainRank::kOnlyBias).ok());
  EXPECT_THAT(db, ElementsAreArray({1.0f, 1.0f}));
}

TEST(ReshapeBackward, SharedInputAndOutputGradientBufferIsLeftAsItIs) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {4});
  const int y = b.AddTensor("y", {2, 2});
  b.AddOperator(op::kReshape, {x}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  KernelHarness h;
  ASSERT_TRUE(h.Load(b).ok());
  std::vector<float> shared = {1, 2, 3, 4};
  ASSERT_TRUE(Backward(h, 0, {{x, &shared}, {y, &shared}}).ok());
  EXPECT_THAT(shared, ElementsAreArray({1.0f, 2.0f, 3.0f, 4.0f}));
}

TEST(GatherBackward, RepeatedIndicesAddUp) {
  ModelBuilder b;
  const int params = b.AddTensor("params", {3});
  const int idx = b.AddConstantInt32("indices", {4}, {2, 0, 2, 2});
  const int y = b.AddTensor("y", {4});
  b.AddOperator(op::kGather, {params, idx}, {y});
  b.SetInputs({params});
  b.SetOutputs({y});
  KernelHarness h;
  ASSERT_TRUE(h.Load(b).ok());
  std::vector<float> dy = {1, 10, 100, 1000};
  std::vector<float> dx(3, 0.0f);
  ASSERT_TRUE(Backward(h, 0, {{params, &dx}, {y, &dy}}).ok());
  EXPECT_THAT(dx, ElementsAreArray({10.0f, 0.0f, 1101.0f}));
}

}  // namespace
}  // namespace trainscope
