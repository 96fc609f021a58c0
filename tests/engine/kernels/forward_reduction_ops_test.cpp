// SPDX-License-Identifier: Apache-2.0
//
// Hand-computed forward cases for the forward-only reductions (SUM, REDUCE_MAX, REDUCE_MIN,
// REDUCE_PROD: axes, keep_dims, negative and repeated axes, the run-time axis check) and the
// row-wise normalisations LOG_SOFTMAX and L2_NORMALIZATION.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/engine/kernels/kernel_harness.h"
#include "tests/engine/kernels/op_models.h"

namespace trainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using testing::In;
using testing::Ints;
using testing::OneOp;
using ::testing::Pointwise;
using testing::RunSingleOutput;
using testing::TryRun;

// x = [[1, -2, 3], [4, 5, -6]].
const std::vector<float> kMatrix = {1, -2, 3, 4, 5, -6};

std::vector<float> Reduce(int32_t opcode, std::vector<int32_t> axes, std::vector<int32_t> out,
                          bool keep_dims = false) {
  OpOptions options;
  options.keep_dims = keep_dims;
  const auto n = static_cast<int32_t>(axes.size());
  return RunSingleOutput(
      OneOp(opcode, {In({2, 3}), Ints({n}, std::move(axes))}, std::move(out), options), {kMatrix});
}

TEST(Reductions, SumOverRowsAndColumns) {
  EXPECT_THAT(Reduce(op::kSum, {1}, {2}), ElementsAre(2.0f, 3.0f));
  EXPECT_THAT(Reduce(op::kSum, {0}, {3}), ElementsAre(5.0f, 3.0f, -3.0f));
  EXPECT_THAT(Reduce(op::kSum, {0, 1}, {}), ElementsAre(5.0f));
}

TEST(Reductions, KeepDimsLeavesSizeOneDimensions) {
  EXPECT_THAT(Reduce(op::kSum, {1}, {2, 1}, /*keep_dims=*/true), ElementsAre(2.0f, 3.0f));
}

TEST(Reductions, NegativeAndRepeatedAxesNameTheSameDimension) {
  EXPECT_THAT(Reduce(op::kSum, {-1, 1}, {2}), ElementsAre(2.0f, 3.0f));
}

TEST(Reductions, MaxMinAndProdPerRow) {
  EXPECT_THAT(Reduce(op::kReduceMax, {1}, {2}), ElementsAre(3.0f, 5.0f));
  EXPECT_THAT(Reduce(op::kReduceMin, {1}, {2}), ElementsAre(-2.0f, -6.0f));
  EXPECT_THAT(Reduce(op::kReduceProd, {1}, {2}), ElementsAre(-6.0f, -120.0f));
  EXPECT_THAT(Reduce(op::kReduceMax, {0}, {3}), ElementsAre(4.0f, 5.0f, 3.0f));
}

TEST(Reductions, MaxOfAllNegativeValuesIsNotZero) {
  EXPECT_THAT(RunSingleOutput(OneOp(op::kReduceMax, {In({3}), Ints({1}, {0})}, {}), {{-3, -1, -2}}),
              ElementsAre(-1.0f));
}

TEST(Reductions, AnAxisOutOfRangeIsARunTimeError) {
  const Status status =
      TryRun(OneOp(op::kReduceProd, {In({2, 3}), Ints({1}, {2})}, {2}), {kMatrix});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("axis 2 is out of range for rank 2"));
}

TEST(Reductions, AnOutputShapeThatIsNotTheReducedShapeIsRefused) {
  const Status status = TryRun(OneOp(op::kSum, {In({2, 3}), Ints({1}, {0})}, {2}), {kMatrix});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("the axes give output shape [3]"));
}

TEST(LogSoftmax, RowsAreLogProbabilities) {
  // Row [0, ln 2, ln 3, ln 4]: exp sums to 10, so y = x - ln 10. Row [5, 5, 5, 5]: -ln 4.
  const std::vector<float> y =
      RunSingleOutput(OneOp(op::kLogSoftmax, {In({2, 4})}, {2, 4}),
                      {{0.0f, std::log(2.0f), std::log(3.0f), std::log(4.0f), 5, 5, 5, 5}});
  const float ln10 = std::log(10.0f);
  const float ln4 = std::log(4.0f);
  EXPECT_THAT(y, Pointwise(FloatNear(1e-6f), {-ln10, std::log(2.0f) - ln10, std::log(3.0f) - ln10,
                                              ln4 - ln10, -ln4, -ln4, -ln4, -ln4}));
}

TEST(LogSoftmax, LargeValuesDoNotOverflow) {
  const std::vector<float> y =
      RunSingleOutput(OneOp(op::kLogSoftmax, {In({2})}, {2}), {{1000.0f, 1000.0f}});
  EXPECT_THAT(y, Pointwise(FloatNear(1e-6f), {-std::log(2.0f), -std::log(2.0f)}));
}

TEST(L2Normalization, RowsGetUnitLength) {
  // [3, 4] has norm 5; [0, 0] stays zero (the norm is floored at 1e-6, no NaN).
  EXPECT_THAT(RunSingleOutput(OneOp(op::kL2Normalization, {In({2, 2})}, {2, 2}), {{3, 4, 0, 0}}),
              Pointwise(FloatNear(1e-7f), {0.6f, 0.8f, 0.0f, 0.0f}));
}

TEST(L2Normalization, AppliesItsFusedActivation) {
  OpOptions options;
  options.activation = Activation::kRelu;
  EXPECT_THAT(
      RunSingleOutput(OneOp(op::kL2Normalization, {In({1, 2})}, {1, 2}, options), {{-3, 4}}),
      Pointwise(FloatNear(1e-7f), {0.0f, 0.8f}));
}

}  // namespace
}  // namespace trainscope
