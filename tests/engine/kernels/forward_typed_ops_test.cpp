// SPDX-License-Identifier: Apache-2.0
//
// Hand-computed forward cases for the operators with BOOL or INT32 results: the comparisons and
// logical ops, CAST (saturation, NaN, BOOL), SELECT_V2 and ARG_MAX / ARG_MIN. Graph inputs and
// outputs are FLOAT32, so each case reaches its typed tensors through a CAST, the way these
// operators sit inside real models.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/model/model_builder.h"
#include "tests/engine/kernels/kernel_harness.h"
#include "tests/engine/kernels/op_models.h"

namespace trainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::In;
using testing::OneOp;
using testing::RunSingleOutput;
using testing::TryRun;

// x (float, `shape`) -> CAST to `type` -> op(..., `constant` of `type` as its second input if
// given) -> CAST back to float.
ModelBuilder ThroughType(int32_t opcode, std::vector<int32_t> shape, ElementType type, bool binary,
                         std::vector<int32_t> other_shape = {},
                         ElementType result = ElementType::kBool) {
  ModelBuilder b;
  const int x = b.AddTensor("x", shape);
  std::vector<int32_t> inputs;
  const int cast_x = b.AddTensor("x_typed", shape, type);
  b.AddOperator(op::kCast, {x}, {cast_x});
  inputs.push_back(cast_x);
  std::vector<int32_t> graph_inputs = {x};
  if (binary) {
    const int other = b.AddTensor("other", other_shape);
    const int cast_other = b.AddTensor("other_typed", other_shape, type);
    b.AddOperator(op::kCast, {other}, {cast_other});
    inputs.push_back(cast_other);
    graph_inputs.push_back(other);
  }
  std::vector<int32_t> out_shape = shape.size() >= other_shape.size() ? shape : other_shape;
  const int typed = b.AddTensor("typed", out_shape, result);
  b.AddOperator(opcode, inputs, {typed});
  const int y = b.AddTensor("y", out_shape);
  b.AddOperator(op::kCast, {typed}, {y});
  b.SetInputs(graph_inputs);
  b.SetOutputs({y});
  return b;
}

std::vector<float> Compare(int32_t opcode, ElementType type) {
  // a = [1, 2, 3, 4] against b = [3] (broadcast).
  return RunSingleOutput(ThroughType(opcode, {4}, type, true, {1}), {{1, 2, 3, 4}, {3}});
}

TEST(Comparisons, EverySixOnFloatsWithBroadcasting) {
  const ElementType f = ElementType::kFloat32;
  EXPECT_THAT(Compare(op::kLess, f), ElementsAre(1.0f, 1.0f, 0.0f, 0.0f));
  EXPECT_THAT(Compare(op::kLessEqual, f), ElementsAre(1.0f, 1.0f, 1.0f, 0.0f));
  EXPECT_THAT(Compare(op::kGreater, f), ElementsAre(0.0f, 0.0f, 0.0f, 1.0f));
  EXPECT_THAT(Compare(op::kGreaterEqual, f), ElementsAre(0.0f, 0.0f, 1.0f, 1.0f));
  EXPECT_THAT(Compare(op::kEqual, f), ElementsAre(0.0f, 0.0f, 1.0f, 0.0f));
  EXPECT_THAT(Compare(op::kNotEqual, f), ElementsAre(1.0f, 1.0f, 0.0f, 1.0f));
}

TEST(Comparisons, WorkOnInt32Too) {
  EXPECT_THAT(Compare(op::kLess, ElementType::kInt32), ElementsAre(1.0f, 1.0f, 0.0f, 0.0f));
}

TEST(Comparisons, AFloatOutputIsRefused) {
  const Status status = TryRun(OneOp(op::kLess, {In({2}), In({2})}, {2}), {{1, 2}, {2, 1}});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("is FLOAT32; expected BOOL"));
}

TEST(Logical, AndOrNotOnBools) {
  const std::vector<float> a = {0, 0, 1, 1};
  const std::vector<float> b = {0, 1, 0, 1};
  EXPECT_THAT(
      RunSingleOutput(ThroughType(op::kLogicalAnd, {4}, ElementType::kBool, true, {4}), {a, b}),
      ElementsAre(0.0f, 0.0f, 0.0f, 1.0f));
  EXPECT_THAT(
      RunSingleOutput(ThroughType(op::kLogicalOr, {4}, ElementType::kBool, true, {4}), {a, b}),
      ElementsAre(0.0f, 1.0f, 1.0f, 1.0f));
  EXPECT_THAT(RunSingleOutput(ThroughType(op::kLogicalNot, {4}, ElementType::kBool, false), {a}),
              ElementsAre(1.0f, 1.0f, 0.0f, 0.0f));
}

TEST(Cast, FloatToInt32TruncatesTowardZeroAndSaturates) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {6});
  const int i = b.AddTensor("i", {6}, ElementType::kInt32);
  b.AddOperator(op::kCast, {x}, {i});
  const int y = b.AddTensor("y", {6});
  b.AddOperator(op::kCast, {i}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_THAT(RunSingleOutput(b, {{2.7f, -2.7f, 0.5f, 3e9f, -3e9f, -0.0f}}),
              ElementsAre(2.0f, -2.0f, 0.0f, 2147483648.0f, -2147483648.0f, 0.0f));
}

TEST(Cast, AnythingToBoolIsNotZero) {
  EXPECT_THAT(RunSingleOutput(ThroughType(op::kLogicalNot, {3}, ElementType::kBool, false),
                              {{0.0f, 0.25f, -5.0f}}),
              ElementsAre(1.0f, 0.0f, 0.0f));
}

TEST(Cast, RefusesTypesItDoesNotConvert) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {2});
  const int h = b.AddTensor("h", {2}, ElementType::kInt8);
  b.AddOperator(op::kCast, {x}, {h});
  const int y = b.AddTensor("y", {2});
  b.AddOperator(op::kCast, {h}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_THAT(TryRun(b, {{1, 2}}).message(), HasSubstr("'h' is INT8; CAST converts"));
}

TEST(SelectV2, PicksXWhereTheConditionHoldsWithBroadcasting) {
  // condition = x > 0 per column of a [2, 2]; x and y: a and the scalar -1.
  ModelBuilder b;
  const int a = b.AddTensor("a", {2, 2});
  const int zero = b.AddConstant("zero", {1}, {0.0f});
  const int positive = b.AddTensor("positive", {2, 2}, ElementType::kBool);
  b.AddOperator(op::kGreater, {a, zero}, {positive});
  const int fallback = b.AddConstant("fallback", {}, {-1.0f});
  const int y = b.AddTensor("y", {2, 2});
  b.AddOperator(op::kSelectV2, {positive, a, fallback}, {y});
  b.SetInputs({a});
  b.SetOutputs({y});
  EXPECT_THAT(RunSingleOutput(b, {{3, -4, 0, 7}}), ElementsAre(3.0f, -1.0f, -1.0f, 7.0f));
}

TEST(SelectV2, TheConditionMustBeBool) {
  const Status status =
      TryRun(OneOp(op::kSelectV2, {In({2}), In({2}), In({2})}, {2}), {{1, 0}, {1, 2}, {3, 4}});
  EXPECT_THAT(status.message(), HasSubstr("input 0 (tensor 0 'in0') is FLOAT32; expected BOOL"));
}

// x [2, 3] -> ARG_MAX / ARG_MIN along `axis` -> CAST to float.
std::vector<float> ArgReduce(int32_t opcode, int32_t axis, std::vector<int32_t> out,
                             const std::vector<float>& x) {
  ModelBuilder b;
  const int input = b.AddTensor("x", {2, 3});
  const int axis_tensor = b.AddConstantInt32("axis", {}, {axis});
  const int index = b.AddTensor("index", out, ElementType::kInt32);
  b.AddOperator(opcode, {input, axis_tensor}, {index});
  const int y = b.AddTensor("y", out);
  b.AddOperator(op::kCast, {index}, {y});
  b.SetInputs({input});
  b.SetOutputs({y});
  return RunSingleOutput(b, {x});
}

TEST(ArgMaxMin, IndexOfTheExtremeAlongTheAxisWithTiesToTheFirst) {
  const std::vector<float> x = {1, 5, 5, -2, 0, -7};
  EXPECT_THAT(ArgReduce(op::kArgMax, 1, {2}, x), ElementsAre(1.0f, 1.0f));
  EXPECT_THAT(ArgReduce(op::kArgMin, 1, {2}, x), ElementsAre(0.0f, 2.0f));
  EXPECT_THAT(ArgReduce(op::kArgMax, -2, {3}, x), ElementsAre(0.0f, 0.0f, 0.0f));
  EXPECT_THAT(ArgReduce(op::kArgMin, 0, {3}, x), ElementsAre(1.0f, 1.0f, 1.0f));
}

TEST(ArgMaxMin, AnAxisOutOfRangeIsARunTimeError) {
  ModelBuilder b;
  const int input = b.AddTensor("x", {2, 3});
  const int axis = b.AddConstantInt32("axis", {}, {2});
  const int index = b.AddTensor("index", {2}, ElementType::kInt32);
  b.AddOperator(op::kArgMax, {input, axis}, {index});
  const int y = b.AddTensor("y", {2});
  b.AddOperator(op::kCast, {index}, {y});
  b.SetInputs({input});
  b.SetOutputs({y});
  EXPECT_THAT(TryRun(b, {{1, 2, 3, 4, 5, 6}}).message(),
              HasSubstr("axis 2 is out of range for rank 2"));
}

TEST(GraphBoundary, NonFloatGraphOutputsAreRefusedWithTheirType) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {2});
  const int y = b.AddTensor("y", {2}, ElementType::kInt32);
  b.AddOperator(op::kCast, {x}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_THAT(TryRun(b, {{1, 2}}).message(),
              HasSubstr("graph output tensor 1 'y' is INT32; graph inputs and outputs must be "
                        "FLOAT32"));
}

TEST(GraphBoundary, AGraphInputWithoutElementsIsRefused) {
  // The input feeds no operator, so no operand check sees it; the executors would copy a sample
  // of zero elements into a buffer they never allocated.
  ModelBuilder b;
  const int unused = b.AddTensor("unused", {0, 3});
  const int x = b.AddTensor("x", {2});
  const int y = b.AddTensor("y", {2});
  b.AddOperator(op::kAbs, {x}, {y});
  b.SetInputs({unused, x});
  b.SetOutputs({y});
  EXPECT_THAT(TryRun(b, {{}, {1, 2}}).message(),
              HasSubstr("graph input tensor 0 'unused' has no elements"));
}

}  // namespace
}  // namespace trainscope
