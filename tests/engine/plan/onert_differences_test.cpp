// SPDX-License-Identifier: Apache-2.0
//
// FindOnertDifferences names, per operator, the §17 behaviours where a board would differ.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/model/model.h"
#include "engine/model/model_builder.h"
#include "engine/plan/onert_differences.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

std::vector<DifferenceKind> KindsOf(const std::vector<OnertDifference>& all, uint32_t op) {
  std::vector<DifferenceKind> kinds;
  for (const OnertDifference& d : all) {
    if (d.op_index == op) kinds.push_back(d.kind);
  }
  return kinds;
}

bool Has(const std::vector<DifferenceKind>& kinds, DifferenceKind kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

// x -> CONV(VALID, 1) -> CONV(SAME, stride 2) -> MAX_POOL(3x3, stride 1) -> MEAN -> FC(TANH)
//   -> SOFTMAX(beta 0.5)
Model Risky() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 8, 8, 1});
  OpOptions valid;
  valid.padding = Padding::kValid;
  valid.stride_w = valid.stride_h = 1;
  const int c0 = b.AddTensor("c0", {1, 6, 6, 2});
  b.AddOperator(op::kConv2D,
                {x, b.AddConstant("w0", {2, 3, 3, 1}, std::vector<float>(18, 0.1f)), -1}, {c0},
                valid);
  OpOptions same;
  same.padding = Padding::kSame;
  same.stride_w = same.stride_h = 2;
  const int c1 = b.AddTensor("c1", {1, 3, 3, 3});
  b.AddOperator(op::kConv2D,
                {c0, b.AddConstant("w1", {3, 3, 3, 2}, std::vector<float>(54, 0.1f)), -1}, {c1},
                same);
  OpOptions pool = valid;
  pool.filter_w = pool.filter_h = 2;
  const int p = b.AddTensor("p", {1, 2, 2, 3});
  b.AddOperator(op::kMaxPool2D, {c1}, {p}, pool);
  const int axes = b.AddConstantInt32("axes", {2}, {1, 2});
  const int m = b.AddTensor("m", {1, 3});
  b.AddOperator(op::kMean, {p, axes}, {m});
  OpOptions tanh;
  tanh.activation = Activation::kTanh;
  const int f = b.AddTensor("f", {1, 2});
  b.AddOperator(op::kFullyConnected,
                {m, b.AddConstant("fw", {2, 3}, std::vector<float>(6, 0.1f)), -1}, {f}, tanh);
  OpOptions softmax;
  softmax.beta = 0.5f;
  const int y = b.AddTensor("y", {1, 2});
  b.AddOperator(op::kSoftmax, {f}, {y}, softmax);
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  Model model;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  EXPECT_TRUE(Model::FromBytes(bytes, &model).ok());
  return model;
}

TEST(OnertDifferences, EveryRiskyOperatorIsNamed) {
  const Model model = Risky();
  const Subgraph& sg = model.graph().main();
  const auto all = FindOnertDifferences(sg, SelectBackwardRange(sg, {}), OptimizerKind::kAdam);
  EXPECT_TRUE(KindsOf(all, 0).empty()) << "op 0: VALID, stride 1, last layer";
  const auto conv = KindsOf(all, 1);
  EXPECT_TRUE(Has(conv, DifferenceKind::kConvPadding));
  EXPECT_TRUE(Has(conv, DifferenceKind::kConvStrideDilation));
  EXPECT_TRUE(Has(conv, DifferenceKind::kConvInputGradient));
  EXPECT_TRUE(Has(KindsOf(all, 2), DifferenceKind::kOverlappingMaxPool));
  EXPECT_TRUE(Has(KindsOf(all, 3), DifferenceKind::kNoOnertKernel));
  EXPECT_TRUE(Has(KindsOf(all, 4), DifferenceKind::kUnsupportedActivation));
  EXPECT_TRUE(Has(KindsOf(all, 5), DifferenceKind::kSoftmaxBeta));
  for (const OnertDifference& d : all) EXPECT_FALSE(d.text.empty());
}

TEST(OnertDifferences, OpsOutsideTheBackwardRangeAreNotMentioned) {
  const Model model = Risky();
  const Subgraph& sg = model.graph().main();
  TrainabilityConfig last_two;
  last_two.num_train_layers = 2;
  const auto all = FindOnertDifferences(sg, SelectBackwardRange(sg, last_two), OptimizerKind::kSgd);
  for (const OnertDifference& d : all) EXPECT_GE(d.op_index, 4u) << d.text;
}

TEST(OnertDifferences, LowerHalfNamesTheConvGradientAndTheOptimizerUpdate) {
  const Model model = Risky();
  const Subgraph& sg = model.graph().main();
  TrainabilityConfig config;
  config.op_ranks = {{1, TrainRank::kLowerHalf}};
  const auto kinds =
      KindsOf(FindOnertDifferences(sg, SelectBackwardRange(sg, config), OptimizerKind::kSgd), 1);
  EXPECT_TRUE(Has(kinds, DifferenceKind::kLowerHalfConv));
  EXPECT_TRUE(Has(kinds, DifferenceKind::kLowerHalfUpdate));
}

// Op 0: GRU over x [4, 1, 3] with 2 units (biases and a constant initial state); op 1:
// FULLY_CONNECTED 2 -> 2.
Model GruThenDense() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {4, 1, 3});
  const int wx = b.AddConstant("gru/wx", {6, 3}, std::vector<float>(18, 0.1f));
  const int bx = b.AddConstant("gru/bx", {6}, std::vector<float>(6, 0.0f));
  const int wh = b.AddConstant("gru/wh", {6, 2}, std::vector<float>(12, 0.1f));
  const int bh = b.AddConstant("gru/bh", {6}, std::vector<float>(6, 0.0f));
  const int h0 = b.AddConstant("gru/h0", {1, 2}, std::vector<float>(2, 0.0f));
  const int h = b.AddTensor("h", {1, 2});
  b.AddOperator(op::kGru, {x, wx, bx, wh, bh, h0}, {h});
  const int w = b.AddConstant("fc/w", {2, 2}, {0.5f, -0.5f, 0.25f, 0.75f});
  const int y = b.AddTensor("y", {1, 2});
  b.AddOperator(op::kFullyConnected, {h, w, -1}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  Model model;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  EXPECT_TRUE(Model::FromBytes(bytes, &model).ok());
  return model;
}

TEST(OnertDifferences, GruNamesItsBiasesStateAndInputGradient) {
  const Model model = GruThenDense();
  const Subgraph& sg = model.graph().main();
  const auto all = FindOnertDifferences(sg, SelectBackwardRange(sg, {}), OptimizerKind::kSgd);
  const auto gru = KindsOf(all, 0);
  EXPECT_TRUE(Has(gru, DifferenceKind::kGruBiasGradient));
  EXPECT_TRUE(Has(gru, DifferenceKind::kGruStateGradient));
  EXPECT_FALSE(Has(gru, DifferenceKind::kGruInputGradient)) << "the GRU is the last layer";
  TrainabilityConfig only_bias;
  only_bias.op_ranks = {{0, TrainRank::kOnlyBias}};
  const auto biased =
      KindsOf(FindOnertDifferences(sg, SelectBackwardRange(sg, only_bias), OptimizerKind::kSgd), 0);
  EXPECT_TRUE(Has(biased, DifferenceKind::kGruBiasGradient));
  EXPECT_FALSE(Has(biased, DifferenceKind::kGruStateGradient));
}

TEST(OnertDifferences, SimpleMnistTrainsTheSameOnTheBoard) {
  TS_REQUIRE_FIXTURES();
  Model model;
  ASSERT_TRUE(
      ReadModelFile(testing::ModelsDir() + "/onert-micro/simple_mnist/model.circle", &model).ok());
  const Subgraph& sg = model.graph().main();
  const auto all = FindOnertDifferences(sg, SelectBackwardRange(sg, {}), OptimizerKind::kAdam);
  for (const OnertDifference& d : all) ADD_FAILURE() << "op " << d.op_index << ": " << d.text;
}

}  // namespace
}  // namespace trainscope
