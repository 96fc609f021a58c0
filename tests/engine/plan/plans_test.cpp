// SPDX-License-Identifier: Apache-2.0
//
// onert-micro's plans for simple_mnist, compared with lists derived by hand from the rules of
// research §10.2 (forward, training) and §10.3 (backward). Lists are sorted by tensor index.
//
// simple_mnist (op: inputs -> output; constants in brackets):
//   0 CONV_2D      0 [4 w, 5 b]  -> 6      tensor bytes: 0 = 484 (1x11x11x1), 6 = 1600 (1x10x10x4)
//   1 MAX_POOL_2D  6             -> 7      7 = 400 (1x5x5x4)
//   2 RESHAPE      7 [3 shape]   -> 8      8 = 400 (1x100)
//   3 FC           8 [2 w]       -> 9      9 = 16 (1x4), weights 2 = 1600 (4x100)
//   4 FC           9 [1 w]       -> 10     10 = 8 (1x2), weights 1 = 32 (2x4)
//   5 SOFTMAX      10            -> 11     11 = 8 (1x2), graph output; graph input 0
// Neither FC has a bias; both FCs and the CONV_2D carry their options tables.
#include <gtest/gtest.h>

#include "engine/model/model.h"
#include "engine/plan/plans.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

using Lists = std::vector<std::vector<int32_t>>;

Subgraph SimpleMnist() {
  Model model;
  const Status status =
      ReadModelFile(testing::ModelsDir() + "/onert-micro/simple_mnist/model.circle", &model);
  EXPECT_TRUE(status.ok()) << status.message();
  return status.ok() ? model.graph().main() : Subgraph();
}

struct Plans {
  ForwardPlan forward;
  BackwardPlan backward;
};

Plans BuildBoth(const Subgraph& graph, const TrainabilityConfig& config) {
  Plans plans;
  const BackwardSelection selection = SelectBackwardRange(graph, config);
  Status status = BuildTrainingForwardPlan(graph, selection, {}, &plans.forward);
  EXPECT_TRUE(status.ok()) << status.message();
  status = BuildBackwardPlan(graph, selection, &plans.backward);
  EXPECT_TRUE(status.ok()) << status.message();
  return plans;
}

TEST(InferencePlan, FreesEveryActivationAfterItsLastConsumer) {
  TS_REQUIRE_FIXTURES();
  ForwardPlan plan;
  ASSERT_TRUE(BuildInferencePlan(SimpleMnist(), {}, &plan).ok());
  // Each op allocates its output; each input dies after its only consumer (input 0 after op 0);
  // the graph output 11 goes to the extra slot 6.
  EXPECT_EQ(plan.alloc, (Lists{{6}, {7}, {8}, {9}, {10}, {11}}));
  EXPECT_EQ(plan.free, (Lists{{0}, {6}, {7}, {8}, {9}, {10}, {11}}));
}

TEST(InferencePlan, KeepInputLeavesGraphInputsToTheCaller) {
  TS_REQUIRE_FIXTURES();
  ForwardPlan plan;
  PlanOptions options;
  options.keep_input = true;
  ASSERT_TRUE(BuildInferencePlan(SimpleMnist(), options, &plan).ok());
  EXPECT_EQ(plan.free, (Lists{{}, {6}, {7}, {8}, {9}, {10}, {11}}));
}

TEST(TrainingPlans, AllLayers) {
  TS_REQUIRE_FIXTURES();
  const Plans plans = BuildBoth(SimpleMnist(), TrainabilityConfig{});
  // Forward: no config, so every op in range (all of them) saves its inputs: 0, 6, 7, 8, 9, 10
  // never get a free slot. Outputs of CONV/FC are saved too; the graph output 11 is freed in
  // the unexecuted slot 6.
  EXPECT_EQ(plans.forward.alloc, (Lists{{6}, {7}, {8}, {9}, {10}, {11}}));
  EXPECT_EQ(plans.forward.free, (Lists{{}, {}, {}, {}, {}, {}, {11}}));
  // Backward, step i = op 5-i:
  //  i0 SOFTMAX: grad of input 10; frees output 11 (its loss gradient, its activation)
  //  i1 FC 4:    grads of input 9 and weights 1; frees 10
  //  i2 FC 3:    grads of input 8 and weights 2; frees 9
  //  i3 RESHAPE: grad of input 7 (shape 3 is a constant of a non-trainable op); frees 8
  //  i4 MAXPOOL: grad of input 6; frees 7
  //  i5 CONV:    last layer: weights 4, bias 5; input 0 gets no gradient but is freed; frees 6
  EXPECT_EQ(plans.backward.first_op, 0u);
  EXPECT_EQ(plans.backward.alloc, (Lists{{10}, {1, 9}, {2, 8}, {7}, {6}, {4, 5}}));
  EXPECT_EQ(plans.backward.free, (Lists{{11}, {10}, {9}, {8}, {7}, {0, 6}}));
}

TEST(TrainingPlans, LastTwoLayers) {
  TS_REQUIRE_FIXTURES();
  TrainabilityConfig config;
  config.num_train_layers = 2;
  const Plans plans = BuildBoth(SimpleMnist(), config);
  // Forward: ops 0-3 are outside the range and free their inputs as in inference; op 4 (FC)
  // saves its input 9 and its output 10; op 5 saves its input 10; output 11 -> slot 6.
  EXPECT_EQ(plans.forward.alloc, (Lists{{6}, {7}, {8}, {9}, {10}, {11}}));
  EXPECT_EQ(plans.forward.free, (Lists{{0}, {6}, {7}, {8}, {}, {}, {11}}));
  // Backward: i0 SOFTMAX allocates grad 10, frees 11; i1 FC 4 is the last layer: weights 1 get
  // a gradient, input 9 gets none but is freed, together with output 10.
  EXPECT_EQ(plans.backward.first_op, 4u);
  EXPECT_EQ(plans.backward.alloc, (Lists{{10}, {1}}));
  EXPECT_EQ(plans.backward.free, (Lists{{11}, {9, 10}}));
}

TEST(TrainingPlans, ConfigWithOnlyBias) {
  TS_REQUIRE_FIXTURES();
  TrainabilityConfig config;
  config.op_ranks = {{0, TrainRank::kOnlyBias}, {3, TrainRank::kAll}};
  const Plans plans = BuildBoth(SimpleMnist(), config);
  // Forward (range = all ops, because op 0 is listed):
  //  op 0 CONV ONLY_BIAS: does not save inputs -> 0 freed after op 0; saves output 6 (CONV)
  //  op 1 MAXPOOL: not listed, but MAX_POOL_2D always saves its input -> 6 kept
  //  op 2 RESHAPE: not listed, saves nothing -> 7 freed after op 2
  //  op 3 FC ALL: saves input 8 and output 9
  //  op 4 FC: not listed; 9 was saved by op 3 (the -2 marker) -> kept; saves output 10 (FC)
  //  op 5 SOFTMAX: 10 was saved -> kept; output 11 -> slot 6
  EXPECT_EQ(plans.forward.alloc, (Lists{{6}, {7}, {8}, {9}, {10}, {11}}));
  EXPECT_EQ(plans.forward.free, (Lists{{0}, {}, {7}, {}, {}, {}, {11}}));
  // Backward: only listed ops get parameter gradients:
  //  i0 SOFTMAX: grad 10; frees 11
  //  i1 FC 4 (not listed): grad of input 9 only; frees 10
  //  i2 FC 3 (ALL): grads 2 (weights) and 8; frees 9
  //  i3 RESHAPE: grad 7; frees 8
  //  i4 MAXPOOL: grad 6; frees 7
  //  i5 CONV ONLY_BIAS, last layer: bias 5 only (weights 4 skipped); frees 0 and 6
  EXPECT_EQ(plans.backward.alloc, (Lists{{10}, {9}, {2, 8}, {7}, {6}, {5}}));
  EXPECT_EQ(plans.backward.free, (Lists{{11}, {10}, {9}, {8}, {7}, {0, 6}}));
}

// A hand-made subgraph: x -> FC (no options table) -> y -> FC (options) -> z, plus a fan-out.
Subgraph TwoFcWithFanOut(bool first_has_options) {
  Subgraph g;
  auto add_tensor = [&](const char* name, bool constant, size_t bytes) {
    Tensor t;
    t.name = name;
    t.constant = constant;
    t.bytes = bytes;
    t.shape = {1, static_cast<int32_t>(bytes / 4)};
    g.tensors.push_back(t);
  };
  add_tensor("x", false, 16);  // 0
  add_tensor("w1", true, 64);  // 1
  add_tensor("y", false, 16);  // 2
  add_tensor("w2", true, 64);  // 3
  add_tensor("z", false, 16);  // 4
  add_tensor("s", false, 16);  // 5
  Operator fc1;
  fc1.opcode = op::kFullyConnected;
  fc1.inputs = {0, 1, -1};
  fc1.outputs = {2};
  fc1.options_type = first_has_options ? ExpectedOptionsType(op::kFullyConnected) : 0;
  Operator fc2 = fc1;
  fc2.inputs = {2, 3, -1};
  fc2.outputs = {4};
  fc2.options_type = ExpectedOptionsType(op::kFullyConnected);
  Operator relu;  // consumes x again after fc1 saved it
  relu.opcode = op::kRelu;
  relu.inputs = {0};
  relu.outputs = {5};
  g.operators = {fc1, fc2, relu};
  g.inputs = {0};
  g.outputs = {4, 5};
  return g;
}

TEST(TrainingPlans, FullyConnectedSavesItsOutputOnlyWithItsOptionsTable) {
  Subgraph g = TwoFcWithFanOut(false);
  TrainabilityConfig config;
  config.op_ranks = {{1, TrainRank::kOnlyBias}};
  const BackwardSelection from_op1 = SelectBackwardRange(g, config);
  EXPECT_FALSE(SavesOutputsForBackward(g, from_op1, 0));  // outside the range
  EXPECT_TRUE(SavesOutputsForBackward(g, from_op1, 1));   // ONLY_BIAS, but an FC with options

  config.op_ranks = {{0, TrainRank::kOnlyBias}};
  const BackwardSelection from_op0 = SelectBackwardRange(g, config);
  EXPECT_FALSE(SavesOutputsForBackward(g, from_op0, 0));  // ONLY_BIAS and no options table
  g.operators[0].options_type = ExpectedOptionsType(op::kFullyConnected);
  EXPECT_TRUE(SavesOutputsForBackward(g, from_op0, 0));
}

TEST(TrainingPlans, LaterNonSavingConsumerStillFreesASavedInput) {
  // onert-micro tracks one end per tensor, and a later consumer overwrites it.
  const Subgraph g = TwoFcWithFanOut(true);
  TrainabilityConfig config;
  config.op_ranks = {{0, TrainRank::kAll}};  // range = all ops; only op 0 is listed
  ForwardPlan plan;
  ASSERT_TRUE(BuildTrainingForwardPlan(g, SelectBackwardRange(g, config), {}, &plan).ok());
  // op 0 saves x (listed, ALL) -> end -1; op 2 (RELU, not listed) then sets end = 2, so x is
  // freed after op 2 although op 0's backward still reads it. y (saved output of op 0) stays.
  EXPECT_EQ(plan.free, (Lists{{}, {}, {0}, {4, 5}}));
}

TEST(BackwardPlan, EmptyRangeHasNoSteps) {
  const Subgraph g = TwoFcWithFanOut(true);
  TrainabilityConfig config;
  config.op_ranks = {{7, TrainRank::kAll}};  // out of range: nothing trains
  BackwardPlan plan;
  ASSERT_TRUE(BuildBackwardPlan(g, SelectBackwardRange(g, config), &plan).ok());
  EXPECT_TRUE(plan.alloc.empty());
  EXPECT_TRUE(plan.free.empty());
}

TEST(Plans, RefuseOutOfRangeTensorsAndMismatchedSelections) {
  Subgraph g = TwoFcWithFanOut(true);
  const BackwardSelection s = SelectBackwardRange(g, TrainabilityConfig{});
  g.operators[1].inputs[0] = 42;
  ForwardPlan forward;
  const Status status = BuildInferencePlan(g, {}, &forward);
  EXPECT_EQ(status.code(), StatusCode::kInvalidModel);
  EXPECT_NE(std::string(status.message()).find("operator 1 (FULLY_CONNECTED)"), std::string::npos)
      << status.message();

  const Subgraph other = TwoFcWithFanOut(true);
  BackwardSelection wrong = s;
  wrong.ops.pop_back();
  BackwardPlan backward;
  EXPECT_EQ(BuildBackwardPlan(other, wrong, &backward).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildTrainingForwardPlan(other, wrong, {}, &forward).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trainscope
