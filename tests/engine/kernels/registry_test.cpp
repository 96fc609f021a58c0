// SPDX-License-Identifier: Apache-2.0
//
// The registry and the model-level checks: which ops have kernels, what their backward passes
// read, which inputs train, the trained weight rows per rank, and the reference runner's input
// validation and error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/kernels/kernel.h"
#include "engine/model/model_builder.h"
#include "tests/engine/kernels/kernel_harness.h"

namespace trainscope {
namespace {

using ::testing::HasSubstr;
using testing::TryRun;

TEST(Registry, EveryRequiredOperatorHasForwardAndBackward) {
  for (int32_t opcode : {op::kFullyConnected,
                         op::kConv2D,
                         op::kDepthwiseConv2D,
                         op::kMaxPool2D,
                         op::kAveragePool2D,
                         op::kReshape,
                         op::kSqueeze,
                         op::kExpandDims,
                         op::kSoftmax,
                         op::kRelu,
                         op::kRelu6,
                         op::kLeakyRelu,
                         op::kLogistic,
                         op::kTanh,
                         op::kAdd,
                         op::kSub,
                         op::kMul,
                         op::kMean,
                         op::kConcatenation,
                         op::kStridedSlice,
                         op::kPad,
                         op::kTranspose,
                         op::kGather,
                         op::kExp,
                         op::kGru}) {
    const OpRegistration* registration = FindRegistration(opcode);
    ASSERT_NE(registration, nullptr) << OpcodeName(opcode);
    EXPECT_EQ(registration->opcode, opcode);
    EXPECT_NE(registration->prepare, nullptr) << OpcodeName(opcode);
    EXPECT_NE(registration->eval, nullptr) << OpcodeName(opcode);
    EXPECT_NE(registration->backward, nullptr) << OpcodeName(opcode);
  }
  EXPECT_EQ(FindRegistration(-1000), nullptr);  // no such operator
  EXPECT_EQ(FindRegistration(op::kPlaceholderForGreaterOpCodes), nullptr);
}

// The opcode index gives what a search of the registration list in order gives, for every
// opcode, known or not, inside and outside the indexed range.
TEST(Registry, LookupEqualsASearchOfTheList) {
  for (int32_t opcode = -40; opcode < 700; ++opcode) {
    const OpRegistration* searched = nullptr;
    for (size_t i = 0; i < RegisteredOperatorCount() && searched == nullptr; ++i) {
      if (RegisteredOperator(i).opcode == opcode) searched = &RegisteredOperator(i);
    }
    EXPECT_EQ(FindRegistration(opcode), searched) << opcode;
  }
}

Operator MakeOp(int32_t opcode, std::vector<int32_t> inputs, Activation activation) {
  Operator op;
  op.opcode = opcode;
  op.inputs = std::move(inputs);
  op.outputs = {9};
  op.options.activation = activation;
  return op;
}

TEST(Registry, BackwardNeedsFollowTheFusedActivation) {
  const BackwardNeeds fc =
      BackwardNeedsOf(MakeOp(op::kFullyConnected, {0, 1, 2}, Activation::kNone));
  EXPECT_TRUE(NeedsInput(fc, 0));
  EXPECT_FALSE(NeedsInput(fc, 1));
  EXPECT_FALSE(fc.output);
  EXPECT_TRUE(BackwardNeedsOf(MakeOp(op::kFullyConnected, {0, 1, 2}, Activation::kRelu)).output);
  EXPECT_TRUE(BackwardNeedsOf(MakeOp(op::kSoftmax, {0}, Activation::kNone)).output);
  const BackwardNeeds mul = BackwardNeedsOf(MakeOp(op::kMul, {0, 1}, Activation::kNone));
  EXPECT_TRUE(NeedsInput(mul, 0));
  EXPECT_TRUE(NeedsInput(mul, 1));
  const BackwardNeeds add = BackwardNeedsOf(MakeOp(op::kAdd, {0, 1}, Activation::kNone));
  EXPECT_EQ(add.inputs, 0u);
  EXPECT_FALSE(add.output);
  EXPECT_TRUE(NeedsInput(BackwardNeedsOf(MakeOp(op::kMaxPool2D, {0}, Activation::kNone)), 0));
  EXPECT_TRUE(NeedsInput(BackwardNeedsOf(MakeOp(op::kGather, {0, 1}, Activation::kNone)), 1));
}

TEST(Registry, TrainableParamsAreWeightsAndOptionalBias) {
  const TrainableParams fc = TrainableParamsOf(MakeOp(op::kFullyConnected, {4, 5, 6}, {}));
  EXPECT_EQ(fc.weights, 5);
  EXPECT_EQ(fc.bias, 6);
  const TrainableParams no_bias = TrainableParamsOf(MakeOp(op::kConv2D, {4, 5, -1}, {}));
  EXPECT_EQ(no_bias.weights, 5);
  EXPECT_EQ(no_bias.bias, -1);
  const TrainableParams two_inputs = TrainableParamsOf(MakeOp(op::kDepthwiseConv2D, {4, 5}, {}));
  EXPECT_EQ(two_inputs.bias, -1);
  const TrainableParams add = TrainableParamsOf(MakeOp(op::kAdd, {4, 5}, {}));
  EXPECT_EQ(add.weights, -1);
  EXPECT_EQ(add.bias, -1);
}

TEST(TrainedRows, SplitsDimensionZeroAtItsFloorHalf) {
  EXPECT_EQ(TrainedRows(TrainRank::kAll, 5).begin, 0);
  EXPECT_EQ(TrainedRows(TrainRank::kAll, 5).end, 5);
  EXPECT_EQ(TrainedRows(TrainRank::kUpperHalf, 5).end, 2);
  EXPECT_EQ(TrainedRows(TrainRank::kLowerHalf, 5).begin, 2);
  EXPECT_EQ(TrainedRows(TrainRank::kLowerHalf, 5).count(), 3);
  EXPECT_TRUE(TrainedRows(TrainRank::kOnlyBias, 5).empty());
  EXPECT_TRUE(TrainedRows(TrainRank::kUpperHalf, 1).empty());
  EXPECT_EQ(TrainedRows(TrainRank::kLowerHalf, 1).count(), 1);
}

TEST(TrainedRows, DepthwiseWeightsTrainWhollyForHalfRanks) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 3, 3, 2});
  const int w = b.AddConstant("w", {1, 2, 2, 2}, std::vector<float>(8, 1.0f));
  const int y = b.AddTensor("y", {1, 2, 2, 2});
  const int w2 = b.AddConstant("w2", {6, 2}, std::vector<float>(12, 1.0f));
  const int z = b.AddTensor("z", {4, 6});
  OpOptions o;
  o.padding = Padding::kValid;
  o.stride_w = o.stride_h = 1;
  b.AddOperator(op::kDepthwiseConv2D, {x, w, -1}, {y}, o);
  b.AddOperator(op::kFullyConnected, {y, w2, -1}, {z});
  b.SetInputs({x});
  b.SetOutputs({z});
  Model model;
  ASSERT_TRUE(testing::BuildModel(b, &model));
  const Subgraph& g = model.graph().main();
  EXPECT_EQ(WeightGradientRows(g, g.operators[0], TrainRank::kLowerHalf).count(), 1);
  EXPECT_TRUE(WeightGradientRows(g, g.operators[0], TrainRank::kOnlyBias).empty());
  EXPECT_EQ(WeightGradientRows(g, g.operators[1], TrainRank::kLowerHalf).begin, 3);
  EXPECT_EQ(WeightGradientRows(g, g.operators[1], TrainRank::kUpperHalf).count(), 3);
  EXPECT_EQ(BackwardScratchFloats(g, g.operators[1]), 0u);
}

ModelBuilder ReluModel(ElementType type) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {4}, type);
  const int y = b.AddTensor("y", {4}, type);
  b.AddOperator(op::kRelu, {x}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

TEST(CheckRunnable, NamesTheOperatorAndTensorOfANonFloatType) {
  const Status status = TryRun(ReluModel(ElementType::kInt8), {{1, 2, 3, 4}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_STREQ(status.message(),
               "operator 0 (RELU): tensor 0 'x' is INT8; only FLOAT32 models can run");
}

TEST(CheckRunnable, NamesAnUnsupportedOperatorAndItsIndex) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {4});
  const int r = b.AddTensor("r", {4});
  const int y = b.AddTensor("y", {4});
  b.AddOperator(op::kRelu, {x}, {r});
  b.AddOperator(27, {r, x}, {y});  // SVDF
  b.SetInputs({x});
  b.SetOutputs({y});
  const Status status = TryRun(b, {{1, 2, 3, 4}});
  ASSERT_FALSE(status.ok());
  EXPECT_STREQ(status.message(), "unsupported operator SVDF at index 1");
}

TEST(CheckRunnable, RequiresInt32ShapeOperands) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {4});
  const int shape = b.AddConstant("shape", {2}, {2, 2});
  const int y = b.AddTensor("y", {2, 2});
  b.AddOperator(op::kReshape, {x, shape}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const Status status = TryRun(b, {{1, 2, 3, 4}});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(),
              HasSubstr("tensor 1 'shape' is FLOAT32; this operand must be INT32"));
}

TEST(RunForward, ReportsTheInputSizeItNeeds) {
  const Status status = TryRun(ReluModel(ElementType::kFloat32), {{1, 2, 3}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_STREQ(status.message(), "input 0 'x' needs 4 floats, got 3");
}

TEST(RunForward, ReportsTheInputCount) {
  const Status status = TryRun(ReluModel(ElementType::kFloat32), {{1, 2, 3, 4}, {1}});
  ASSERT_FALSE(status.ok());
  EXPECT_STREQ(status.message(), "the model has 1 inputs, got 2");
}

TEST(RunForward, RejectsNonFiniteInputsWithTheElementIndex) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Status status = TryRun(ReluModel(ElementType::kFloat32), {{1, 2, nan, 4}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kNumericError);
  EXPECT_STREQ(status.message(), "input 0 'x' element 2 is NaN");
  status = TryRun(ReluModel(ElementType::kFloat32), {{-inf, 2, 3, 4}});
  EXPECT_STREQ(status.message(), "input 0 'x' element 0 is Inf");
}

TEST(RunForward, RejectsReadingATensorNothingWrote) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {4});
  const int orphan = b.AddTensor("orphan", {4});
  const int y = b.AddTensor("y", {4});
  b.AddOperator(op::kAdd, {x, orphan}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const Status status = TryRun(b, {{1, 2, 3, 4}});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(),
              HasSubstr("operator 0 (ADD) reads tensor 1 'orphan', which no constant, graph "
                        "input or earlier operator produces"));
}

// Models that pass the flatbuffer verifier but whose data flow an executor cannot follow are
// refused before any kernel runs, naming the operator and the tensor.
TEST(RunForward, RejectsBrokenDataFlowBeforeAnyKernelRuns) {
  const auto refusal = [](const std::function<void(ModelBuilder&, int x, int y, int z)>& wire) {
    ModelBuilder b;
    const int x = b.AddTensor("x", {4});
    const int y = b.AddTensor("y", {4});
    const int z = b.AddTensor("z", {4});
    wire(b, x, y, z);
    b.SetInputs({x});
    const Status status = TryRun(b, {{1, 2, 3, 4}});
    EXPECT_FALSE(status.ok());
    EXPECT_EQ(status.code(), StatusCode::kInvalidModel);
    return std::string(status.message());
  };
  EXPECT_THAT(refusal([](ModelBuilder& b, int x, int y, int z) {
                b.AddOperator(op::kRelu, {x}, {y});
                b.AddOperator(op::kRelu, {x}, {y});
                b.SetOutputs({y});
                static_cast<void>(z);
              }),
              HasSubstr("operator 1 (RELU) writes tensor 1 'y', which an earlier operator "
                        "already wrote"));
  EXPECT_THAT(refusal([](ModelBuilder& b, int x, int y, int z) {
                b.AddOperator(op::kRelu, {x}, {y});
                b.AddOperator(op::kAdd, {y, z}, {z});
                b.SetOutputs({z});
              }),
              HasSubstr("operator 1 (ADD) reads tensor 2 'z', which no constant"));
  EXPECT_THAT(refusal([](ModelBuilder& b, int x, int y, int z) {
                b.AddOperator(op::kRelu, {x}, {y});
                b.AddOperator(op::kRelu, {y}, {y});
                b.SetOutputs({y});
                static_cast<void>(z);
              }),
              HasSubstr("operator 1 (RELU) writes its own input tensor 1 'y'"));
  EXPECT_THAT(refusal([](ModelBuilder& b, int x, int y, int z) {
                b.AddOperator(op::kRelu, {y}, {x});
                b.SetOutputs({x});
                static_cast<void>(z);
              }),
              HasSubstr("reads tensor 1 'y'"));
  EXPECT_THAT(refusal([](ModelBuilder& b, int x, int y, int z) {
                b.AddOperator(op::kRelu, {x}, {y});
                b.AddOperator(op::kRelu, {y}, {x});
                b.SetOutputs({y});
                static_cast<void>(z);
              }),
              HasSubstr("operator 1 (RELU) writes the graph input tensor 0 'x'"));
  EXPECT_THAT(refusal([](ModelBuilder& b, int x, int y, int z) {
                b.AddOperator(op::kRelu, {x}, {y});
                b.SetOutputs({z});
              }),
              HasSubstr("graph output tensor 2 'z' is produced by no operator"));
  EXPECT_THAT(refusal([](ModelBuilder& b, int x, int y, int z) {
                b.SetOutputs({y});
                static_cast<void>(x);
                static_cast<void>(z);
              }),
              HasSubstr("the model has no operators"));
}

}  // namespace
}  // namespace trainscope
