// SPDX-License-Identifier: Apache-2.0
#include "engine/train/square_sums.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace trainscope {
namespace {

double ReferenceSquares(const std::vector<float>& values) {
  double total = 0.0;
  for (float v : values) total += static_cast<double>(v) * v;
  return total;
}

std::vector<float> Normal(size_t count, float sigma, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, sigma);
  std::vector<float> values(count);
  for (float& v : values) v = normal(rng);
  return values;
}

// Float lanes: every length around the lane runs and the chunks, to a few float roundings.
TEST(SquareSums, FloatLanesAgreeWithADoubleSumToAFewMillionths) {
  for (size_t count : {0u, 1u, 31u, 32u, 33u, 1023u, 1024u, 1025u, 5000u, 100352u}) {
    const std::vector<float> values = Normal(count, 0.05f, static_cast<uint32_t>(count));
    const double want = ReferenceSquares(values);
    SCOPED_TRACE("count " + std::to_string(count));
    EXPECT_NEAR(SumOfSquares(values.data(), count), want, want * 4e-6);
    EXPECT_NEAR(SumOfSquaresInDouble(values.data(), count), want, want * 1e-12);
  }
}

// Squares that overflow float (3e20² = 9e40) or underflow it (1e-30² = 1e-60), in one chunk of
// otherwise ordinary values: that chunk is summed again in double, the others are not needed to.
TEST(SquareSums, ChunksOutOfFloatRangeAreSummedInDouble) {
  for (float extreme : {3e20f, -4e25f, 1e-30f, 1e-44f}) {
    std::vector<float> values = Normal(4096, 0.05f, 3);
    // The second chunk holds only the extreme value, or tiny ones, which must not vanish.
    for (size_t i = 1024; i < 2048; ++i) values[i] = std::fabs(extreme) < 1.0f ? extreme : 0.0f;
    values[1500] = extreme;
    const double want = ReferenceSquares(values);
    SCOPED_TRACE("extreme " + std::to_string(extreme));
    EXPECT_NEAR(SumOfSquares(values.data(), values.size()), want, want * 4e-6);
    EXPECT_GT(SumOfSquares(values.data() + 1024, 1024), 0.0);
  }
  // All tiny: a float sum would give 0.
  const std::vector<float> tiny(2000, 1e-25f);
  EXPECT_NEAR(SumOfSquares(tiny.data(), tiny.size()), 2000 * 1e-50, 2000 * 1e-50 * 1e-6);
}

TEST(SquareSums, NanAndInfAreNotLost) {
  std::vector<float> values = Normal(3000, 0.05f, 4);
  values[2000] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(SumOfSquares(values.data(), values.size())));
  values[2000] = -std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isinf(SumOfSquares(values.data(), values.size())));
  const std::vector<float> zeros(3000, 0.0f);
  EXPECT_EQ(SumOfSquares(zeros.data(), zeros.size()), 0.0);
}

TEST(SquareSums, DifferencesAreTakenInFloatAndSquaredInDouble) {
  const std::vector<float> a = Normal(1000, 1.0f, 5), b = Normal(1000, 1.0f, 6);
  double want = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    const float difference = a[i] - b[i];
    want += static_cast<double>(difference) * difference;
  }
  EXPECT_NEAR(SumOfSquaredDifferencesInDouble(a.data(), b.data(), a.size()), want, want * 1e-12);
}

TEST(SquareSums, LanesAreTrustedOnlyWhenFiniteAndAboveTheUnderflowZone) {
  std::vector<float> lanes(8, 1e-3f);
  EXPECT_TRUE(SquareLanesAreTrusted(lanes.data(), lanes.size()));
  lanes[3] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(SquareLanesAreTrusted(lanes.data(), lanes.size()));
  lanes[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(SquareLanesAreTrusted(lanes.data(), lanes.size()));
  const std::vector<float> small(8, 1e-20f), zeros(8, 0.0f);
  EXPECT_FALSE(SquareLanesAreTrusted(small.data(), small.size()));
  EXPECT_FALSE(SquareLanesAreTrusted(zeros.data(), zeros.size()));
}

}  // namespace
}  // namespace trainscope
