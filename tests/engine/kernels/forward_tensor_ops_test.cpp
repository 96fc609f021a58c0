// SPDX-License-Identifier: Apache-2.0
//
// Hand-computed forward cases for the data-movement and element-wise ops: strided slices with
// masks, gather, squeeze / expand dims, broadcasting add / sub / mul, mean, concatenation, and
// the run-time checks of operand values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/model/model_builder.h"
#include "tests/engine/kernels/kernel_harness.h"

namespace trainscope {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::RunSingleOutput;
using testing::TryRun;

std::vector<float> Iota(int count) {
  std::vector<float> values(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i);
  return values;
}

struct SliceSpec {
  std::vector<int32_t> begin, end, strides;
  OpOptions options;
};

ModelBuilder SliceModel(std::vector<int32_t> in_shape, std::vector<int32_t> out_shape,
                        const SliceSpec& spec) {
  ModelBuilder b;
  const auto n = static_cast<int32_t>(spec.begin.size());
  const int x = b.AddTensor("x", std::move(in_shape));
  const int begin = b.AddConstantInt32("begin", {n}, spec.begin);
  const int end = b.AddConstantInt32("end", {n}, spec.end);
  const int strides = b.AddConstantInt32("strides", {n}, spec.strides);
  const int y = b.AddTensor("y", std::move(out_shape));
  b.AddOperator(op::kStridedSlice, {x, begin, end, strides}, {y}, spec.options);
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

TEST(StridedSlice, NegativeStrideWithEndMaskWalksRowsBackwards) {
  SliceSpec s{{1, -1}, {3, 0}, {1, -1}, {}};
  s.options.end_mask = 2;  // dimension 1 runs to its beginning
  EXPECT_THAT(RunSingleOutput(SliceModel({3, 4}, {2, 4}, s), {Iota(12)}),
              ElementsAreArray({7.0f, 6.0f, 5.0f, 4.0f, 11.0f, 10.0f, 9.0f, 8.0f}));
}

TEST(StridedSlice, ShrinkAxisDropsTheDimension) {
  SliceSpec s{{2, 1}, {3, 3}, {1, 1}, {}};
  s.options.shrink_axis_mask = 1;
  EXPECT_THAT(RunSingleOutput(SliceModel({3, 4}, {2}, s), {Iota(12)}),
              ElementsAreArray({9.0f, 10.0f}));
}

TEST(StridedSlice, EllipsisStandsForTheLeadingDimensions) {
  SliceSpec s{{0, 1}, {0, 3}, {1, 1}, {}};
  s.options.ellipsis_mask = 1;
  std::vector<float> expected;
  for (int row = 0; row < 6; ++row) {
    expected.push_back(static_cast<float>(4 * row + 1));
    expected.push_back(static_cast<float>(4 * row + 2));
  }
  EXPECT_THAT(RunSingleOutput(SliceModel({2, 3, 4}, {2, 3, 2}, s), {Iota(24)}),
              ElementsAreArray(expected));
}

TEST(StridedSlice, NewAxisInsertsASizeOneDimension) {
  SliceSpec s{{0, 0, 1}, {0, 0, 3}, {1, 1, 1}, {}};
  s.options.new_axis_mask = 1;
  s.options.end_mask = 2;
  EXPECT_THAT(RunSingleOutput(SliceModel({3, 4}, {1, 3, 2}, s), {Iota(12)}),
              ElementsAreArray({1.0f, 2.0f, 5.0f, 6.0f, 9.0f, 10.0f}));
}

TEST(StridedSlice, OffsetMakesEndRelativeToBegin) {
  SliceSpec s{{1}, {2}, {1}, {}};
  s.options.offset = true;
  EXPECT_THAT(RunSingleOutput(SliceModel({6}, {2}, s), {Iota(6)}), ElementsAreArray({1.0f, 2.0f}));
}

TEST(StridedSlice, OutOfRangeBoundsClamp) {
  SliceSpec s{{10}, {-10}, {-2}, {}};
  EXPECT_THAT(RunSingleOutput(SliceModel({5}, {3}, s), {Iota(5)}),
              ElementsAreArray({4.0f, 2.0f, 0.0f}));
}

TEST(StridedSlice, BoundsThatDisagreeWithTheGraphShapeAreAnError) {
  SliceSpec s{{0}, {4}, {1}, {}};
  const Status status = TryRun(SliceModel({6}, {3}, s), {Iota(6)});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("operator 0 (STRIDED_SLICE)"));
}

ModelBuilder GatherModel(std::vector<int32_t> indices_shape, const std::vector<int32_t>& indices,
                         int32_t axis, std::vector<int32_t> out_shape) {
  ModelBuilder b;
  const int params = b.AddTensor("params", {3, 2});
  const int idx = b.AddConstantInt32("indices", std::move(indices_shape), indices);
  const int y = b.AddTensor("y", std::move(out_shape));
  OpOptions o;
  o.axis = axis;
  b.AddOperator(op::kGather, {params, idx}, {y}, o);
  b.SetInputs({params});
  b.SetOutputs({y});
  return b;
}

TEST(Gather, PicksRowsAlongAxisZeroWithRepeats) {
  EXPECT_THAT(RunSingleOutput(GatherModel({3}, {2, 0, 2}, 0, {3, 2}), {{1, 2, 3, 4, 5, 6}}),
              ElementsAreArray({5.0f, 6.0f, 1.0f, 2.0f, 5.0f, 6.0f}));
}

TEST(Gather, NegativeAxisPicksColumns) {
  EXPECT_THAT(RunSingleOutput(GatherModel({1}, {1}, -1, {3, 1}), {{1, 2, 3, 4, 5, 6}}),
              ElementsAreArray({2.0f, 4.0f, 6.0f}));
}

TEST(Gather, ScalarIndexRemovesTheAxis) {
  EXPECT_THAT(RunSingleOutput(GatherModel({}, {1}, 0, {2}), {{1, 2, 3, 4, 5, 6}}),
              ElementsAreArray({3.0f, 4.0f}));
}

TEST(Gather, IndexOutOfRangeIsAnErrorNotACrash) {
  for (int32_t bad : {3, -1, 1 << 30}) {
    const Status status = TryRun(GatherModel({2}, {0, bad}, 0, {2, 2}), {{1, 2, 3, 4, 5, 6}});
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_THAT(status.message(), HasSubstr("operator 0 (GATHER)"));
    EXPECT_THAT(status.message(), HasSubstr("at position 1 is outside [0, 3)"));
  }
}

TEST(Squeeze, RemovesAllOrOnlyTheListedSizeOneDimensions) {
  for (const auto& [dims, out_shape] :
       std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>>{
           {{}, {3, 2}}, {{0}, {3, 1, 2}}, {{-2, 0}, {3, 2}}}) {
    ModelBuilder b;
    const int x = b.AddTensor("x", {1, 3, 1, 2});
    const int y = b.AddTensor("y", out_shape);
    OpOptions o;
    o.squeeze_dims = dims;
    b.AddOperator(op::kSqueeze, {x}, {y}, o);
    b.SetInputs({x});
    b.SetOutputs({y});
    EXPECT_THAT(RunSingleOutput(b, {Iota(6)}), ElementsAreArray(Iota(6)));
  }
}

TEST(Squeeze, ListingADimensionLargerThanOneIsAnError) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 3});
  const int y = b.AddTensor("y", {1});
  OpOptions o;
  o.squeeze_dims = {1};
  b.AddOperator(op::kSqueeze, {x}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  const Status status = TryRun(b, {Iota(3)});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("cannot squeeze dimension 1 of size 3"));
}

ModelBuilder ExpandDimsModel(int32_t axis, std::vector<int32_t> out_shape) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {3, 2});
  const int a = b.AddConstantInt32("axis", {1}, {axis});
  const int y = b.AddTensor("y", std::move(out_shape));
  b.AddOperator(op::kExpandDims, {x, a}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

TEST(ExpandDims, InsertsAtANegativeAxis) {
  EXPECT_THAT(RunSingleOutput(ExpandDimsModel(-1, {3, 2, 1}), {Iota(6)}),
              ElementsAreArray(Iota(6)));
  EXPECT_THAT(RunSingleOutput(ExpandDimsModel(1, {3, 1, 2}), {Iota(6)}), ElementsAreArray(Iota(6)));
}

TEST(ExpandDims, AxisThatContradictsTheOutputShapeIsAnError) {
  const Status status = TryRun(ExpandDimsModel(0, {3, 2, 1}), {Iota(6)});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("axis 0 does not give the output shape"));
}

ModelBuilder BinaryModel(int32_t opcode, std::vector<int32_t> a_shape, std::vector<int32_t> b_shape,
                         std::vector<int32_t> out_shape) {
  ModelBuilder b;
  const int a = b.AddTensor("a", std::move(a_shape));
  const int c = b.AddTensor("b", std::move(b_shape));
  const int y = b.AddTensor("y", std::move(out_shape));
  b.AddOperator(opcode, {a, c}, {y});
  b.SetInputs({a, c});
  b.SetOutputs({y});
  return b;
}

TEST(Broadcast, MulRepeatsSizeOneAndMissingDimensions) {
  // a [2, 1, 3] * b [4, 1] -> [2, 4, 3]: y[i][j][k] = a[i][0][k] * b[j][0].
  const std::vector<float> a = {1, 2, 3, 4, 5, 6};
  const std::vector<float> bv = {1, -1, 10, 0.5f};
  std::vector<float> expected;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 3; ++k) expected.push_back(a[i * 3 + k] * bv[j]);
    }
  }
  EXPECT_THAT(RunSingleOutput(BinaryModel(op::kMul, {2, 1, 3}, {4, 1}, {2, 4, 3}), {a, bv}),
              ElementsAreArray(expected));
}

TEST(Broadcast, SubOfAVectorFromAMatrixKeepsOperandOrder) {
  // a [3] - b [2, 3] -> y[i][j] = a[j] - b[i][j].
  EXPECT_THAT(RunSingleOutput(BinaryModel(op::kSub, {3}, {2, 3}, {2, 3}),
                              {{10, 20, 30}, {1, 2, 3, 4, 5, 6}}),
              ElementsAreArray({9.0f, 18.0f, 27.0f, 6.0f, 15.0f, 24.0f}));
}

TEST(Broadcast, AddOfAScalarAndARank4Tensor) {
  std::vector<float> expected = Iota(16);
  for (float& v : expected) v += 0.5f;
  EXPECT_THAT(
      RunSingleOutput(BinaryModel(op::kAdd, {}, {2, 2, 2, 2}, {2, 2, 2, 2}), {{0.5f}, Iota(16)}),
      ElementsAreArray(expected));
}

TEST(Broadcast, IncompatibleShapesAreRejectedByPrepare) {
  const Status status = TryRun(BinaryModel(op::kAdd, {2, 3}, {2, 4}, {2, 4}), {Iota(6), Iota(8)});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("input shapes [2, 3] and [2, 4] do not broadcast"));
}

ModelBuilder MeanModel(const std::vector<int32_t>& axes, bool keep_dims,
                       std::vector<int32_t> out_shape) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {2, 3, 4});
  const int a = b.AddConstantInt32("axes", {static_cast<int32_t>(axes.size())}, axes);
  const int y = b.AddTensor("y", std::move(out_shape));
  OpOptions o;
  o.keep_dims = keep_dims;
  b.AddOperator(op::kMean, {x, a}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

TEST(Mean, ReducesSeveralAxesIncludingNegativeOnes) {
  // Over axes 0 and 2 of x[i][j][k] = 12i + 4j + k: mean = 6 + 4j + 1.5.
  const std::vector<float> expected = {7.5f, 11.5f, 15.5f};
  EXPECT_THAT(RunSingleOutput(MeanModel({-1, 0}, false, {3}), {Iota(24)}),
              ElementsAreArray(expected));
  EXPECT_THAT(RunSingleOutput(MeanModel({0, 2, 2}, true, {1, 3, 1}), {Iota(24)}),
              ElementsAreArray(expected));
}

TEST(Mean, AxisOutOfRangeIsAnError) {
  const Status status = TryRun(MeanModel({3}, false, {2, 3, 4}), {Iota(24)});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("axis 3 is out of range for rank 3"));
}

TEST(Concatenation, NegativeAxisJoinsTheLastDimension) {
  ModelBuilder b;
  const int a = b.AddTensor("a", {2, 1});
  const int c = b.AddTensor("c", {2, 2});
  const int y = b.AddTensor("y", {2, 3});
  OpOptions o;
  o.axis = -1;
  b.AddOperator(op::kConcatenation, {a, c}, {y}, o);
  b.SetInputs({a, c});
  b.SetOutputs({y});
  EXPECT_THAT(RunSingleOutput(b, {{1, 2}, {3, 4, 5, 6}}),
              ElementsAreArray({1.0f, 3.0f, 4.0f, 2.0f, 5.0f, 6.0f}));
}

TEST(Transpose, PermutationWithARepeatIsAnError) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {2, 2});
  const int perm = b.AddConstantInt32("perm", {2}, {0, 0});
  const int y = b.AddTensor("y", {2, 2});
  b.AddOperator(op::kTranspose, {x, perm}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const Status status = TryRun(b, {Iota(4)});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("does not form a permutation"));
}

TEST(Pad, NegativePaddingIsAnError) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {3});
  const int pads = b.AddConstantInt32("paddings", {1, 2}, {-1, 0});
  const int y = b.AddTensor("y", {2});
  b.AddOperator(op::kPad, {x, pads}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const Status status = TryRun(b, {Iota(3)});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("paddings (-1, 0) of dimension 0"));
}

}  // namespace
}  // namespace trainscope
