// SPDX-License-Identifier: Apache-2.0
//
// Hand-computed forward cases for the forward-only binary ops (DIV, MAXIMUM, MINIMUM,
// SQUARED_DIFFERENCE, FLOOR_DIV, FLOOR_MOD, PRELU) with numpy broadcasting, and ADD_N: the sign
// rules of the floor ops, a fused activation on DIV, a per-channel PRELU slope, and the shape
// checks of Prepare.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/engine/kernels/kernel_harness.h"
#include "tests/engine/kernels/op_models.h"

namespace trainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::In;
using testing::OneOp;
using testing::RunSingleOutput;
using testing::TryRun;

// a is [2, 3], b is [3]: b repeats along the rows of a.
std::vector<float> RunRowBroadcast(int32_t opcode, const std::vector<float>& a,
                                   const std::vector<float>& b, const OpOptions& options = {}) {
  return RunSingleOutput(OneOp(opcode, {In({2, 3}), In({3})}, {2, 3}, options), {a, b});
}

TEST(BinaryOps, DivBroadcastsTheDivisorAlongRows) {
  EXPECT_THAT(RunRowBroadcast(op::kDiv, {1, 4, 9, -2, 8, 3}, {2, 4, -3}),
              ElementsAre(0.5f, 1.0f, -3.0f, -1.0f, 2.0f, -1.0f));
}

TEST(BinaryOps, DivAppliesItsFusedActivation) {
  OpOptions options;
  options.activation = Activation::kRelu;
  EXPECT_THAT(RunRowBroadcast(op::kDiv, {1, 4, 9, -2, 8, 3}, {2, 4, -3}, options),
              ElementsAre(0.5f, 1.0f, 0.0f, 0.0f, 2.0f, 0.0f));
}

TEST(BinaryOps, DivByZeroGivesSignedInfinity) {
  EXPECT_THAT(
      RunSingleOutput(OneOp(op::kDiv, {In({2}), In({1})}, {2}), {{1, -1}, {0}}),
      ElementsAre(std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()));
}

TEST(BinaryOps, MaximumAndMinimumPickPerElement) {
  EXPECT_THAT(RunRowBroadcast(op::kMaximum, {1, 5, -2, 0, 3, 7}, {2, 2, 2}),
              ElementsAre(2.0f, 5.0f, 2.0f, 2.0f, 3.0f, 7.0f));
  EXPECT_THAT(RunRowBroadcast(op::kMinimum, {1, 5, -2, 0, 3, 7}, {2, 2, 2}),
              ElementsAre(1.0f, 2.0f, -2.0f, 0.0f, 2.0f, 2.0f));
}

TEST(BinaryOps, SquaredDifferenceIsTheSquareOfTheDifference) {
  EXPECT_THAT(RunRowBroadcast(op::kSquaredDifference, {1, 5, -2, 0, 3, 7}, {1, 2, 3}),
              ElementsAre(0.0f, 9.0f, 25.0f, 1.0f, 1.0f, 16.0f));
}

TEST(BinaryOps, FloorDivRoundsTowardMinusInfinity) {
  EXPECT_THAT(RunRowBroadcast(op::kFloorDiv, {7, -7, 7, -7, 6, 0.5f}, {2, 2, -2}),
              ElementsAre(3.0f, -4.0f, -4.0f, -4.0f, 3.0f, -1.0f));
}

TEST(BinaryOps, FloorModTakesTheSignOfTheDivisor) {
  // a - floor(a / b) * b: 7 mod 2 = 1, -7 mod 2 = 1, 7 mod -2 = -1, -7 mod 2 = 1, 6 mod 2 = 0,
  // 0.5 mod -2 = -1.5.
  EXPECT_THAT(RunRowBroadcast(op::kFloorMod, {7, -7, 7, -7, 6, 0.5f}, {2, 2, -2}),
              ElementsAre(1.0f, 1.0f, -1.0f, 1.0f, 0.0f, -1.5f));
}

TEST(BinaryOps, PreluScalesNegativeValuesByTheirChannelSlope) {
  // x is [1, 2, 2] (HWC with 2 channels), alpha one slope per channel.
  EXPECT_THAT(RunSingleOutput(OneOp(op::kPrelu, {In({1, 2, 2}), In({2})}, {1, 2, 2}),
                              {{-1, -2, 3, -4}, {0.5f, 0.25f}}),
              ElementsAre(-0.5f, -0.5f, 3.0f, -1.0f));
}

TEST(BinaryOps, PrepareRejectsShapesThatDoNotBroadcast) {
  const Status status =
      TryRun(OneOp(op::kMaximum, {In({2, 3}), In({2})}, {2, 3}), {{1, 2, 3, 4, 5, 6}, {1, 2}});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("do not broadcast"));
}

TEST(AddN, SumsEveryInputInOrder) {
  EXPECT_THAT(RunSingleOutput(OneOp(op::kAddN, {In({3}), In({3}), In({3})}, {3}),
                              {{1, 2, 3}, {10, 20, 30}, {-1, 0.5f, 100}}),
              ElementsAreArray({10.0f, 22.5f, 133.0f}));
}

TEST(AddN, RejectsAnInputOfAnotherShape) {
  const Status status = TryRun(OneOp(op::kAddN, {In({3}), In({1})}, {3}), {{1, 2, 3}, {1}});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("does not broadcast"));
}

}  // namespace
}  // namespace trainscope
