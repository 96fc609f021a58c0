// SPDX-License-Identifier: Apache-2.0
#include "engine/train/gradient_stats.h"

#include "engine/train/gradient_stats_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace trainscope {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// The paths this CPU can run; the portable one always.
std::vector<GradientStatsPath> PathsHere() {
  std::vector<GradientStatsPath> paths;
  for (GradientStatsPath path :
       {GradientStatsPath::kPortable, GradientStatsPath::kAvx2, GradientStatsPath::kAvx512}) {
    if (static_cast<uint8_t>(path) <= static_cast<uint8_t>(FastestGradientStatsPath())) {
      paths.push_back(path);
    }
  }
  return paths;
}

TEST(GradientStats, NanAndInfAreCountedAndTheRestDescribesFiniteValues) {
  const std::vector<float> g = {3.0f, -4.0f, std::nanf(""), kInf, -kInf, 0.0f};
  const GradientStatsEvent s = ComputeGradientStats(g.data(), g.size());
  EXPECT_EQ(s.nan_count, 1u);
  EXPECT_EQ(s.inf_count, 2u);
  EXPECT_FLOAT_EQ(s.l2, 5.0f);  // sqrt(9 + 16 + 0)
  EXPECT_FLOAT_EQ(s.max_abs, 4.0f);
  EXPECT_FLOAT_EQ(s.mean, -1.0f / 3.0f);  // (3 - 4 + 0) / 3 finite values
  EXPECT_EQ(s.histogram[12], 2u);         // 3 and 4 lie in [1, 10)
  EXPECT_EQ(s.histogram[0], 1u);          // the exact zero
  uint32_t total = 0;
  for (uint32_t count : s.histogram) total += count;
  EXPECT_EQ(total, 3u) << "NaN and Inf stay out of the histogram";
}

TEST(GradientStats, AllNonFiniteGivesZeroSummariesAndFullCounts) {
  const std::vector<float> g = {std::nanf(""), std::nanf(""), kInf};
  const GradientStatsEvent s = ComputeGradientStats(g.data(), g.size());
  EXPECT_EQ(s.nan_count, 2u);
  EXPECT_EQ(s.inf_count, 1u);
  EXPECT_EQ(s.l2, 0.0f);
  EXPECT_EQ(s.max_abs, 0.0f);
  EXPECT_EQ(s.mean, 0.0f);
}

TEST(GradientStats, HistogramBinsAreDecadesFromOneEMinusTwelve) {
  // Bin b holds |g| in [10^(b-12), 10^(b-11)); values sit mid-decade to avoid rounding edges.
  struct Case {
    float value;
    int bin;
  };
  const Case cases[] = {
      {5e-14f, 0},  // below the first decade
      {5e-12f, 0},  // [1e-12, 1e-11)
      {5e-11f, 1},  // [1e-11, 1e-10)
      {-5e-4f, 8},  // [1e-4, 1e-3), sign ignored
      {0.5f, 11},   // [0.1, 1)
      {5.0f, 12},   // [1, 10)
      {50.0f, 13},  // [10, 100)
      {5e3f, 15},   // [1e3, 1e4)
      {5e6f, 15},   // above the last decade
  };
  for (const Case& c : cases) {
    const GradientStatsEvent s = ComputeGradientStats(&c.value, 1);
    for (int b = 0; b < kGradientHistogramBins; ++b) {
      EXPECT_EQ(s.histogram[b], b == c.bin ? 1u : 0u) << "value " << c.value << " bin " << b;
    }
  }
}

TEST(GradientStats, NormMaxAndMeanMatchADirectComputation) {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 0.01f);
  std::vector<float> g(1000);
  for (float& v : g) v = dist(rng);
  double squares = 0.0, sum = 0.0, max_abs = 0.0;
  for (float v : g) {
    squares += static_cast<double>(v) * v;
    sum += v;
    max_abs = std::max(max_abs, static_cast<double>(std::fabs(v)));
  }
  const GradientStatsEvent s = ComputeGradientStats(g.data(), g.size());
  EXPECT_NEAR(s.l2, std::sqrt(squares), 1e-6);
  EXPECT_EQ(s.max_abs, static_cast<float>(max_abs));
  EXPECT_NEAR(s.mean, sum / 1000.0, 1e-8);
}

TEST(GradientStats, NormIsAccumulatedInDoubleSoLargeValuesDoNotOverflow) {
  // 3e20² = 9e40 overflows float; in double l2 = sqrt(9e40 + 16e40) = 5e20.
  const std::vector<float> g = {3e20f, 4e20f};
  const GradientStatsEvent s = ComputeGradientStats(g.data(), g.size());
  EXPECT_NEAR(s.l2, 5e20f, 5e20f * 1e-6f);
  EXPECT_EQ(s.inf_count, 0u);
}

// Counts and max|g| must equal a per-value reference exactly, the sums to float precision, on
// every path this CPU runs.
void ExpectMatchesPerValueReference(const std::vector<float>& g) {
  uint32_t histogram[kGradientHistogramBins] = {};
  uint32_t nans = 0, infs = 0;
  double sum = 0.0, squares = 0.0;
  float max_abs = 0.0f;
  size_t finite = 0;
  for (float v : g) {
    if (std::isnan(v)) {
      ++nans;
    } else if (std::isinf(v)) {
      ++infs;
    } else {
      ++histogram[GradientHistogramBin(std::fabs(v))];
      sum += v;
      squares += static_cast<double>(v) * v;
      max_abs = std::max(max_abs, std::fabs(v));
      ++finite;
    }
  }
  for (GradientStatsPath path : PathsHere()) {
    const GradientStatsEvent s = ComputeGradientStatsOn(path, g.data(), g.size());
    SCOPED_TRACE("count " + std::to_string(g.size()) + ", path " +
                 std::to_string(static_cast<int>(path)));
    EXPECT_EQ(s.nan_count, nans);
    EXPECT_EQ(s.inf_count, infs);
    EXPECT_EQ(s.max_abs, max_abs);
    for (int b = 0; b < kGradientHistogramBins; ++b) EXPECT_EQ(s.histogram[b], histogram[b]);
    EXPECT_FLOAT_EQ(s.l2, static_cast<float>(std::sqrt(squares)));
    EXPECT_FLOAT_EQ(s.mean,
                    finite > 0 ? static_cast<float>(sum / static_cast<double>(finite)) : 0.0f);
  }
}

// Every length from 0 to 70 (full blocks of eight and every tail) and one long buffer, with
// zeros, signed zeros, denormals, values on and just below each decade bound, NaN and Inf:
// the counts and max|g| must equal a per-value reference exactly, the sums to float precision.
TEST(GradientStats, EveryLengthAndEdgeValueMatchesAPerValueReference) {
  std::vector<float> pool = {0.0f,   -0.0f,         1e-45f, -1e-40f, 1e30f,
                             -3e38f, std::nanf(""), kInf,   -kInf};
  for (int d = -12; d <= 4; ++d) {
    const float bound = std::pow(10.0f, static_cast<float>(d));
    pool.push_back(bound);
    pool.push_back(-std::nextafter(bound, 0.0f));
    pool.push_back(std::nextafter(bound, kInf));
  }
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1e-3f);
  auto make = [&](size_t count) {
    std::vector<float> g(count);
    for (float& v : g) v = rng() % 3 == 0 ? pool[rng() % pool.size()] : normal(rng);
    return g;
  };
  std::vector<std::vector<float>> buffers;
  for (size_t count = 0; count <= 70; ++count) buffers.push_back(make(count));
  buffers.push_back(make(5003));
  for (const std::vector<float>& g : buffers) ExpectMatchesPerValueReference(g);
}

// The fast path resolves, per chunk of values, the decade bounds outside the chunk's range
// without comparing each value. Chunks of one decade with zeros, all zeros, values exactly on
// and just below bounds (as the chunk's smallest and largest), NaN and Inf among a narrow range:
// the histogram must still equal the per-value reference.
TEST(GradientStats, ChunksSpanningFewDecadesMatchThePerValueReference) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> one_decade(1e-4f, 1e-3f);
  const size_t kChunk = 512;  // the fast path's chunk; boundaries land between the cases
  std::vector<float> g;
  for (size_t i = 0; i < kChunk; ++i) g.push_back(i % 7 == 0 ? 0.0f : one_decade(rng));
  g.insert(g.end(), kChunk, 0.0f);
  for (size_t i = 0; i < kChunk; ++i) {
    const float bound = std::pow(10.0f, static_cast<float>(static_cast<int>(i % 3) - 5));
    g.push_back(i % 2 == 0 ? bound : -std::nextafter(bound, 0.0f));
  }
  for (size_t i = 0; i < kChunk; ++i) {
    g.push_back(i == 100 ? std::nanf("") : i == 200 ? -kInf : -one_decade(rng));
  }
  for (size_t i = 0; i < kChunk + 13; ++i) g.push_back(1e-12f * (1.0f + static_cast<float>(i % 5)));
  ExpectMatchesPerValueReference(g);
  for (size_t begin = 0; begin < g.size(); begin += kChunk) {
    const size_t end = std::min(g.size(), begin + kChunk);
    ExpectMatchesPerValueReference(std::vector<float>(g.begin() + begin, g.begin() + end));
  }
}

// The sums have one defined order whatever the host's vector width: element i of a full block of
// sixteen into double lane i % 16, the tail into lane 0, the lanes added from lane 0. With 2^60
// beside 1, double rounding makes the order visible in the mean, on every path.
TEST(GradientStats, SumsFollowTheSixteenLaneOrderOnEveryPath) {
  const float big = std::exp2(60.0f);
  struct Case {
    std::string name;
    size_t count;
    std::vector<std::pair<size_t, float>> values;  // index, value; the rest are zeros
    double sum;
  };
  const std::vector<Case> cases = {
      // Lanes 0 and 1: (2^60 - 2^60) + 1; one running sum would give (2^60 + 1) - 2^60 = 0.
      {"sixteen lanes, not one", 32, {{0, big}, {1, 1.0f}, {16, -big}}, 1.0},
      // Lanes 0 and 8: eight lanes would put all three in lane 0.
      {"sixteen lanes, not eight", 32, {{0, big}, {8, 1.0f}, {16, -big}}, 1.0},
      // The tail joins lane 0 after 2^60 and is lost; lane 1 then cancels lane 0. Added apart
      // at the end, it would survive.
      {"the tail goes to lane 0", 33, {{0, big}, {17, -big}, {32, 1.0f}}, 0.0},
      // Lane 0, then 1, then 2: (2^60 + 1) - 2^60.
      {"lanes added from lane 0", 32, {{0, big}, {1, 1.0f}, {2, -big}}, 0.0},
      // A block past the first chunk of a vector path (512 values) lands in the same lanes.
      {"chunks keep the lanes", 1040, {{0, big}, {1, 1.0f}, {1024, -big}}, 1.0},
  };
  for (GradientStatsPath path : PathsHere()) {
    for (const Case& c : cases) {
      std::vector<float> g(c.count, 0.0f);
      for (const auto& [index, value] : c.values) g[index] = value;
      const GradientStatsEvent s = ComputeGradientStatsOn(path, g.data(), g.size());
      EXPECT_EQ(s.mean, static_cast<float>(c.sum / static_cast<double>(c.count)))
          << c.name << ", path " << static_cast<int>(path);
    }
  }
}

// Every path gives the portable path's event to the bit: normal gradients over many decades,
// chunks with NaN and Inf, all zeros, denormals, values on decade bounds, every tail length.
TEST(GradientStats, EveryPathGivesThePortableEventToTheBit) {
  const std::vector<GradientStatsPath> paths = PathsHere();
  if (paths.size() == 1) GTEST_SKIP() << "this CPU runs the portable path only";
  std::mt19937 rng(21);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> exponent(-14.0f, 5.0f);
  auto gradient = [&](size_t count, bool specials) {
    std::vector<float> g(count);
    for (float& v : g) v = normal(rng) * std::pow(10.0f, exponent(rng));
    for (size_t i = 0; i < count; i += 37) g[i] = 0.0f;
    if (specials && count > 3) {
      g[count / 3] = std::nanf("");
      g[count / 2] = -kInf;
      g[count - 1] = 1e-44f;
    }
    return g;
  };
  std::vector<std::vector<float>> buffers;
  for (size_t count : {size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{511}, size_t{512},
                       size_t{513}, size_t{1500}, size_t{100352}, size_t{100363}}) {
    buffers.push_back(gradient(count, false));
    buffers.push_back(gradient(count, true));
  }
  buffers.push_back(std::vector<float>(2048, 0.0f));
  buffers.push_back(std::vector<float>(2048, std::pow(10.0f, -3.0f)));
  for (const std::vector<float>& g : buffers) {
    const GradientStatsEvent want =
        ComputeGradientStatsOn(GradientStatsPath::kPortable, g.data(), g.size());
    for (GradientStatsPath path : paths) {
      const GradientStatsEvent got = ComputeGradientStatsOn(path, g.data(), g.size());
      SCOPED_TRACE("count " + std::to_string(g.size()) + ", path " +
                   std::to_string(static_cast<int>(path)));
      EXPECT_EQ(std::memcmp(&got.l2, &want.l2, sizeof(float)), 0) << got.l2 << " " << want.l2;
      EXPECT_EQ(std::memcmp(&got.mean, &want.mean, sizeof(float)), 0)
          << got.mean << " " << want.mean;
      EXPECT_EQ(got.max_abs, want.max_abs);
      EXPECT_EQ(got.nan_count, want.nan_count);
      EXPECT_EQ(got.inf_count, want.inf_count);
      for (int b = 0; b < kGradientHistogramBins; ++b) {
        EXPECT_EQ(got.histogram[b], want.histogram[b]) << "bin " << b;
      }
    }
  }
}

TEST(GradientStats, EmptyOrNullBufferGivesZeros) {
  const GradientStatsEvent s = ComputeGradientStats(nullptr, 5);
  EXPECT_EQ(s.l2, 0.0f);
  EXPECT_EQ(s.nan_count, 0u);
  EXPECT_EQ(s.histogram[0], 0u);
}

}  // namespace
}  // namespace trainscope
