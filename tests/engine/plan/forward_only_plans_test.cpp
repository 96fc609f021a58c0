// SPDX-License-Identifier: Apache-2.0
//
// Forward-only operators in the frozen part of a model keep nothing for the backward pass: the
// training forward plan frees their outputs after the last consumer, as the inference plan does,
// and an operator with several outputs (SPLIT) allocates them all at its own step.
//
//   0 SPLIT    [1 axis] 0 -> 2, 3      1 ABS   2 -> 4
//   2 MAXIMUM  4, 3 -> 5               3 FC    5 [6 w] -> 7 (graph output; the trained layer)
#include <gtest/gtest.h>

#include <vector>

#include "engine/model/model.h"
#include "engine/model/model_builder.h"
#include "engine/plan/plans.h"

namespace trainscope {
namespace {

using Lists = std::vector<std::vector<int32_t>>;

Subgraph FrozenFeaturesThenDense() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 4});
  const int axis = b.AddConstantInt32("axis", {}, {1});
  const int a = b.AddTensor("a", {1, 2});
  const int c = b.AddTensor("b", {1, 2});
  OpOptions split;
  split.num_splits = 2;
  b.AddOperator(op::kSplit, {axis, x}, {a, c}, split);
  const int magnitude = b.AddTensor("abs", {1, 2});
  b.AddOperator(op::kAbs, {a}, {magnitude});
  const int larger = b.AddTensor("max", {1, 2});
  b.AddOperator(op::kMaximum, {magnitude, c}, {larger});
  const int w = b.AddConstant("w", {2, 2}, {1, 0, 0, 1});
  const int y = b.AddTensor("y", {1, 2});
  b.AddOperator(op::kFullyConnected, {larger, w, -1}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  Model model;
  EXPECT_TRUE(Model::FromBytes(bytes, &model).ok());
  return model.graph().main();
}

TEST(ForwardOnlyPlans, TheFrozenPartKeepsNothingAndTheTrainedLayerItsInput) {
  const Subgraph graph = FrozenFeaturesThenDense();
  ASSERT_EQ(graph.operators.size(), 4u);
  TrainabilityConfig config;
  config.num_train_layers = 1;
  const BackwardSelection selection = SelectBackwardRange(graph, config);
  ForwardPlan plan;
  ASSERT_TRUE(BuildTrainingForwardPlan(graph, selection, {}, &plan).ok());
  EXPECT_EQ(plan.alloc, (Lists{{2, 3}, {4}, {5}, {7}}));
  // 5 is the trained FULLY_CONNECTED's input, saved for its weight gradient; 7 goes to slot n.
  EXPECT_EQ(plan.free, (Lists{{0}, {2}, {3, 4}, {}, {7}}));
  for (uint32_t k = 0; k < 3; ++k) {
    EXPECT_FALSE(SavesInputsForBackward(graph, selection, k)) << k;
    EXPECT_FALSE(SavesOutputsForBackward(graph, selection, k)) << k;
  }
}

TEST(ForwardOnlyPlans, InferenceFreesEveryOutputAfterItsLastConsumer) {
  const Subgraph graph = FrozenFeaturesThenDense();
  ForwardPlan plan;
  ASSERT_TRUE(BuildInferencePlan(graph, {}, &plan).ok());
  EXPECT_EQ(plan.alloc, (Lists{{2, 3}, {4}, {5}, {7}}));
  EXPECT_EQ(plan.free, (Lists{{0}, {2}, {3, 4}, {5}, {7}}));
}

}  // namespace
}  // namespace trainscope
