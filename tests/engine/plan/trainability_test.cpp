// SPDX-License-Identifier: Apache-2.0
//
// SelectBackwardRange follows onert-micro's runBackward selection (research §6.1) and
// ListParameterGradients the plan's gradient rules (§9.4, §6.2 half ranks). Expected values are
// derived by hand from those rules in each test.
#include <gtest/gtest.h>

#include "engine/model/model.h"
#include "engine/model/model_builder.h"
#include "engine/plan/trainability.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

// CONV_2D, MAX_POOL_2D, RESHAPE, FULLY_CONNECTED, FULLY_CONNECTED, SOFTMAX (6 ops).
Subgraph SimpleMnist() {
  Model model;
  const Status status =
      ReadModelFile(testing::ModelsDir() + "/onert-micro/simple_mnist/model.circle", &model);
  EXPECT_TRUE(status.ok()) << status.message();
  return status.ok() ? model.graph().main() : Subgraph();
}

// x[1,8] -> FULLY_CONNECTED(w[5,8], b[5]) -> y[1,5] -> SOFTMAX -> z[1,5]. d0 = 5 is odd.
Subgraph OddRowsFc() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 8});
  const int w = b.AddConstant("w", {5, 8}, std::vector<float>(40, 0.5f));
  const int bias = b.AddConstant("b", {5}, std::vector<float>(5, 0.0f));
  const int y = b.AddTensor("y", {1, 5});
  const int z = b.AddTensor("z", {1, 5});
  b.AddOperator(op::kFullyConnected, {x, w, bias}, {y});
  b.AddOperator(op::kSoftmax, {y}, {z});
  b.SetInputs({x});
  b.SetOutputs({z});
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  Model model;
  EXPECT_TRUE(Model::FromBytes(bytes, &model).ok());
  return model.graph().main();
}

TEST(SelectBackwardRange, ZeroTrainLayersSelectsEveryOperator) {
  TS_REQUIRE_FIXTURES();
  const Subgraph mnist = SimpleMnist();
  const BackwardSelection s = SelectBackwardRange(mnist, TrainabilityConfig{});
  EXPECT_EQ(s.first_op, 0u);
  EXPECT_EQ(s.num_train_layers, 6u);
  EXPECT_FALSE(s.uses_op_ranks);
  ASSERT_EQ(s.ops.size(), 6u);
  for (uint32_t k = 0; k < 6; ++k) {
    SCOPED_TRACE(k);
    EXPECT_TRUE(s.ops[k].in_backward_range);
    EXPECT_TRUE(s.ops[k].trainable);  // no config: every op in range is a trainable layer
    EXPECT_EQ(s.ops[k].rank, TrainRank::kAll);
    EXPECT_EQ(s.ops[k].backward_step, 5 - k);
    EXPECT_EQ(s.ops[k].is_last_layer, k == 0);
  }
  // Only CONV_2D (0) and the two FULLY_CONNECTED (3, 4) get parameter gradients.
  const bool expected_parameters[6] = {true, false, false, true, true, false};
  for (uint32_t k = 0; k < 6; ++k)
    EXPECT_EQ(s.ops[k].has_parameter_gradients, expected_parameters[k]);
}

TEST(SelectBackwardRange, TrainLayersNSelectsTheLastNOperators) {
  TS_REQUIRE_FIXTURES();
  TrainabilityConfig config;
  config.num_train_layers = 2;
  const BackwardSelection s = SelectBackwardRange(SimpleMnist(), config);
  EXPECT_EQ(s.first_op, 4u);
  EXPECT_EQ(s.num_train_layers, 2u);
  for (uint32_t k = 0; k < 4; ++k) {
    EXPECT_FALSE(s.ops[k].in_backward_range);
    EXPECT_FALSE(s.ops[k].trainable);
    EXPECT_FALSE(s.ops[k].has_parameter_gradients);
    EXPECT_EQ(s.ops[k].backward_step, kNoBackwardStep);
  }
  EXPECT_EQ(s.ops[5].backward_step, 0u);
  EXPECT_FALSE(s.ops[5].is_last_layer);
  EXPECT_EQ(s.ops[4].backward_step, 1u);
  EXPECT_TRUE(s.ops[4].is_last_layer);
  EXPECT_TRUE(s.ops[4].has_parameter_gradients);
}

TEST(SelectBackwardRange, TrainLayersAboveOperatorCountSelectsAll) {
  TS_REQUIRE_FIXTURES();
  TrainabilityConfig config;
  config.num_train_layers = 100;
  const BackwardSelection s = SelectBackwardRange(SimpleMnist(), config);
  EXPECT_EQ(s.first_op, 0u);
  EXPECT_EQ(s.num_train_layers, 6u);
  EXPECT_TRUE(s.ops[0].is_last_layer);
}

TEST(SelectBackwardRange, OpRanksOverrideTrainLayers) {
  TS_REQUIRE_FIXTURES();
  TrainabilityConfig config;
  config.num_train_layers = 1;  // ignored: the lowest listed op (2) starts the range
  config.op_ranks = {{4, TrainRank::kOnlyBias}, {2, TrainRank::kAll}};
  const BackwardSelection s = SelectBackwardRange(SimpleMnist(), config);
  EXPECT_TRUE(s.uses_op_ranks);
  EXPECT_EQ(s.first_op, 2u);
  EXPECT_EQ(s.num_train_layers, 4u);
  EXPECT_TRUE(s.ops[2].is_last_layer);
  EXPECT_TRUE(s.ops[2].trainable);
  EXPECT_TRUE(s.ops[3].in_backward_range);
  EXPECT_FALSE(s.ops[3].trainable);  // FULLY_CONNECTED, but not listed
  EXPECT_FALSE(s.ops[3].has_parameter_gradients);
  EXPECT_TRUE(s.ops[4].trainable);
  EXPECT_EQ(s.ops[4].rank, TrainRank::kOnlyBias);
  EXPECT_FALSE(s.ops[5].trainable);
  // RESHAPE is listed, so it counts as having parameter gradients (its constant shape tensor).
  EXPECT_TRUE(s.ops[2].has_parameter_gradients);
}

TEST(SelectBackwardRange, SingleListedLastOperatorIsBothFirstAndLastLayer) {
  TS_REQUIRE_FIXTURES();
  TrainabilityConfig config;
  config.op_ranks = {{5, TrainRank::kAll}};
  const BackwardSelection s = SelectBackwardRange(SimpleMnist(), config);
  EXPECT_EQ(s.first_op, 5u);
  EXPECT_EQ(s.num_train_layers, 1u);
  EXPECT_TRUE(s.ops[5].is_last_layer);
  EXPECT_EQ(s.ops[5].backward_step, 0u);
}

TEST(SelectBackwardRange, IgnoresOutOfRangeEntriesThatValidationRejects) {
  const Subgraph graph = OddRowsFc();
  TrainabilityConfig config;
  config.op_ranks = {{1, TrainRank::kAll}, {9, TrainRank::kAll}};
  const BackwardSelection s = SelectBackwardRange(graph, config);
  EXPECT_EQ(s.first_op, 1u);
  EXPECT_EQ(s.num_train_layers, 1u);
  const Status status = ValidateTrainabilityConfig(graph, config);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("operator 9"), std::string::npos);

  config.op_ranks = {{0, static_cast<TrainRank>(7)}};
  const Status bad_rank = ValidateTrainabilityConfig(graph, config);
  EXPECT_EQ(bad_rank.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(bad_rank.message()).find("rank 7"), std::string::npos);
}

TEST(ListParameterGradients, AllLayersListsFloatConstantsOfConvAndFullyConnected) {
  TS_REQUIRE_FIXTURES();
  const Subgraph mnist = SimpleMnist();
  const auto parameters =
      ListParameterGradients(mnist, SelectBackwardRange(mnist, TrainabilityConfig{}));
  // conv weights 4 [4,2,2,1] = 16 floats, conv bias 5 [4], fc1 weights 2 [4,100], fc2 weights 1
  // [2,4]; the FCs have no bias; RESHAPE's INT32 shape (3) is not a parameter.
  ASSERT_EQ(parameters.size(), 4u);
  const int32_t tensors[4] = {4, 5, 2, 1};
  const uint32_t ops[4] = {0, 0, 3, 4};
  const uint32_t slots[4] = {1, 2, 1, 1};
  const size_t bytes[4] = {64, 16, 1600, 32};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(parameters[i].tensor, tensors[i]);
    EXPECT_EQ(parameters[i].op_index, ops[i]);
    EXPECT_EQ(parameters[i].input_slot, slots[i]);
    EXPECT_EQ(parameters[i].gradient_bytes(), bytes[i]);
    EXPECT_EQ(parameters[i].trained_bytes(), bytes[i]);
    EXPECT_FALSE(parameters[i].half_rank);
  }
}

TEST(ListParameterGradients, HalfRanksSplitWeightRowsAndKeepTheBiasWhole) {
  const Subgraph graph = OddRowsFc();
  TrainabilityConfig config;
  config.op_ranks = {{0, TrainRank::kUpperHalf}};
  auto parameters = ListParameterGradients(graph, SelectBackwardRange(graph, config));
  ASSERT_EQ(parameters.size(), 2u);
  // Weights [5, 8]: a row is 8 floats = 32 bytes; d0/2 = 2.
  EXPECT_TRUE(parameters[0].half_rank);
  EXPECT_EQ(parameters[0].rows, 5u);
  EXPECT_EQ(parameters[0].row_bytes, 32u);
  EXPECT_EQ(parameters[0].row_begin, 0u);
  EXPECT_EQ(parameters[0].row_end, 2u);
  EXPECT_EQ(parameters[0].gradient_bytes(), 64u);
  EXPECT_EQ(parameters[0].trained_bytes(), 64u);
  EXPECT_FALSE(parameters[1].half_rank);  // bias [5] = 20 bytes, always whole
  EXPECT_EQ(parameters[1].gradient_bytes(), 20u);

  config.op_ranks = {{0, TrainRank::kLowerHalf}};
  parameters = ListParameterGradients(graph, SelectBackwardRange(graph, config));
  ASSERT_EQ(parameters.size(), 2u);
  // Rows [2, 5) train: 3 rows = 96 bytes, but onert-micro allocates d0/2 = 2 rows = 64 bytes.
  EXPECT_EQ(parameters[0].row_begin, 2u);
  EXPECT_EQ(parameters[0].row_end, 5u);
  EXPECT_EQ(parameters[0].allocated_rows, 2u);
  EXPECT_EQ(parameters[0].trained_bytes(), 96u);
  EXPECT_EQ(parameters[0].gradient_bytes(), 64u);
}

TEST(ListParameterGradients, OnlyBiasListsJustTheBias) {
  const Subgraph graph = OddRowsFc();
  TrainabilityConfig config;
  config.op_ranks = {{0, TrainRank::kOnlyBias}};
  const auto parameters = ListParameterGradients(graph, SelectBackwardRange(graph, config));
  ASSERT_EQ(parameters.size(), 1u);
  EXPECT_EQ(parameters[0].input_slot, 2u);
  EXPECT_EQ(parameters[0].tensor, graph.operators[0].inputs[2]);
}

TEST(GradientBufferBytes, HalvesOnlyTheWeightsOfListedHalfRankOps) {
  const Subgraph graph = OddRowsFc();
  const int32_t weights = graph.operators[0].inputs[1];
  const int32_t bias = graph.operators[0].inputs[2];
  TrainabilityConfig all;
  EXPECT_EQ(GradientBufferBytes(graph, SelectBackwardRange(graph, all), weights), 160u);
  TrainabilityConfig lower;
  lower.op_ranks = {{0, TrainRank::kLowerHalf}};
  const BackwardSelection s = SelectBackwardRange(graph, lower);
  EXPECT_EQ(GradientBufferBytes(graph, s, weights), 64u);
  EXPECT_EQ(GradientBufferBytes(graph, s, bias), 20u);
  EXPECT_EQ(GradientBufferBytes(graph, s, 99), 0u);
  EXPECT_EQ(GradientBufferBytes(graph, s, -1), 0u);
}

}  // namespace
}  // namespace trainscope
