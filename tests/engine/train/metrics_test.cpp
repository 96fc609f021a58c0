// SPDX-License-Identifier: Apache-2.0
#include "engine/train/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace trainscope {
namespace {

float Metric(MetricKind kind, const std::vector<float>& y, const std::vector<float>& t) {
  float value = -1.0f;
  Status status = ComputeMetric(kind, y.data(), t.data(), y.size(), &value);
  EXPECT_TRUE(status.ok()) << status.message();
  return value;
}

TEST(MetricValues, MseAndMaeAreMeansOverTheOutput) {
  // diffs {0, 2, -2}: MSE (0 + 4 + 4) / 3 = 8/3, MAE (0 + 2 + 2) / 3 = 4/3.
  EXPECT_FLOAT_EQ(Metric(MetricKind::kMse, {1, 2, 3}, {1, 0, 5}), 8.0f / 3.0f);
  EXPECT_FLOAT_EQ(Metric(MetricKind::kMae, {1, 2, 3}, {1, 0, 5}), 4.0f / 3.0f);
}

TEST(MetricValues, CrossEntropyIsMinusTargetWeightedLog) {
  // -(1 * ln 0.5) = 0.693147; soft target: -(0.5 ln 0.2 + 0.5 ln 0.8) = 0.916291.
  EXPECT_NEAR(Metric(MetricKind::kCrossEntropy, {0.25f, 0.5f, 0.25f}, {0, 1, 0}), 0.6931472f,
              1e-6f);
  EXPECT_NEAR(Metric(MetricKind::kCrossEntropy, {0.2f, 0.8f}, {0.5f, 0.5f}), 0.916291f, 1e-6f);
}

TEST(MetricValues, AccuracyComparesArgmaxAndTheFirstMaximumWins) {
  // argmax {0.1, 0.7, 0.7} = 1 (first of the tie) = argmax of the target -> 1.
  EXPECT_EQ(Metric(MetricKind::kAccuracy, {0.1f, 0.7f, 0.7f}, {0, 1, 0}), 1.0f);
  // argmax {0.7, 0.1, 0.7} = 0, target class 2 -> 0.
  EXPECT_EQ(Metric(MetricKind::kAccuracy, {0.7f, 0.1f, 0.7f}, {0, 0, 1}), 0.0f);
}

TEST(MetricValues, SparseAccuracyComparesArgmaxWithTheClassIndex) {
  EXPECT_EQ(Metric(MetricKind::kSparseCrossEntropyAccuracy, {0.1f, 0.2f, 0.7f}, {2.0f}), 1.0f);
  EXPECT_EQ(Metric(MetricKind::kSparseCrossEntropyAccuracy, {0.1f, 0.2f, 0.7f}, {1.0f}), 0.0f);
}

TEST(MetricValues, ArgMaxSkipsNanAndReportsAllNanAsNoPrediction) {
  const float mixed[3] = {std::nanf(""), 0.2f, 0.5f};
  const float all_nan[2] = {std::nanf(""), std::nanf("")};
  EXPECT_EQ(ArgMax(mixed, 3), 2);
  EXPECT_EQ(ArgMax(all_nan, 2), -1);
  EXPECT_EQ(ArgMax(mixed, 0), -1);
  // A NaN prediction never counts as correct, even against a target whose argmax is 0.
  EXPECT_EQ(Metric(MetricKind::kAccuracy, {std::nanf(""), std::nanf("")}, {1, 0}), 0.0f);
}

TEST(DataSetMetric, AveragesPerSampleValuesOverTheSamples) {
  // Per-sample MSE: sample 0 diffs {1, 1} -> 1; sample 1 diffs {3, -3} -> 9; mean = 5.
  const std::vector<float> outputs = {1, 1, 3, -3};
  const std::vector<float> targets = {0, 0, 0, 0};
  float value = 0.0f;
  ASSERT_TRUE(
      ComputeDataSetMetric(MetricKind::kMse, outputs.data(), targets.data(), 2, 2, &value).ok());
  EXPECT_FLOAT_EQ(value, 5.0f);
}

TEST(DataSetMetric, AccuracyCountsCorrectSamples) {
  // Predictions 0, 1, 0 against one-hot classes 0, 1, 1: 2 of 3 correct.
  const std::vector<float> outputs = {0.9f, 0.1f, 0.2f, 0.8f, 0.6f, 0.4f};
  const std::vector<float> targets = {1, 0, 0, 1, 0, 1};
  float value = 0.0f;
  ASSERT_TRUE(
      ComputeDataSetMetric(MetricKind::kAccuracy, outputs.data(), targets.data(), 2, 3, &value)
          .ok());
  EXPECT_FLOAT_EQ(value, 2.0f / 3.0f);
}

TEST(DataSetMetric, SparseAccuracyStepsThroughOneTargetPerSample) {
  // Same predictions 0, 1, 0 with labels {0, 1, 1} stored one float per sample: 2/3.
  // (Stepping by the output size, as onert-micro does, would read labels 0 and 1 and then
  // run past the end.)
  const std::vector<float> outputs = {0.9f, 0.1f, 0.2f, 0.8f, 0.6f, 0.4f};
  const std::vector<float> labels = {0, 1, 1};
  float value = 0.0f;
  ASSERT_TRUE(ComputeDataSetMetric(MetricKind::kSparseCrossEntropyAccuracy, outputs.data(),
                                   labels.data(), 2, 3, &value)
                  .ok());
  EXPECT_FLOAT_EQ(value, 2.0f / 3.0f);
  EXPECT_EQ(TargetElementCount(MetricKind::kSparseCrossEntropyAccuracy, 2), 1u);
}

TEST(MetricErrors, BadLabelsNoneEmptyInputsAreRefusedWithTheSample) {
  float value = 0.0f;
  const float y[2] = {0.3f, 0.7f};
  const float bad_label = 1.5f;
  EXPECT_EQ(ComputeMetric(MetricKind::kSparseCrossEntropyAccuracy, y, &bad_label, 2, &value).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeMetric(MetricKind::kNone, y, y, 2, &value).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeMetric(MetricKind::kMse, y, y, 0, &value).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeDataSetMetric(MetricKind::kMse, y, y, 2, 0, &value).code(),
            StatusCode::kInvalidArgument);

  const float labels[2] = {1.0f, 7.0f};
  const float outputs[4] = {0.1f, 0.9f, 0.5f, 0.5f};
  Status status =
      ComputeDataSetMetric(MetricKind::kSparseCrossEntropyAccuracy, outputs, labels, 2, 2, &value);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("sample 1"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace trainscope
