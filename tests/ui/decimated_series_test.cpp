// SPDX-License-Identifier: Apache-2.0
#include "ui/session/decimated_series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace trainscope {
namespace {

TEST(DecimatedSeries, KeepsEveryPointWhileUnderTheBudget) {
  DecimatedSeries series(16);
  for (int i = 0; i < 10; ++i) series.append(i, i * i);
  ASSERT_EQ(series.buckets().size(), 10u);
  for (int i = 0; i < 10; ++i) {
    const SeriesBucket& bucket = series.buckets()[static_cast<size_t>(i)];
    EXPECT_EQ(bucket.x_first, i);
    EXPECT_EQ(bucket.y_min, i * i);
    EXPECT_EQ(bucket.y_max, i * i);
  }
}

TEST(DecimatedSeries, StaysWithinBudgetAndKeepsSpikesAndDips) {
  DecimatedSeries series(64);
  std::mt19937 random(7);
  std::uniform_real_distribution<double> noise(-1.0, 1.0);
  for (int i = 0; i < 100000; ++i) {
    double y = noise(random);
    if (i == 77777) y = 1e6;
    if (i == 123) y = -1e6;
    series.append(i, y);
  }
  ASSERT_LE(series.buckets().size(), 64u);
  bool spike_found = false;
  bool dip_found = false;
  for (const SeriesBucket& bucket : series.buckets()) {
    if (bucket.x_first <= 77777 && 77777 <= bucket.x_last) spike_found = bucket.y_max == 1e6;
    if (bucket.x_first <= 123 && 123 <= bucket.x_last) dip_found = bucket.y_min == -1e6;
  }
  EXPECT_TRUE(spike_found);
  EXPECT_TRUE(dip_found);
  EXPECT_EQ(series.maximum(), 1e6);
  EXPECT_EQ(series.minimum(), -1e6);
}

TEST(DecimatedSeries, BucketsCoverEverySampleOnceInOrder) {
  DecimatedSeries series(10);
  double raw_sum = 0.0;
  for (int i = 0; i < 1003; ++i) {
    series.append(i, 0.5 * i);
    raw_sum += 0.5 * i;
  }
  uint64_t samples = 0;
  double sum = 0.0;
  double next_x = 0.0;
  for (const SeriesBucket& bucket : series.buckets()) {
    EXPECT_EQ(bucket.x_first, next_x);
    next_x = bucket.x_last + 1.0;
    samples += bucket.sample_count;
    sum += bucket.y_sum;
  }
  EXPECT_EQ(samples, 1003u);
  EXPECT_EQ(next_x, 1003.0);
  EXPECT_DOUBLE_EQ(sum, raw_sum);
}

TEST(DecimatedSeries, CountsNanAndInfWithoutTouchingTheScale) {
  DecimatedSeries series(8);
  series.append(0, 1.0);
  series.append(1, std::numeric_limits<double>::quiet_NaN());
  series.append(2, std::numeric_limits<double>::infinity());
  series.append(3, -std::numeric_limits<double>::infinity());
  series.append(4, 2.0);
  EXPECT_EQ(series.nanCount(), 1u);
  EXPECT_EQ(series.infCount(), 2u);
  EXPECT_EQ(series.minimum(), 1.0);
  EXPECT_EQ(series.maximum(), 2.0);
  ASSERT_EQ(series.nonFinitePoints().size(), 3u);
  EXPECT_EQ(series.nonFinitePoints()[0].x, 1.0);
  EXPECT_TRUE(series.nonFinitePoints()[0].is_nan);
  EXPECT_FALSE(series.nonFinitePoints()[1].is_nan);
}

TEST(DecimatedSeries, NonFiniteSamplesKeepTheirPlaceAfterHeavyDecimation) {
  DecimatedSeries series(16, /*non_finite_budget=*/2);
  for (int i = 0; i < 50000; ++i) {
    const bool bad = i == 10 || i == 20 || i == 40000;
    series.append(i, bad ? std::nan("") : 1.0);
  }
  EXPECT_EQ(series.nanCount(), 3u);
  EXPECT_EQ(series.nonFinitePoints().size(), 2u);  // exact positions are bounded ...
  uint64_t counted = 0;
  bool late_one_located = false;
  for (const SeriesBucket& bucket : series.buckets()) {
    counted += bucket.nan_count;
    if (bucket.x_first <= 40000 && 40000 <= bucket.x_last) late_one_located = bucket.nan_count == 1;
  }
  EXPECT_EQ(counted, 3u);  // ... but every one is still in the bucket that covers it
  EXPECT_TRUE(late_one_located);
}

TEST(DecimatedSeries, TinyOrOddBudgetsStillBound) {
  DecimatedSeries series(3);
  for (int i = 0; i < 1000; ++i) series.append(i, i);
  EXPECT_LE(series.buckets().size(), 3u);
  EXPECT_EQ(series.sampleCount(), 1000u);
}

}  // namespace
}  // namespace trainscope
