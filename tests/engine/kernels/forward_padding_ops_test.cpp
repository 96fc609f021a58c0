// SPDX-License-Identifier: Apache-2.0
//
// Hand-computed forward cases for the forward-only padding and indexing ops: PADV2 (fill value),
// MIRROR_PAD (REFLECT and SYMMETRIC, and their limits), FILL, GATHER_ND, SPACE_TO_BATCH_ND and
// BATCH_TO_SPACE_ND (TFLite's documented 4x4 example, padding and cropping), and the custom
// BroadcastTo.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/model/model_builder.h"

#include "tests/engine/kernels/kernel_harness.h"
#include "tests/engine/kernels/op_models.h"

namespace trainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::In;
using testing::Ints;
using testing::OneOp;
using testing::RunSingleOutput;
using testing::TryRun;

std::vector<float> Iota(int count, float from = 0.0f) {
  std::vector<float> values(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) values[static_cast<size_t>(i)] = from + static_cast<float>(i);
  return values;
}

TEST(PadV2, FillsWithTheGivenValue) {
  EXPECT_THAT(RunSingleOutput(OneOp(op::kPadV2, {In({2}), Ints({1, 2}, {1, 2}), In({1})}, {5}),
                              {{1, 2}, {-7}}),
              ElementsAre(-7.0f, 1.0f, 2.0f, -7.0f, -7.0f));
}

TEST(PadV2, PaddingsThatDoNotGiveTheOutputShapeAreRefused) {
  EXPECT_THAT(
      TryRun(OneOp(op::kPadV2, {In({2}), Ints({1, 2}, {1, 1}), In({1})}, {5}), {{1, 2}, {0}})
          .message(),
      HasSubstr("paddings (1, 1) of dimension 0 do not turn size 2 into the output's 5"));
}

TEST(MirrorPad, ReflectLeavesTheEdgeOutAndSymmetricRepeatsIt) {
  OpOptions reflect;
  EXPECT_THAT(RunSingleOutput(OneOp(op::kMirrorPad, {In({3}), Ints({1, 2}, {2, 1})}, {6}, reflect),
                              {{1, 2, 3}}),
              ElementsAre(3.0f, 2.0f, 1.0f, 2.0f, 3.0f, 2.0f));
  OpOptions symmetric;
  symmetric.mirror_symmetric = true;
  EXPECT_THAT(
      RunSingleOutput(OneOp(op::kMirrorPad, {In({3}), Ints({1, 2}, {2, 1})}, {6}, symmetric),
                      {{1, 2, 3}}),
      ElementsAre(2.0f, 1.0f, 1.0f, 2.0f, 3.0f, 3.0f));
}

TEST(MirrorPad, MirrorsEveryDimension) {
  // [[1, 2], [3, 4]] by one on each side, REFLECT: the corners come from the opposite corner.
  EXPECT_THAT(
      RunSingleOutput(OneOp(op::kMirrorPad, {In({2, 2}), Ints({2, 2}, {1, 0, 0, 1})}, {3, 3}),
                      {{1, 2, 3, 4}}),
      ElementsAre(3.0f, 4.0f, 3.0f, 1.0f, 2.0f, 1.0f, 3.0f, 4.0f, 3.0f));
}

TEST(MirrorPad, ReflectCannotPadByTheWholeSize) {
  EXPECT_THAT(
      TryRun(OneOp(op::kMirrorPad, {In({2}), Ints({1, 2}, {2, 0})}, {4}), {{1, 2}}).message(),
      HasSubstr("exceed 1, the most a REFLECT mirror of size 2 allows"));
}

TEST(Fill, EveryElementIsTheValue) {
  EXPECT_THAT(RunSingleOutput(OneOp(op::kFill, {Ints({2}, {2, 2}), In({1})}, {2, 2}), {{1.5f}}),
              ElementsAre(1.5f, 1.5f, 1.5f, 1.5f));
  EXPECT_THAT(TryRun(OneOp(op::kFill, {Ints({2}, {2, 3}), In({1})}, {2, 2}), {{1.5f}}).message(),
              HasSubstr("dims[1] is 3 but the graph's output has 2 there"));
}

TEST(GatherNd, FullTuplesPickElementsAndShortTuplesPickRows) {
  // params [[0, 1, 2], [3, 4, 5]].
  EXPECT_THAT(RunSingleOutput(OneOp(op::kGatherNd, {In({2, 3}), Ints({2, 2}, {1, 2, 0, 1})}, {2}),
                              {Iota(6)}),
              ElementsAre(5.0f, 1.0f));
  EXPECT_THAT(
      RunSingleOutput(OneOp(op::kGatherNd, {In({2, 3}), Ints({2, 1}, {1, 0})}, {2, 3}), {Iota(6)}),
      ElementsAre(3.0f, 4.0f, 5.0f, 0.0f, 1.0f, 2.0f));
}

TEST(GatherNd, AnIndexOutsideItsDimensionIsARunTimeError) {
  EXPECT_THAT(
      TryRun(OneOp(op::kGatherNd, {In({2, 3}), Ints({1, 2}, {1, 3})}, {1}), {Iota(6)}).message(),
      HasSubstr("index tuple 0 has 3 at position 1; dimension 1 has size 3"));
}

TEST(SpaceToBatchNd, TilesOfTheImageBecomeBatchEntries) {
  // TFLite's example: 4x4 values 1..16, block 2x2.
  const std::vector<float> y = RunSingleOutput(
      OneOp(op::kSpaceToBatchNd, {In({1, 4, 4, 1}), Ints({2}, {2, 2}), Ints({2, 2}, {0, 0, 0, 0})},
            {4, 2, 2, 1}),
      {Iota(16, 1.0f)});
  EXPECT_THAT(y, ElementsAreArray({1.0f, 3.0f, 9.0f, 11.0f, 2.0f, 4.0f, 10.0f, 12.0f, 5.0f, 7.0f,
                                   13.0f, 15.0f, 6.0f, 8.0f, 14.0f, 16.0f}));
}

TEST(SpaceToBatchNd, PaddingFillsWithZerosOnOneSpatialDimension) {
  // [1, 2, 3] padded to [0, 1, 2, 3], block 2: even positions, then odd ones.
  EXPECT_THAT(
      RunSingleOutput(OneOp(op::kSpaceToBatchNd,
                            {In({1, 3, 1}), Ints({1}, {2}), Ints({1, 2}, {1, 0})}, {2, 2, 1}),
                      {{1, 2, 3}}),
      ElementsAre(0.0f, 2.0f, 1.0f, 3.0f));
}

TEST(BatchToSpaceNd, IsTheInverseAndCrops) {
  const std::vector<float> y = RunSingleOutput(
      OneOp(op::kBatchToSpaceNd, {In({4, 2, 2, 1}), Ints({2}, {2, 2}), Ints({2, 2}, {0, 0, 0, 0})},
            {1, 4, 4, 1}),
      {{1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16}});
  EXPECT_THAT(y, ElementsAreArray(Iota(16, 1.0f)));
  EXPECT_THAT(
      RunSingleOutput(OneOp(op::kBatchToSpaceNd,
                            {In({2, 2, 1}), Ints({1}, {2}), Ints({1, 2}, {1, 0})}, {1, 3, 1}),
                      {{0, 2, 1, 3}}),
      ElementsAre(1.0f, 2.0f, 3.0f));
}

TEST(BatchToSpaceNd, ABlockThatDoesNotRelateTheShapesIsRefused) {
  EXPECT_THAT(
      TryRun(OneOp(op::kBatchToSpaceNd, {In({2, 2, 1}), Ints({1}, {3}), Ints({1, 2}, {0, 0})},
                   {1, 4, 1}),
             {{0, 1, 2, 3}})
          .message(),
      HasSubstr("does not relate the spatial shape [1, 4, 1] to the batched shape [2, 2, 1]"));
}

ModelBuilder BroadcastToModel(std::vector<int32_t> in, std::vector<int32_t> shape,
                              std::vector<int32_t> out, const std::string& custom_code) {
  ModelBuilder b;
  const int x = b.AddTensor("x", std::move(in));
  const auto rank = static_cast<int32_t>(shape.size());
  const int target = b.AddConstantInt32("shape", {rank}, shape);
  const int y = b.AddTensor("y", std::move(out));
  b.AddCustomOperator(custom_code, {x, target}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

TEST(BroadcastTo, RepeatsRowsAndColumnsTheNumpyWay) {
  EXPECT_THAT(RunSingleOutput(BroadcastToModel({3}, {2, 3}, {2, 3}, "BroadcastTo"), {{1, 2, 3}}),
              ElementsAre(1.0f, 2.0f, 3.0f, 1.0f, 2.0f, 3.0f));
  EXPECT_THAT(RunSingleOutput(BroadcastToModel({2, 1}, {2, 3}, {2, 3}, "BroadcastTo"), {{1, 2}}),
              ElementsAre(1.0f, 1.0f, 1.0f, 2.0f, 2.0f, 2.0f));
}

TEST(BroadcastTo, AShapeOperandThatDisagreesAndOtherCustomCodesAreRefused) {
  EXPECT_THAT(TryRun(BroadcastToModel({3}, {3, 3}, {2, 3}, "BroadcastTo"), {{1, 2, 3}}).message(),
              HasSubstr("shape[0] is 3 but the graph's output has 2 there"));
  EXPECT_THAT(TryRun(BroadcastToModel({2}, {2, 3}, {2, 3}, "BroadcastTo"), {{1, 2}}).message(),
              HasSubstr("input shape [2] does not broadcast to the output's [2, 3]"));
  EXPECT_STREQ(TryRun(BroadcastToModel({3}, {2, 3}, {2, 3}, "Tile"), {{1, 2, 3}}).message(),
               "unsupported operator CUSTOM 'Tile' at index 0");
}

TEST(BatchToSpaceNd, UndoesSpaceToBatchNdWithCropsEqualToThePaddings) {
  // x [2, 3, 5, 2] padded to 4 x 6, blocks 2 x 3 -> [12, 2, 2, 2] and back.
  ModelBuilder b;
  const int x = b.AddTensor("x", {2, 3, 5, 2});
  const int block = b.AddConstantInt32("block", {2}, {2, 3});
  const int pads = b.AddConstantInt32("pads", {2, 2}, {1, 0, 0, 1});
  const int batched = b.AddTensor("batched", {12, 2, 2, 2});
  b.AddOperator(op::kSpaceToBatchNd, {x, block, pads}, {batched});
  const int y = b.AddTensor("y", {2, 3, 5, 2});
  b.AddOperator(op::kBatchToSpaceNd, {batched, block, pads}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_THAT(RunSingleOutput(b, {Iota(60, 1.0f)}), ElementsAreArray(Iota(60, 1.0f)));
}

}  // namespace
}  // namespace trainscope
