// SPDX-License-Identifier: Apache-2.0
//
// Hand-computed forward cases for the forward-only unary element-wise ops (ABS, NEG, SQRT,
// RSQRT, SQUARE, LOG, ELU, FLOOR, CEIL, ROUND, COS, SIN, HARD_SWISH, GELU, ZEROS_LIKE): values
// worked out by hand or from closed forms, the edges of each definition (halves for ROUND, the
// kinks of HARD_SWISH and ELU, the domain ends of SQRT and LOG), and the shape check of Prepare.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/kernels/kernel.h"
#include "tests/engine/kernels/kernel_harness.h"
#include "tests/engine/kernels/op_models.h"

namespace trainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using testing::In;
using testing::OneOp;
using ::testing::Pointwise;
using testing::RunSingleOutput;
using testing::TryRun;

std::vector<float> RunUnary(int32_t opcode, const std::vector<float>& x,
                            const OpOptions& options = {}) {
  const auto n = static_cast<int32_t>(x.size());
  return RunSingleOutput(OneOp(opcode, {In({n})}, {n}, options), {x});
}

TEST(UnaryOps, AbsNegAndSquareAreExact) {
  EXPECT_THAT(RunUnary(op::kAbs, {-2.5f, 0.0f, 3.0f}), ElementsAre(2.5f, 0.0f, 3.0f));
  EXPECT_THAT(RunUnary(op::kNeg, {-2.5f, 0.0f, 3.0f}), ElementsAre(2.5f, -0.0f, -3.0f));
  EXPECT_THAT(RunUnary(op::kSquare, {-3.0f, 0.5f, 4.0f}), ElementsAre(9.0f, 0.25f, 16.0f));
}

TEST(UnaryOps, SqrtAndRsqrtOfPerfectSquares) {
  EXPECT_THAT(RunUnary(op::kSqrt, {0.0f, 0.25f, 4.0f, 9.0f}), ElementsAre(0.0f, 0.5f, 2.0f, 3.0f));
  EXPECT_THAT(RunUnary(op::kRsqrt, {0.25f, 4.0f, 16.0f}), ElementsAre(2.0f, 0.5f, 0.25f));
}

TEST(UnaryOps, SqrtOfANegativeNumberAndRsqrtOfZeroFollowIeee) {
  const std::vector<float> sqrt = RunUnary(op::kSqrt, {-1.0f});
  ASSERT_EQ(sqrt.size(), 1u);
  EXPECT_TRUE(std::isnan(sqrt[0]));
  EXPECT_THAT(RunUnary(op::kRsqrt, {0.0f}), ElementsAre(std::numeric_limits<float>::infinity()));
}

TEST(UnaryOps, LogOfPowersOfE) {
  const float e = 2.718281828f;
  EXPECT_THAT(RunUnary(op::kLog, {1.0f, e, e * e, 0.5f}),
              Pointwise(FloatNear(1e-6f), {0.0f, 1.0f, 2.0f, -0.693147181f}));
  EXPECT_THAT(RunUnary(op::kLog, {0.0f}), ElementsAre(-std::numeric_limits<float>::infinity()));
}

TEST(UnaryOps, EluIsIdentityAboveZeroAndExpMinusOneBelow) {
  EXPECT_THAT(RunUnary(op::kElu, {2.0f, 0.0f, -1.0f, -20.0f}),
              Pointwise(FloatNear(1e-6f), {2.0f, 0.0f, -0.632120559f, -0.999999998f}));
}

TEST(UnaryOps, FloorAndCeilRoundTowardTheInfinities) {
  EXPECT_THAT(RunUnary(op::kFloor, {-1.5f, -1.0f, 0.25f, 2.999f}),
              ElementsAre(-2.0f, -1.0f, 0.0f, 2.0f));
  EXPECT_THAT(RunUnary(op::kCeil, {-1.5f, -1.0f, 0.25f, 2.001f}),
              ElementsAre(-1.0f, -1.0f, 1.0f, 3.0f));
}

TEST(UnaryOps, RoundSendsHalvesToTheEvenNeighbour) {
  EXPECT_THAT(RunUnary(op::kRound, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, -2.6f}),
              ElementsAre(0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f, 2.0f, -3.0f));
}

TEST(UnaryOps, CosAndSinAtMultiplesOfAQuarterTurn) {
  const float pi = 3.14159265f;
  EXPECT_THAT(RunUnary(op::kCos, {0.0f, pi / 2, pi, pi / 3}),
              Pointwise(FloatNear(1e-6f), {1.0f, 0.0f, -1.0f, 0.5f}));
  EXPECT_THAT(RunUnary(op::kSin, {0.0f, pi / 2, -pi / 2, pi / 6}),
              Pointwise(FloatNear(1e-6f), {0.0f, 1.0f, -1.0f, 0.5f}));
}

TEST(UnaryOps, HardSwishIsZeroBelowMinusThreeAndIdentityAboveThree) {
  // x * (x + 3) / 6 in between: -1 -> -1/3, 1 -> 2/3.
  EXPECT_THAT(RunUnary(op::kHardSwish, {-4.0f, -3.0f, -1.0f, 0.0f, 1.0f, 3.0f, 5.0f}),
              Pointwise(FloatNear(1e-6f), {0.0f, 0.0f, -1.0f / 3, 0.0f, 2.0f / 3, 3.0f, 5.0f}));
}

TEST(UnaryOps, GeluExactUsesTheNormalCdf) {
  // x * Phi(x): Phi(1) = 0.841344746, Phi(-1) = 0.158655254, Phi(2) = 0.977249868.
  EXPECT_THAT(RunUnary(op::kGelu, {0.0f, 1.0f, -1.0f, 2.0f}),
              Pointwise(FloatNear(1e-6f), {0.0f, 0.841344746f, -0.158655254f, 1.954499736f}));
}

TEST(UnaryOps, GeluApproximateUsesTheTanhForm) {
  OpOptions options;
  options.approximate = true;
  // 0.5 * (1 + tanh(0.797884561 * 1.044715)) = 0.841191990 for x = 1.
  EXPECT_THAT(RunUnary(op::kGelu, {1.0f, -1.0f}, options),
              Pointwise(FloatNear(1e-6f), {0.841191990f, -0.158808010f}));
}

TEST(UnaryOps, ZerosLikeKeepsTheShapeAndDropsTheValues) {
  EXPECT_THAT(RunSingleOutput(OneOp(op::kZerosLike, {In({2, 2})}, {2, 2}), {{1, -2, 3, 7}}),
              ElementsAreArray({0.0f, 0.0f, 0.0f, 0.0f}));
}

TEST(UnaryOps, ForwardOnlyOpsHaveNoBackwardAndKeepNothing) {
  for (int32_t opcode :
       {op::kAbs, op::kNeg, op::kSqrt, op::kRsqrt, op::kSquare, op::kLog, op::kElu, op::kFloor,
        op::kCeil, op::kRound, op::kCos, op::kSin, op::kHardSwish, op::kGelu, op::kZerosLike}) {
    const OpRegistration* registration = FindRegistration(opcode);
    ASSERT_NE(registration, nullptr) << OpcodeName(opcode);
    EXPECT_EQ(registration->backward, nullptr) << OpcodeName(opcode);
    EXPECT_EQ(registration->backward_reads_inputs, 0u) << OpcodeName(opcode);
    EXPECT_EQ(registration->backward_reads_output, OutputUse::kNever) << OpcodeName(opcode);
  }
}

TEST(UnaryOps, PrepareRejectsAnOutputOfAnotherShape) {
  const Status status = TryRun(OneOp(op::kSqrt, {In({2, 3})}, {3, 2}), {{1, 2, 3, 4, 5, 6}});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("operator 0 (SQRT)"));
}

}  // namespace
}  // namespace trainscope
