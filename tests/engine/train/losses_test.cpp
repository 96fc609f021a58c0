// SPDX-License-Identifier: Apache-2.0
#include "engine/train/losses.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace trainscope {
namespace {

struct LossCase {
  LossKind kind;
  const char* name;
};

std::vector<double> Uniform(std::mt19937* rng, size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> values(n);
  for (double& v : values) v = dist(*rng);
  return values;
}

// Random outputs/targets inside the region where each loss is smooth (no clamp, no |.| kink).
void RandomSample(LossKind kind, std::mt19937* rng, size_t n, std::vector<double>* y,
                  std::vector<double>* t) {
  switch (kind) {
    case LossKind::kMse:
    case LossKind::kMae:
      *y = Uniform(rng, n, -2.0, 2.0);
      *t = Uniform(rng, n, -2.0, 2.0);
      break;
    case LossKind::kCrossEntropy:
      *y = Uniform(rng, n, 0.05, 1.0);
      *t = Uniform(rng, n, 0.0, 1.0);
      break;
    case LossKind::kBinaryCrossEntropy:
      *y = Uniform(rng, n, 0.05, 0.95);
      *t = Uniform(rng, n, 0.0, 1.0);
      break;
    case LossKind::kSparseCrossEntropy:
      *y = Uniform(rng, n, 0.05, 1.0);
      *t = {static_cast<double>(std::uniform_int_distribution<size_t>(0, n - 1)(*rng))};
      break;
  }
}

class LossGradientTest : public ::testing::TestWithParam<LossCase> {};

TEST_P(LossGradientTest, GradientMatchesCentralFiniteDifferences) {
  const LossKind kind = GetParam().kind;
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t n = 1 + static_cast<size_t>(trial % 7);
    std::vector<double> y, t;
    RandomSample(kind, &rng, n, &y, &t);
    std::vector<double> gradient(n, 0.0);
    double loss = 0.0;
    ASSERT_TRUE(ComputeLoss(kind, y.data(), t.data(), n, &loss, gradient.data()).ok());
    const double h = 1e-6;
    for (size_t i = 0; i < n; ++i) {
      std::vector<double> plus = y, minus = y;
      plus[i] += h;
      minus[i] -= h;
      double loss_plus = 0.0, loss_minus = 0.0;
      ASSERT_TRUE(ComputeLoss(kind, plus.data(), t.data(), n, &loss_plus, nullptr).ok());
      ASSERT_TRUE(ComputeLoss(kind, minus.data(), t.data(), n, &loss_minus, nullptr).ok());
      const double numeric = (loss_plus - loss_minus) / (2.0 * h);
      EXPECT_NEAR(gradient[i], numeric, 1e-6 * std::max(1.0, std::fabs(numeric)))
          << GetParam().name << " trial " << trial << " element " << i;
    }
  }
}

TEST_P(LossGradientTest, GradientIsAddedToTheBuffer) {
  const LossKind kind = GetParam().kind;
  std::mt19937 rng(99);
  std::vector<double> y, t;
  RandomSample(kind, &rng, 4, &y, &t);
  std::vector<double> fresh(4, 0.0), accumulated(4, 1.5);
  ASSERT_TRUE(ComputeLoss(kind, y.data(), t.data(), 4, nullptr, fresh.data()).ok());
  ASSERT_TRUE(ComputeLoss(kind, y.data(), t.data(), 4, nullptr, accumulated.data()).ok());
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(accumulated[i], 1.5 + fresh[i]);
}

INSTANTIATE_TEST_SUITE_P(AllLosses, LossGradientTest,
                         ::testing::Values(LossCase{LossKind::kMse, "mse"},
                                           LossCase{LossKind::kMae, "mae"},
                                           LossCase{LossKind::kCrossEntropy, "ce"},
                                           LossCase{LossKind::kSparseCrossEntropy, "sparse_ce"},
                                           LossCase{LossKind::kBinaryCrossEntropy, "bce"}),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

struct Evaluated {
  float loss = 0.0f;
  std::vector<float> gradient;
};

Evaluated Evaluate(LossKind kind, const std::vector<float>& y, const std::vector<float>& t) {
  Evaluated e;
  e.gradient.assign(y.size(), 0.0f);
  Status status = ComputeLoss(kind, y.data(), t.data(), y.size(), &e.loss, e.gradient.data());
  EXPECT_TRUE(status.ok()) << status.message();
  return e;
}

TEST(LossValues, MseIsMeanSquaredDifferenceWithGradientTwoDiffOverN) {
  // diffs y - t = {0, 2, -2}: L = (0 + 4 + 4) / 3 = 8/3, g = 2 * diff / 3 = {0, 4/3, -4/3}.
  const Evaluated e = Evaluate(LossKind::kMse, {1, 2, 3}, {1, 0, 5});
  EXPECT_FLOAT_EQ(e.loss, 8.0f / 3.0f);
  EXPECT_FLOAT_EQ(e.gradient[0], 0.0f);
  EXPECT_FLOAT_EQ(e.gradient[1], 4.0f / 3.0f);
  EXPECT_FLOAT_EQ(e.gradient[2], -4.0f / 3.0f);
}

TEST(LossValues, MaeIsMeanAbsoluteDifferenceWithSignGradient) {
  // |diffs| = {0, 2, 2}: L = 4/3; g = sign(diff) / 3 = {0, 1/3, -1/3}.
  const Evaluated e = Evaluate(LossKind::kMae, {1, 2, 3}, {1, 0, 5});
  EXPECT_FLOAT_EQ(e.loss, 4.0f / 3.0f);
  EXPECT_FLOAT_EQ(e.gradient[0], 0.0f);
  EXPECT_FLOAT_EQ(e.gradient[1], 1.0f / 3.0f);
  EXPECT_FLOAT_EQ(e.gradient[2], -1.0f / 3.0f);
}

TEST(LossValues, CrossEntropyOfOneHotTargetIsMinusLogOfTrueClass) {
  // L = -ln 0.5 = 0.693147; g = -t / y = {0, -2, 0}.
  const Evaluated e = Evaluate(LossKind::kCrossEntropy, {0.25f, 0.5f, 0.25f}, {0, 1, 0});
  EXPECT_NEAR(e.loss, 0.6931472f, 1e-6f);
  EXPECT_FLOAT_EQ(e.gradient[0], 0.0f);
  EXPECT_FLOAT_EQ(e.gradient[1], -2.0f);
  EXPECT_FLOAT_EQ(e.gradient[2], 0.0f);
}

TEST(LossValues, CrossEntropyAcceptsSoftTargets) {
  // L = -0.5 ln 0.2 - 0.5 ln 0.8 = 0.5 * (1.609438 + 0.223144) = 0.916291;
  // g = {-0.5 / 0.2, -0.5 / 0.8} = {-2.5, -0.625}.
  const Evaluated e = Evaluate(LossKind::kCrossEntropy, {0.2f, 0.8f}, {0.5f, 0.5f});
  EXPECT_NEAR(e.loss, 0.916291f, 1e-6f);
  EXPECT_FLOAT_EQ(e.gradient[0], -2.5f);
  EXPECT_FLOAT_EQ(e.gradient[1], -0.625f);
}

TEST(LossValues, SparseCrossEntropyUsesTheClassIndexTarget) {
  // Class 1: L = -ln 0.7 = 0.356675; g[1] = -1 / 0.7 = -1.428571, the others 0.
  const Evaluated e = Evaluate(LossKind::kSparseCrossEntropy, {0.1f, 0.7f, 0.2f}, {1.0f});
  EXPECT_NEAR(e.loss, 0.3566749f, 1e-6f);
  EXPECT_FLOAT_EQ(e.gradient[0], 0.0f);
  EXPECT_NEAR(e.gradient[1], -1.4285714f, 1e-6f);
  EXPECT_FLOAT_EQ(e.gradient[2], 0.0f);
}

TEST(LossValues, BinaryCrossEntropyIsMeanOverElements) {
  // L = -(ln 0.8 + ln(1 - 0.4)) / 2 = (0.223144 + 0.510826) / 2 = 0.366985;
  // g = (q - t) / (q (1 - q) N) = {-0.2 / 0.32, 0.4 / 0.48} = {-0.625, 0.833333}.
  const Evaluated e = Evaluate(LossKind::kBinaryCrossEntropy, {0.8f, 0.4f}, {1.0f, 0.0f});
  EXPECT_NEAR(e.loss, 0.366985f, 1e-6f);
  EXPECT_FLOAT_EQ(e.gradient[0], -0.625f);
  EXPECT_NEAR(e.gradient[1], 0.8333333f, 1e-6f);
}

TEST(LossValues, ZeroProbabilityIsClampedSoValueAndAdamSecondMomentStayFinite) {
  // y = 0 for the true class: L = -ln 1e-7 = 16.118096, g = -1e7 (onert-micro: -1e31, whose
  // square overflows float).
  const Evaluated e = Evaluate(LossKind::kCrossEntropy, {0.0f, 1.0f}, {1.0f, 0.0f});
  EXPECT_NEAR(e.loss, 16.118096f, 1e-4f);
  EXPECT_FLOAT_EQ(e.gradient[0], -1e7f);
  EXPECT_TRUE(std::isfinite(e.gradient[0] * e.gradient[0]));

  const Evaluated sparse = Evaluate(LossKind::kSparseCrossEntropy, {1.0f, 0.0f}, {1.0f});
  EXPECT_FLOAT_EQ(sparse.gradient[1], -1e7f);
  const Evaluated binary = Evaluate(LossKind::kBinaryCrossEntropy, {1.0f}, {0.0f});
  EXPECT_TRUE(std::isfinite(binary.loss));
  EXPECT_TRUE(std::isfinite(binary.gradient[0]));
}

TEST(LossValues, SparseTargetTakesOneValuePerSample) {
  EXPECT_EQ(TargetElementCount(LossKind::kSparseCrossEntropy, 10), 1u);
  EXPECT_EQ(TargetElementCount(LossKind::kCrossEntropy, 10), 10u);
  EXPECT_EQ(TargetElementCount(LossKind::kMse, 3), 3u);
}

TEST(LossErrors, SparseLabelMustBeAnIntegerClassInRange) {
  const std::vector<float> y = {0.2f, 0.3f, 0.5f};
  float loss = 0.0f;
  for (float bad : {1.5f, -1.0f, 3.0f, std::nanf(""), INFINITY}) {
    std::vector<float> grad(3, 0.0f);
    Status status =
        ComputeLoss(LossKind::kSparseCrossEntropy, y.data(), &bad, 3, &loss, grad.data());
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(std::string(status.message()).find("sparse-ce"), std::string::npos);
    EXPECT_EQ(grad, std::vector<float>(3, 0.0f)) << "a refused label must not touch the gradient";
  }
}

TEST(LossErrors, EmptyOutputsNullPointersAndUnknownKindsAreRefused) {
  const float y[2] = {0.5f, 0.5f};
  float loss = 0.0f;
  EXPECT_EQ(ComputeLoss(LossKind::kMse, y, y, 0, &loss, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeLoss(LossKind::kMse, nullptr, y, 2, &loss, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeLoss(static_cast<LossKind>(9), y, y, 2, &loss, nullptr).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trainscope
