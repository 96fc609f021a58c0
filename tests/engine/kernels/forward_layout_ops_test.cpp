// SPDX-License-Identifier: Apache-2.0
//
// Hand-computed forward cases for the forward-only data-movement ops: SPLIT, SPLIT_V and UNPACK
// (several outputs), PACK, SLICE, SPACE_TO_DEPTH / DEPTH_TO_SPACE (and their round trip), CUMSUM
// with its exclusive and reverse options, and the checks of the values models carry in tensors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/kernels/reference_runner.h"
#include "engine/model/model_builder.h"
#include "tests/engine/kernels/kernel_harness.h"
#include "tests/engine/kernels/op_models.h"

namespace trainscope {
namespace {

using testing::BuildModel;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::In;
using testing::Ints;
using testing::OneOp;
using testing::RunSingleOutput;
using testing::TryRun;

std::vector<float> Iota(int count) {
  std::vector<float> values(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i);
  return values;
}

// One op with graph input x (shape `in`), INT32 constants before/after it as `ints_first`
// /`ints_last` say, and one graph output per entry of `outs`.
struct MultiOutputCase {
  int32_t opcode = 0;
  std::vector<int32_t> in;
  std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>> ints_first, ints_last;
  std::vector<std::vector<int32_t>> outs;
  OpOptions options;
};

Status RunMulti(const MultiOutputCase& c, const std::vector<float>& x,
                std::vector<std::vector<float>>* outputs) {
  ModelBuilder b;
  std::vector<int32_t> inputs;
  int n = 0;
  for (const auto& [shape, values] : c.ints_first) {
    inputs.push_back(b.AddConstantInt32("i" + std::to_string(n++), shape, values));
  }
  const int input = b.AddTensor("x", c.in);
  inputs.push_back(input);
  for (const auto& [shape, values] : c.ints_last) {
    inputs.push_back(b.AddConstantInt32("i" + std::to_string(n++), shape, values));
  }
  std::vector<int32_t> outs;
  for (size_t k = 0; k < c.outs.size(); ++k) {
    outs.push_back(b.AddTensor("y" + std::to_string(k), c.outs[k]));
  }
  b.AddOperator(c.opcode, inputs, outs, c.options);
  b.SetInputs({input});
  b.SetOutputs(outs);
  Model model;
  if (!BuildModel(b, &model))
    return Status::Error(StatusCode::kInvalidModel, "the test model did not build");
  return RunForward(model, {x}, outputs);
}

TEST(Split, CutsTheAxisIntoEqualParts) {
  MultiOutputCase c;
  c.opcode = op::kSplit;
  c.in = {2, 4};
  c.ints_first = {{{}, {1}}};
  c.outs = {{2, 2}, {2, 2}};
  c.options.num_splits = 2;
  std::vector<std::vector<float>> y;
  ASSERT_TRUE(RunMulti(c, Iota(8), &y).ok());
  ASSERT_EQ(y.size(), 2u);
  EXPECT_THAT(y[0], ElementsAre(0.0f, 1.0f, 4.0f, 5.0f));
  EXPECT_THAT(y[1], ElementsAre(2.0f, 3.0f, 6.0f, 7.0f));
}

TEST(Split, ANegativeAxisCountsFromTheEndAndAnUnevenOneIsRefused) {
  MultiOutputCase c;
  c.opcode = op::kSplit;
  c.in = {2, 4};
  c.ints_first = {{{1}, {-2}}};
  c.outs = {{1, 4}, {1, 4}};
  c.options.num_splits = 2;
  std::vector<std::vector<float>> y;
  ASSERT_TRUE(RunMulti(c, Iota(8), &y).ok());
  EXPECT_THAT(y[1], ElementsAre(4.0f, 5.0f, 6.0f, 7.0f));

  c.in = {3, 4};
  c.ints_first = {{{1}, {0}}};
  c.outs = {{2, 3}, {2, 3}};  // 6 elements each, but 3 rows do not split in two
  const Status status = RunMulti(c, Iota(12), &y);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("does not split into 2 equal parts"));
}

TEST(Split, NumSplitsMustMatchTheOutputs) {
  MultiOutputCase c;
  c.opcode = op::kSplit;
  c.in = {4};
  c.ints_first = {{{}, {0}}};
  c.outs = {{2}, {2}};
  c.options.num_splits = 4;
  std::vector<std::vector<float>> y;
  const Status status = RunMulti(c, Iota(4), &y);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("has 2 outputs, expected 4"));
}

TEST(SplitV, PartsOfListedSizesWithOneInferred) {
  MultiOutputCase c;
  c.opcode = op::kSplitV;
  c.in = {2, 5};
  c.ints_last = {{{3}, {1, -1, 2}}, {{}, {1}}};
  c.outs = {{2, 1}, {2, 2}, {2, 2}};
  c.options.num_splits = 3;
  std::vector<std::vector<float>> y;
  ASSERT_TRUE(RunMulti(c, Iota(10), &y).ok());
  ASSERT_EQ(y.size(), 3u);
  EXPECT_THAT(y[0], ElementsAre(0.0f, 5.0f));
  EXPECT_THAT(y[1], ElementsAre(1.0f, 2.0f, 6.0f, 7.0f));
  EXPECT_THAT(y[2], ElementsAre(3.0f, 4.0f, 8.0f, 9.0f));
}

TEST(SplitV, SizesThatDoNotAddUpAreRefused) {
  MultiOutputCase c;
  c.opcode = op::kSplitV;
  c.in = {5};
  c.ints_last = {{{2}, {2, 2}}, {{}, {0}}};
  c.outs = {{2}, {2}};
  c.options.num_splits = 2;
  std::vector<std::vector<float>> y;
  const Status status = RunMulti(c, Iota(5), &y);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("size_splits add up to 4; the dimension is 5"));

  c.ints_last = {{{2}, {-3, 8}}, {{}, {0}}};
  EXPECT_THAT(RunMulti(c, Iota(5), &y).message(), HasSubstr("size_splits[0] is -3"));
}

TEST(Unpack, SlicesAlongTheAxisAndDropsIt) {
  MultiOutputCase c;
  c.opcode = op::kUnpack;
  c.in = {2, 3};
  c.outs = {{2}, {2}, {2}};
  c.options.values_count = 3;
  c.options.axis = -1;
  std::vector<std::vector<float>> y;
  ASSERT_TRUE(RunMulti(c, Iota(6), &y).ok());
  ASSERT_EQ(y.size(), 3u);
  EXPECT_THAT(y[0], ElementsAre(0.0f, 3.0f));
  EXPECT_THAT(y[2], ElementsAre(2.0f, 5.0f));
}

TEST(Unpack, NumMustBeTheAxisDimension) {
  MultiOutputCase c;
  c.opcode = op::kUnpack;
  c.in = {2, 3};
  c.outs = {{3}, {3}};
  c.options.values_count = 2;
  c.options.axis = 1;
  std::vector<std::vector<float>> y;
  EXPECT_THAT(RunMulti(c, Iota(6), &y).message(),
              HasSubstr("dimension 1 of the input is 3, but num is 2"));
}

TEST(Pack, StacksAlongANewAxis) {
  OpOptions options;
  options.values_count = 2;
  options.axis = 1;
  EXPECT_THAT(
      RunSingleOutput(OneOp(op::kPack, {In({2}), In({2})}, {2, 2}, options), {{1, 2}, {3, 4}}),
      ElementsAre(1.0f, 3.0f, 2.0f, 4.0f));
  options.axis = 0;
  EXPECT_THAT(
      RunSingleOutput(OneOp(op::kPack, {In({2}), In({2})}, {2, 2}, options), {{1, 2}, {3, 4}}),
      ElementsAre(1.0f, 2.0f, 3.0f, 4.0f));
}

TEST(Pack, AxisAndValuesCountAreChecked) {
  OpOptions options;
  options.values_count = 2;
  options.axis = 2;
  EXPECT_THAT(
      TryRun(OneOp(op::kPack, {In({2}), In({2})}, {2, 2}, options), {{1, 2}, {3, 4}}).message(),
      HasSubstr("axis 2 is out of range for the rank-2 output"));
  options.axis = 0;
  options.values_count = 3;
  EXPECT_THAT(
      TryRun(OneOp(op::kPack, {In({2}), In({2})}, {2, 2}, options), {{1, 2}, {3, 4}}).message(),
      HasSubstr("values_count is 3 but the op has 2 inputs"));
}

TEST(Slice, TakesABlockWithSizeMinusOneRunningToTheEnd) {
  EXPECT_THAT(RunSingleOutput(
                  OneOp(op::kSlice, {In({3, 4}), Ints({2}, {1, 1}), Ints({2}, {2, -1})}, {2, 3}),
                  {Iota(12)}),
              ElementsAre(5.0f, 6.0f, 7.0f, 9.0f, 10.0f, 11.0f));
}

TEST(Slice, ABlockLeavingTheInputIsARunTimeError) {
  const Status status = TryRun(
      OneOp(op::kSlice, {In({3, 4}), Ints({2}, {2, 0}), Ints({2}, {2, 4})}, {2, 4}), {Iota(12)});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("dimension 0: begin 2 with size 2 leaves the input's 3"));
}

TEST(SpaceToDepth, MovesEachPatchIntoTheChannels) {
  // x [1, 2, 2, 1] = [[a, b], [c, d]] becomes one pixel with channels a, b, c, d.
  OpOptions options;
  options.block_size = 2;
  EXPECT_THAT(RunSingleOutput(OneOp(op::kSpaceToDepth, {In({1, 2, 2, 1})}, {1, 1, 1, 4}, options),
                              {{1, 2, 3, 4}}),
              ElementsAre(1.0f, 2.0f, 3.0f, 4.0f));
  // Two channels and a 4x2 image: the output pixel (0, 0) takes x[0,0], x[0,1], x[1,0], x[1,1].
  const std::vector<float> y = RunSingleOutput(
      OneOp(op::kSpaceToDepth, {In({1, 4, 2, 2})}, {1, 2, 1, 8}, options), {Iota(16)});
  EXPECT_THAT(y, ElementsAreArray({0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f, 9.0f,
                                   10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f}));
  const std::vector<float> wide = RunSingleOutput(
      OneOp(op::kSpaceToDepth, {In({1, 2, 4, 1})}, {1, 1, 2, 4}, options), {Iota(8)});
  EXPECT_THAT(wide, ElementsAre(0.0f, 1.0f, 4.0f, 5.0f, 2.0f, 3.0f, 6.0f, 7.0f));
}

TEST(DepthToSpace, IsTheInverseOfSpaceToDepth) {
  OpOptions options;
  options.block_size = 2;
  EXPECT_THAT(RunSingleOutput(OneOp(op::kDepthToSpace, {In({1, 1, 2, 4})}, {1, 2, 4, 1}, options),
                              {{0, 1, 4, 5, 2, 3, 6, 7}}),
              ElementsAreArray(Iota(8)));
}

TEST(DepthToSpace, DepthMustBeAMultipleOfTheBlockArea) {
  OpOptions options;
  options.block_size = 2;
  EXPECT_THAT(TryRun(OneOp(op::kDepthToSpace, {In({1, 1, 1, 2})}, {1, 2, 2, 1}, options), {{1, 2}})
                  .message(),
              HasSubstr("multiple of block_size squared"));
  options.block_size = 0;
  EXPECT_THAT(
      TryRun(OneOp(op::kSpaceToDepth, {In({1, 2, 2, 1})}, {1, 1, 1, 4}, options), {{1, 2, 3, 4}})
          .message(),
      HasSubstr("block_size is 0"));
}

TEST(Cumsum, RunningSumsWithTheExclusiveAndReverseOptions) {
  const auto run = [](bool exclusive, bool reverse) {
    OpOptions options;
    options.exclusive = exclusive;
    options.reverse = reverse;
    return RunSingleOutput(OneOp(op::kCumsum, {In({2, 3}), Ints({}, {1})}, {2, 3}, options),
                           {{1, 2, 3, 4, 5, 6}});
  };
  EXPECT_THAT(run(false, false), ElementsAre(1.0f, 3.0f, 6.0f, 4.0f, 9.0f, 15.0f));
  EXPECT_THAT(run(true, false), ElementsAre(0.0f, 1.0f, 3.0f, 0.0f, 4.0f, 9.0f));
  EXPECT_THAT(run(false, true), ElementsAre(6.0f, 5.0f, 3.0f, 15.0f, 11.0f, 6.0f));
  EXPECT_THAT(run(true, true), ElementsAre(5.0f, 3.0f, 0.0f, 11.0f, 6.0f, 0.0f));
}

TEST(Cumsum, AlongTheFirstAxisAndAnAxisOutOfRange) {
  EXPECT_THAT(RunSingleOutput(OneOp(op::kCumsum, {In({2, 3}), Ints({}, {-2})}, {2, 3}),
                              {{1, 2, 3, 4, 5, 6}}),
              ElementsAre(1.0f, 2.0f, 3.0f, 5.0f, 7.0f, 9.0f));
  EXPECT_THAT(TryRun(OneOp(op::kCumsum, {In({2, 3}), Ints({}, {2})}, {2, 3}), {{1, 2, 3, 4, 5, 6}})
                  .message(),
              HasSubstr("axis 2 is out of range for rank 2"));
}

// Inverse pairs checked against each other on shapes and blocks the hand-computed cases do not
// cover: op B undoes op A exactly, so y == x element for element.
ModelBuilder Inverses(int32_t first, int32_t second, std::vector<int32_t> shape,
                      std::vector<int32_t> middle, const OpOptions& options) {
  ModelBuilder b;
  const int x = b.AddTensor("x", shape);
  const int m = b.AddTensor("m", std::move(middle));
  b.AddOperator(first, {x}, {m}, options);
  const int y = b.AddTensor("y", std::move(shape));
  b.AddOperator(second, {m}, {y}, options);
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

TEST(RoundTrips, DepthToSpaceUndoesSpaceToDepth) {
  OpOptions options;
  options.block_size = 3;
  const std::vector<float> x = Iota(2 * 6 * 3 * 2);
  EXPECT_THAT(RunSingleOutput(Inverses(op::kSpaceToDepth, op::kDepthToSpace, {2, 6, 3, 2},
                                       {2, 2, 1, 18}, options),
                              {x}),
              ElementsAreArray(x));
}

TEST(RoundTrips, PackUndoesUnpackOnEveryAxis) {
  for (int32_t axis : {0, 1, 2}) {
    const std::vector<int32_t> shape = {2, 3, 4};
    std::vector<int32_t> part;
    for (int d = 0; d < 3; ++d) {
      if (d != axis) part.push_back(shape[static_cast<size_t>(d)]);
    }
    OpOptions options;
    options.axis = axis;
    options.values_count = shape[static_cast<size_t>(axis)];
    ModelBuilder b;
    const int x = b.AddTensor("x", shape);
    std::vector<int32_t> parts;
    for (int32_t k = 0; k < options.values_count; ++k) {
      parts.push_back(b.AddTensor("p" + std::to_string(k), part));
    }
    b.AddOperator(op::kUnpack, {x}, parts, options);
    const int y = b.AddTensor("y", shape);
    b.AddOperator(op::kPack, parts, {y}, options);
    b.SetInputs({x});
    b.SetOutputs({y});
    EXPECT_THAT(RunSingleOutput(b, {Iota(24)}), ElementsAreArray(Iota(24))) << "axis " << axis;
  }
}

TEST(RoundTrips, ConcatenationUndoesSplitV) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {3, 7});
  const int sizes = b.AddConstantInt32("sizes", {3}, {2, 4, -1});
  const int axis = b.AddConstantInt32("axis", {}, {-1});
  const std::vector<int32_t> widths = {2, 4, 1};
  std::vector<int32_t> parts;
  for (size_t k = 0; k < widths.size(); ++k) {
    parts.push_back(b.AddTensor("p" + std::to_string(k), {3, widths[k]}));
  }
  OpOptions split;
  split.num_splits = 3;
  b.AddOperator(op::kSplitV, {x, sizes, axis}, parts, split);
  const int y = b.AddTensor("y", {3, 7});
  OpOptions concat;
  concat.axis = 1;
  b.AddOperator(op::kConcatenation, parts, {y}, concat);
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_THAT(RunSingleOutput(b, {Iota(21)}), ElementsAreArray(Iota(21)));
}

}  // namespace
}  // namespace trainscope
