// SPDX-License-Identifier: Apache-2.0
#include "engine/train/optimizers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace trainscope {
namespace {

ParameterSlice WholeTensor(std::vector<float>* w, const std::vector<float>& g,
                           std::vector<float>* m = nullptr, std::vector<float>* v = nullptr) {
  ParameterSlice p;
  p.weights = w->data();
  p.element_count = w->size();
  p.row_elements = w->size();
  p.first_row = 0;
  p.row_count = 1;
  p.gradient = g.data();
  p.adam_m = m != nullptr ? m->data() : nullptr;
  p.adam_v = v != nullptr ? v->data() : nullptr;
  return p;
}

TEST(Sgd, TwoStepsDivideTheGradientSumByTheBatchSize) {
  std::vector<float> w = {1.0f, -2.0f};
  UpdateNorms norms;
  // Step 1: w -= lr * g / batch = 0.1 * {0.5, -1.0} / 2 = {0.025, -0.05} -> {0.975, -1.95}.
  const std::vector<float> g1 = {0.5f, -1.0f};
  ASSERT_TRUE(ApplySgd(SgdSettings{0.1f}, 2, WholeTensor(&w, g1), &norms).ok());
  EXPECT_FLOAT_EQ(w[0], 0.975f);
  EXPECT_FLOAT_EQ(w[1], -1.95f);
  // ||W|| before = sqrt(1 + 4) = 2.236068; ||dW|| = sqrt(0.025² + 0.05²) = 0.0559017.
  EXPECT_NEAR(norms.weight_norm, 2.236068f, 1e-6f);
  EXPECT_NEAR(norms.update_norm, 0.0559017f, 1e-6f);
  // Step 2: 0.1 * {0.2, 0.2} / 2 = 0.01 -> {0.965, -1.96}.
  const std::vector<float> g2 = {0.2f, 0.2f};
  ASSERT_TRUE(ApplySgd(SgdSettings{0.1f}, 2, WholeTensor(&w, g2), &norms).ok());
  EXPECT_FLOAT_EQ(w[0], 0.965f);
  EXPECT_FLOAT_EQ(w[1], -1.96f);
}

TEST(Adam, ThreeStepsMatchTheHandComputedUpdateWithEpsilonInsideTheSquareRoot) {
  // lr 0.1, b1 0.9, b2 0.99, eps 0.01, w = 1, gradient sums 0.5, -0.25, 0.1.
  const AdamSettings adam{0.1f, 0.9f, 0.99f, 0.01f};
  std::vector<float> w = {1.0f}, m = {0.0f}, v = {0.0f};
  // t=1: m = 0.1*0.5 = 0.05, v = 0.01*0.25 = 0.0025, mhat = 0.05/0.1 = 0.5,
  //      vhat = 0.0025/0.01 = 0.25, dw = 0.1*0.5/sqrt(0.25+0.01) = 0.0980581 -> w = 0.9019419.
  //      (eps outside the root would give 0.05/0.51 = 0.0980392.)
  std::vector<float> g = {0.5f};
  ASSERT_TRUE(ApplyAdam(adam, 1, WholeTensor(&w, g, &m, &v), nullptr).ok());
  EXPECT_NEAR(m[0], 0.05f, 1e-7f);
  EXPECT_NEAR(v[0], 0.0025f, 1e-8f);
  EXPECT_NEAR(w[0], 0.9019419f, 2e-7f);
  // t=2: m = 0.045 - 0.025 = 0.02, v = 0.002475 + 0.000625 = 0.0031, mhat = 0.02/0.19 = 0.105263,
  //      vhat = 0.0031/0.0199 = 0.155779, dw = 0.0105263/sqrt(0.165779) = 0.0258530
  //      -> w = 0.8760889.
  g = {-0.25f};
  ASSERT_TRUE(ApplyAdam(adam, 2, WholeTensor(&w, g, &m, &v), nullptr).ok());
  EXPECT_NEAR(m[0], 0.02f, 1e-7f);
  EXPECT_NEAR(v[0], 0.0031f, 1e-8f);
  EXPECT_NEAR(w[0], 0.8760889f, 3e-7f);
  // t=3: m = 0.018 + 0.01 = 0.028, v = 0.003069 + 0.0001 = 0.003169, mhat = 0.028/0.271 =
  //      0.103321, vhat = 0.003169/0.029701 = 0.106697, dw = 0.0103321/sqrt(0.116697) =
  //      0.0302454 -> w = 0.8458435.
  g = {0.1f};
  UpdateNorms norms;
  ASSERT_TRUE(ApplyAdam(adam, 3, WholeTensor(&w, g, &m, &v), &norms).ok());
  EXPECT_NEAR(w[0], 0.8458435f, 3e-7f);
  EXPECT_NEAR(norms.weight_norm, 0.8760889f, 3e-7f);
  EXPECT_NEAR(norms.update_norm, 0.0302454f, 3e-7f);
}

TEST(Adam, BiasCorrectionCountsStepsFromOne) {
  const AdamSettings adam{0.1f, 0.9f, 0.99f, 0.01f};
  const std::vector<float> g = {0.5f};
  std::vector<float> w = {1.0f}, m = {0.0f}, v = {0.0f};
  EXPECT_EQ(ApplyAdam(adam, 0, WholeTensor(&w, g, &m, &v), nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(w[0], 1.0f) << "a refused step must not change the weights";
  // The same first moments with t = 2: mhat = 0.05/0.19, vhat = 0.0025/0.0199,
  // dw = 0.1*0.263158/sqrt(0.125628+0.01) = 0.0714565 -> w = 0.9285435, unlike t = 1 above.
  ASSERT_TRUE(ApplyAdam(adam, 2, WholeTensor(&w, g, &m, &v), nullptr).ok());
  EXPECT_NEAR(w[0], 0.9285435f, 3e-7f);
}

TEST(BatchSemantics, SgdDividesTheSumByTheBatchButAdamDoesNot) {
  TrainingOptions options;
  options.learning_rate = 0.1f;
  options.beta2 = 0.99f;
  options.epsilon = 0.01f;
  const std::vector<float> sum = {0.5f};  // e.g. four samples whose gradients add up to 0.5
  auto update_with_batch = [&](OptimizerKind kind, uint32_t batch) {
    options.optimizer = kind;
    options.batch_size = batch;
    std::vector<float> w = {1.0f}, m = {0.0f}, v = {0.0f};
    EXPECT_TRUE(ApplyOptimizer(options, 1, WholeTensor(&w, sum, &m, &v), nullptr).ok());
    return 1.0f - w[0];
  };
  // SGD: 0.1 * 0.5 / 1 = 0.05 and 0.1 * 0.5 / 4 = 0.0125.
  EXPECT_NEAR(update_with_batch(OptimizerKind::kSgd, 1), 0.05f, 1e-7f);
  EXPECT_NEAR(update_with_batch(OptimizerKind::kSgd, 4), 0.0125f, 1e-7f);
  // Adam sees the same sum whatever the batch size: 0.0980581 both times (first test above).
  EXPECT_NEAR(update_with_batch(OptimizerKind::kAdam, 1), 0.0980581f, 3e-7f);
  EXPECT_NEAR(update_with_batch(OptimizerKind::kAdam, 4), 0.0980581f, 3e-7f);
}

// Rows of a 4-row tensor a half rank trains: UP_1_2_PART [0, 2), LOWER_1_2_PART [2, 4).
struct RowSpan {
  const char* name;
  size_t first;
  size_t count;
};

class HalfRankUpdate : public ::testing::TestWithParam<RowSpan> {};

TEST_P(HalfRankUpdate, OnlyTheChosenRowsChangeWithCompactGradientAndState) {
  // 4 x 2 weights; the half rank trains 2 rows with a compact 2 x 2 gradient.
  const std::vector<float> original = {1, 2, 3, 4, 5, 6, 7, 8};
  const RowSpan rows = GetParam();
  const std::vector<float> g = {1.0f, 2.0f, 3.0f, 4.0f};
  for (OptimizerKind kind : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    std::vector<float> w = original, m(4, 0.0f), v(4, 0.0f);
    ParameterSlice p{w.data(), 8, 2, rows.first, rows.count, g.data(), m.data(), v.data()};
    TrainingOptions options;
    options.optimizer = kind;
    options.learning_rate = 0.5f;
    ASSERT_TRUE(ApplyOptimizer(options, 1, p, nullptr).ok());
    for (size_t row = 0; row < 4; ++row) {
      const bool trained = row >= rows.first && row < rows.first + rows.count;
      for (size_t col = 0; col < 2; ++col) {
        const size_t i = row * 2 + col;
        if (trained) {
          EXPECT_LT(w[i], original[i]) << OptimizerName(kind) << " row " << row;
        } else {
          EXPECT_EQ(w[i], original[i]) << OptimizerName(kind) << " row " << row;
        }
      }
    }
    if (kind == OptimizerKind::kSgd) {
      // Row rows.first, column 1 takes compact gradient element 1: 2 - 0.5 * 2 / 1 = 1 less.
      EXPECT_FLOAT_EQ(w[rows.first * 2 + 1], original[rows.first * 2 + 1] - 1.0f);
    } else {
      // Compact state: m = (1 - 0.9) * g at compact index i.
      for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(m[i], 0.1f * g[i], 1e-6f);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(UpperAndLower, HalfRankUpdate,
                         ::testing::Values(RowSpan{"upper", 0, 2}, RowSpan{"lower", 2, 2}),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

TEST(UpdateRatio, IsUpdateNormOverWeightNormAndZeroForZeroWeights) {
  const UpdateRatioEvent event = MakeUpdateRatioEvent(7, 3, UpdateNorms{0.5f, 2.0f});
  EXPECT_EQ(event.optimizer_step, 7u);
  EXPECT_EQ(event.tensor, 3);
  EXPECT_FLOAT_EQ(event.ratio, 0.25f);
  EXPECT_EQ(MakeUpdateRatioEvent(1, 0, UpdateNorms{0.5f, 0.0f}).ratio, 0.0f);
}

TEST(UpdateNorms, WeightNormCoversEveryRowAndUpdateNormOnlyTheTrainedOnes) {
  // Rows {1, 2}, {3, 4}, {5, 6}; only the middle row trains: {3, 4} -= 0.1 * {10, 20} = {2, 2}.
  std::vector<float> w = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  const std::vector<float> g = {10.0f, 20.0f};
  ParameterSlice p = WholeTensor(&w, g);
  p.row_elements = 2;
  p.first_row = 1;
  p.row_count = 1;
  UpdateNorms norms;
  ASSERT_TRUE(ApplySgd(SgdSettings{0.1f}, 1, p, &norms).ok());
  EXPECT_EQ(w, (std::vector<float>{1.0f, 2.0f, 2.0f, 2.0f, 5.0f, 6.0f}));
  EXPECT_NEAR(norms.weight_norm, std::sqrt(91.0f), 1e-5f);  // 1 + 4 + 9 + 16 + 25 + 36
  EXPECT_NEAR(norms.update_norm, std::sqrt(5.0f), 1e-6f);   // {1, 2}
  // Without norms the same update is applied.
  std::vector<float> again = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  p.weights = again.data();
  ASSERT_TRUE(ApplySgd(SgdSettings{0.1f}, 1, p, nullptr).ok());
  EXPECT_EQ(again, w);
}

// Lengths that end in every kind of run: eight at a time (AVX2 hosts), four (SSE2), one, and
// mixes of them, over more than one 1024-value chunk of the norms.
const size_t kRunLengths[] = {1u, 2u, 4u, 7u, 12u, 13u, 15u, 64u, 1001u, 1029u, 2063u};

// The update runs eight or four values at a time where the host allows and one at a time for the
// tail; every element, at every position, must get the documented formula's bits in float (as
// onert-micro computes it), with and without the norms being summed, and stay within float
// rounding of the same formula in double.
TEST(Adam, EveryElementGetsTheFormulasBitsWhetherPairedOrNot) {
  const AdamSettings adam{0.01f, 0.9f, 0.999f, 1e-7f};
  for (size_t count : kRunLengths) {
    for (bool with_norms : {false, true}) {
      std::vector<float> w(count), g(count), m(count), v(count);
      for (size_t i = 0; i < count; ++i) {
        w[i] = std::sin(static_cast<float>(i) + 0.5f);
        g[i] = 1e-3f * std::cos(static_cast<float>(i) * 0.7f);
        m[i] = 1e-4f * static_cast<float>(i % 5);
        v[i] = 1e-6f * static_cast<float>(i % 3);
      }
      std::vector<float> want_w = w, want_m = m, want_v = v;
      std::vector<double> double_w(count);
      const uint32_t step = 3;
      const double b1 = adam.beta1, b2 = adam.beta2;
      const float correction1 = static_cast<float>(1.0 - std::pow(b1, step));
      const float correction2 = static_cast<float>(1.0 - std::pow(b2, step));
      for (size_t i = 0; i < count; ++i) {
        const double gi = g[i];
        const double mi = b1 * m[i] + (1.0 - b1) * gi;
        const double vi = b2 * v[i] + (1.0 - b2) * gi * gi;
        double_w[i] =
            w[i] -
            static_cast<double>(adam.learning_rate) * (mi / (1.0 - std::pow(b1, step))) /
                std::sqrt(vi / (1.0 - std::pow(b2, step)) + static_cast<double>(adam.epsilon));
        const float mf = adam.beta1 * want_m[i] + (1.0f - adam.beta1) * g[i];
        const float vf = adam.beta2 * want_v[i] + ((1.0f - adam.beta2) * g[i]) * g[i];
        want_m[i] = mf;
        want_v[i] = vf;
        want_w[i] = want_w[i] - (adam.learning_rate * (mf / correction1)) /
                                    std::sqrt(vf / correction2 + adam.epsilon);
      }
      UpdateNorms norms;
      ASSERT_TRUE(
          ApplyAdam(adam, step, WholeTensor(&w, g, &m, &v), with_norms ? &norms : nullptr).ok());
      for (size_t i = 0; i < count; ++i) {
        SCOPED_TRACE("count " + std::to_string(count) + " element " + std::to_string(i));
        EXPECT_EQ(w[i], want_w[i]);
        EXPECT_EQ(m[i], want_m[i]);
        EXPECT_EQ(v[i], want_v[i]);
        // The step is lr-sized; float keeps it to a few of its own rounding steps.
        EXPECT_NEAR(w[i], double_w[i],
                    1e-6 + 4 * std::numeric_limits<float>::epsilon() * std::fabs(double_w[i]));
      }
    }
  }
}

TEST(Sgd, EveryElementGetsTheFormulasBitsAndStaysNearTheDoubleFormula) {
  const SgdSettings sgd{0.05f};
  const uint32_t batch = 3;
  for (size_t count : kRunLengths) {
    for (bool with_norms : {false, true}) {
      std::vector<float> w(count), g(count);
      for (size_t i = 0; i < count; ++i) {
        w[i] = std::sin(static_cast<float>(i) + 0.25f);
        g[i] = 0.3f * std::cos(static_cast<float>(i) * 1.3f);
      }
      std::vector<float> want = w;
      std::vector<double> want_double(count);
      const float scale = sgd.learning_rate / static_cast<float>(batch);
      for (size_t i = 0; i < count; ++i) {
        want[i] = w[i] - scale * g[i];
        want_double[i] = static_cast<double>(w[i]) -
                         static_cast<double>(sgd.learning_rate) * g[i] / static_cast<double>(batch);
      }
      UpdateNorms norms;
      ASSERT_TRUE(ApplySgd(sgd, batch, WholeTensor(&w, g), with_norms ? &norms : nullptr).ok());
      for (size_t i = 0; i < count; ++i) {
        SCOPED_TRACE("count " + std::to_string(count) + " element " + std::to_string(i));
        EXPECT_EQ(w[i], want[i]);
        EXPECT_NEAR(w[i], want_double[i],
                    2 * std::numeric_limits<float>::epsilon() * (std::fabs(want_double[i]) + 0.1));
      }
    }
  }
}

// The norms of UpdateRatioEvent against a double computation from copies taken around the update:
// lengths that end inside a run of eight and span several chunks, a half-rank row range, weights
// whose squares overflow or underflow float, updates that are all zero, and a NaN weight.
struct NormCase {
  std::string name;
  std::vector<float> weights;
  float gradient_scale;
  size_t first_row, row_count, row_elements;
};

void ExpectNormsMatchTheValuesBeforeAndAfter(const NormCase& c) {
  SCOPED_TRACE(c.name);
  std::vector<float> w = c.weights;
  const size_t trained = c.row_count * c.row_elements;
  std::vector<float> g(trained), m(trained, 0.0f), v(trained, 0.0f);
  for (size_t i = 0; i < trained; ++i) {
    g[i] = c.gradient_scale * std::cos(static_cast<float>(i));
  }
  ParameterSlice p = WholeTensor(&w, g, &m, &v);
  p.row_elements = c.row_elements;
  p.first_row = c.first_row;
  p.row_count = c.row_count;
  const std::vector<float> before = w;
  UpdateNorms norms;
  ASSERT_TRUE(ApplyAdam(AdamSettings{0.01f, 0.9f, 0.999f, 1e-7f}, 1, p, &norms).ok());
  double weight_squared = 0.0, update_squared = 0.0;
  for (size_t i = 0; i < w.size(); ++i) {
    weight_squared += static_cast<double>(before[i]) * before[i];
    const double applied = static_cast<double>(before[i]) - w[i];
    update_squared += applied * applied;
  }
  if (std::isnan(weight_squared)) {
    EXPECT_TRUE(std::isnan(norms.weight_norm));
    return;
  }
  const float want_weight = static_cast<float>(std::sqrt(weight_squared));
  const float want_update = static_cast<float>(std::sqrt(update_squared));
  EXPECT_NEAR(norms.weight_norm, want_weight, want_weight * 4e-6f);
  EXPECT_NEAR(norms.update_norm, want_update, want_update * 4e-6f);
  if (update_squared == 0.0) {
    EXPECT_EQ(norms.update_norm, 0.0f);
  }
}

TEST(UpdateNorms, MatchADoubleComputationWhateverTheLengthAndRange) {
  std::vector<NormCase> cases;
  for (size_t count : {1u, 7u, 8u, 9u, 1023u, 1031u, 2048u, 2053u}) {
    std::vector<float> w(count);
    for (size_t i = 0; i < count; ++i) w[i] = 0.05f * std::sin(0.37f * static_cast<float>(i));
    cases.push_back({"length " + std::to_string(count), w, 1e-3f, 0, 1, count});
  }
  std::vector<float> rows(12 * 300);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = std::sin(static_cast<float>(i));
  cases.push_back({"rows 6..11 of 12", rows, 1e-2f, 6, 6, 300});
  cases.push_back({"rows 0..5 of 12", rows, 1e-2f, 0, 6, 300});
  std::vector<float> huge(3000, 3e20f), tiny(3000, 1e-30f), nan(3000, 0.5f);
  nan[2500] = std::nanf("");
  cases.push_back({"squares overflow float", huge, 1.0f, 0, 1, 3000});
  cases.push_back({"squares underflow float", tiny, 1e-3f, 0, 1, 3000});
  cases.push_back({"no update at all", rows, 0.0f, 0, 12, 300});
  cases.push_back({"a NaN weight", nan, 1e-3f, 0, 1, 3000});
  for (const NormCase& c : cases) ExpectNormsMatchTheValuesBeforeAndAfter(c);
}

// Chunks the update leaves untouched (zero gradient, as for a ReLU unit that was off) among
// chunks it changes: the norms still match a double computation, the untouched chunks counting
// zero to ||dW|| and their weights to ||W||.
TEST(UpdateNorms, ChunksWithoutAnUpdateCountOnlyTheirWeights) {
  const size_t count = 5000;
  std::vector<float> w(count), g(count, 0.0f);
  for (size_t i = 0; i < count; ++i) w[i] = 0.05f * std::sin(0.11f * static_cast<float>(i));
  for (size_t i = 2100; i < 3000; ++i) g[i] = 1e-2f * std::cos(static_cast<float>(i));
  const std::vector<float> before = w;
  UpdateNorms norms;
  ASSERT_TRUE(ApplySgd(SgdSettings{0.1f}, 1, WholeTensor(&w, g), &norms).ok());
  double weight_squared = 0.0, update_squared = 0.0;
  for (size_t i = 0; i < count; ++i) {
    weight_squared += static_cast<double>(before[i]) * before[i];
    const double applied = static_cast<double>(before[i]) - w[i];
    update_squared += applied * applied;
    if (g[i] == 0.0f) {
      EXPECT_EQ(w[i], before[i]);
    }
  }
  ASSERT_GT(update_squared, 0.0);
  EXPECT_NEAR(norms.weight_norm, std::sqrt(weight_squared), std::sqrt(weight_squared) * 4e-6);
  EXPECT_NEAR(norms.update_norm, std::sqrt(update_squared), std::sqrt(update_squared) * 4e-6);
}

// A step prepared once and applied to every tensor updates each exactly as a tensor-by-tensor
// update does: the same bits, over steps whose bias corrections differ.
TEST(OptimizerStep, PreparedOnceGivesEveryTensorTheSameBitsAsItsOwnUpdate) {
  for (OptimizerKind kind : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    TrainingOptions options;
    options.optimizer = kind;
    options.learning_rate = 0.01f;
    options.beta2 = 0.999f;
    options.batch_size = 3;
    const std::vector<float> g = {0.5f, -0.25f, 3.0f, 1e-4f};
    std::vector<float> w1 = {1, 2, 3, 4}, m1(4), v1(4);
    std::vector<float> w2 = w1, m2(4), v2(4);
    for (uint32_t t = 1; t <= 5; ++t) {
      OptimizerStep step;
      ASSERT_TRUE(PrepareOptimizerStep(options, t, &step).ok());
      ASSERT_TRUE(ApplyOptimizerStep(step, WholeTensor(&w1, g, &m1, &v1), nullptr).ok());
      const Status own = kind == OptimizerKind::kAdam
                             ? ApplyAdam(AdamSettings{options.learning_rate, options.beta1,
                                                      options.beta2, options.epsilon},
                                         t, WholeTensor(&w2, g, &m2, &v2), nullptr)
                             : ApplySgd(SgdSettings{options.learning_rate}, options.batch_size,
                                        WholeTensor(&w2, g), nullptr);
      ASSERT_TRUE(own.ok());
      EXPECT_EQ(w1, w2) << "step " << t;
    }
    EXPECT_NE(w1, (std::vector<float>{1, 2, 3, 4}));
  }
}

// The fast kernels' Adam (one division and one square root per value): the moments to the bit
// of the formula's, the weights within a few float roundings of the step, and its own bits at
// every position (runs of eight, four and one) with and without the norms, since observing a
// step must not change what it computes.
TEST(OptimizerStep, FastAdamKeepsTheMomentsAndStaysWithinRoundingOfTheFormula) {
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.learning_rate = 0.01f;
  options.beta2 = 0.999f;
  for (size_t count : kRunLengths) {
    std::vector<float> g(count), start(count), m0(count), v0(count);
    for (size_t i = 0; i < count; ++i) {
      start[i] = std::sin(static_cast<float>(i) + 0.5f);
      g[i] = 1e-3f * std::cos(static_cast<float>(i) * 0.7f) * (i % 11 == 0 ? 1e3f : 1.0f);
      m0[i] = 1e-4f * static_cast<float>(i % 5);
      v0[i] = 1e-6f * static_cast<float>(i % 3);
    }
    OptimizerStep step;
    ASSERT_TRUE(PrepareOptimizerStep(options, 4, &step).ok());
    std::vector<float> w_formula = start, m_formula = m0, v_formula = v0;
    ASSERT_TRUE(
        ApplyOptimizerStep(step, WholeTensor(&w_formula, g, &m_formula, &v_formula), nullptr).ok());
    step.fast_adam = true;
    std::vector<float> w_fast = start, m_fast = m0, v_fast = v0;
    ASSERT_TRUE(ApplyOptimizerStep(step, WholeTensor(&w_fast, g, &m_fast, &v_fast), nullptr).ok());
    std::vector<float> w_norms = start, m_norms = m0, v_norms = v0;
    UpdateNorms norms;
    ASSERT_TRUE(
        ApplyOptimizerStep(step, WholeTensor(&w_norms, g, &m_norms, &v_norms), &norms).ok());
    bool some_bits_differ = false;
    for (size_t i = 0; i < count; ++i) {
      SCOPED_TRACE("count " + std::to_string(count) + " element " + std::to_string(i));
      EXPECT_EQ(m_fast[i], m_formula[i]);
      EXPECT_EQ(v_fast[i], v_formula[i]);
      const float formula_step = start[i] - w_formula[i];
      EXPECT_NEAR(start[i] - w_fast[i], formula_step,
                  4 * std::numeric_limits<float>::epsilon() *
                      (std::fabs(formula_step) + std::fabs(start[i])));
      some_bits_differ |= w_fast[i] != w_formula[i];
      EXPECT_EQ(w_norms[i], w_fast[i]);
      // One value alone takes the scalar path; inside the tensor it took a vector path.
      std::vector<float> w_one = {start[i]}, m_one = {m0[i]}, v_one = {v0[i]};
      const std::vector<float> g_one = {g[i]};
      ASSERT_TRUE(
          ApplyOptimizerStep(step, WholeTensor(&w_one, g_one, &m_one, &v_one), nullptr).ok());
      EXPECT_EQ(w_one[0], w_fast[i]);
    }
    if (count >= 1001) {
      EXPECT_TRUE(some_bits_differ) << "the fast formula was not used";
    }
  }
}

TEST(OptimizerStep, RefusesWhatNoUpdateCouldUse) {
  TrainingOptions options;
  OptimizerStep step;
  options.optimizer = OptimizerKind::kAdam;
  EXPECT_EQ(PrepareOptimizerStep(options, 0, &step).code(), StatusCode::kInvalidArgument);
  options.beta1 = 1.0f;
  EXPECT_EQ(PrepareOptimizerStep(options, 1, &step).code(), StatusCode::kInvalidArgument);
  options = TrainingOptions();
  options.optimizer = OptimizerKind::kSgd;
  options.batch_size = 0;
  EXPECT_EQ(PrepareOptimizerStep(options, 1, &step).code(), StatusCode::kInvalidArgument);
  options.batch_size = 1;
  options.optimizer = static_cast<OptimizerKind>(7);
  EXPECT_EQ(PrepareOptimizerStep(options, 1, &step).code(), StatusCode::kInvalidArgument);
}

TEST(OptimizerErrors, BadSlicesAreRefusedWithoutTouchingWeights) {
  std::vector<float> w = {1, 2, 3, 4};
  const std::vector<float> g = {1, 1};
  ParameterSlice rows_past_end{w.data(), 4, 2, 1, 2, g.data(), nullptr, nullptr};
  EXPECT_EQ(ApplySgd(SgdSettings{}, 1, rows_past_end, nullptr).code(),
            StatusCode::kInvalidArgument);
  ParameterSlice uneven_rows{w.data(), 4, 3, 0, 1, g.data(), nullptr, nullptr};
  EXPECT_EQ(ApplySgd(SgdSettings{}, 1, uneven_rows, nullptr).code(), StatusCode::kInvalidArgument);
  ParameterSlice fine{w.data(), 4, 2, 0, 1, g.data(), nullptr, nullptr};
  EXPECT_EQ(ApplySgd(SgdSettings{}, 0, fine, nullptr).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyAdam(AdamSettings{}, 1, fine, nullptr).code(), StatusCode::kInvalidArgument)
      << "Adam without m/v storage";
  std::vector<float> m(2), v(2);
  ParameterSlice with_state{w.data(), 4, 2, 0, 1, g.data(), m.data(), v.data()};
  EXPECT_EQ(ApplyAdam(AdamSettings{0.1f, 1.0f, 0.9f, 1e-7f}, 1, with_state, nullptr).code(),
            StatusCode::kInvalidArgument)
      << "beta1 = 1 makes the bias correction divide by zero";
  EXPECT_EQ(w, (std::vector<float>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace trainscope
