// SPDX-License-Identifier: Apache-2.0
//
// UNIDIRECTIONAL_SEQUENCE_LSTM forward: one cell over two steps worked out by hand, then random
// small shapes against a plain reference loop written here (peepholes, CIFG, projection with and
// without bias, cell and projection clips, time-major, batch 2, another activation, an initial
// state held in constants), and the shape and optional-input checks of Prepare.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "engine/model/model_builder.h"
#include "tests/engine/kernels/kernel_harness.h"

namespace trainscope {
namespace {

using ::testing::HasSubstr;
using testing::RunSingleOutput;
using testing::TryRun;

constexpr int kInputs = 24;

// Inputs 0..23 of the op, -1 where absent; filled in by the tests.
std::vector<int32_t> AbsentInputs() {
  return std::vector<int32_t>(kInputs, -1);
}

// One cell, one feature, two steps (x = 1 then -1), zero initial state, TANH. Gate order i, f, c,
// o: W = (1, 2, 0.5, 1), R = (2, -1, 1, 0.5), b = (-1, -2, 0, -1).
//   step 1 (h = 0, c = 0): z = W + b = (0, 0, 0.5, 0), so i = f = o = 0.5, g = tanh 0.5 = 0.4621172
//     c1 = 0.5 * 0 + 0.5 * 0.4621172 = 0.2310586
//     h1 = 0.5 * tanh 0.2310586 = 0.5 * 0.2270326 = 0.1135163
//   step 2 (x = -1): z = -W + R h1 + b
//     z_i = -1 + 2 * 0.1135163 - 1 = -1.7729674   i = 0.1451737
//     z_f = -2 - 0.1135163 - 2     = -4.1135163   f = 0.0160872
//     z_c = -0.5 + 0.1135163 + 0   = -0.3864837   g = -0.3683249
//     z_o = -1 + 0.5 * 0.1135163 - 1 = -1.9432418 o = 0.1252921
//     c2 = 0.0160872 * 0.2310586 + 0.1451737 * -0.3683249 = -0.0497540
//     h2 = 0.1252921 * tanh(-0.0497540) = 0.1252921 * -0.0497130 = -0.0062286
TEST(LstmForward, OneCellTwoStepsByHand) {
  ModelBuilder b;
  std::vector<int32_t> in = AbsentInputs();
  in[0] = b.AddTensor("x", {1, 2, 1});
  const float w[] = {1.0f, 2.0f, 0.5f, 1.0f};
  const float r[] = {2.0f, -1.0f, 1.0f, 0.5f};
  const float bias[] = {-1.0f, -2.0f, 0.0f, -1.0f};
  for (int gate = 0; gate < 4; ++gate) {
    in[1 + gate] = b.AddConstant("w" + std::to_string(gate), {1, 1}, {w[gate]});
    in[5 + gate] = b.AddConstant("r" + std::to_string(gate), {1, 1}, {r[gate]});
    in[12 + gate] = b.AddConstant("b" + std::to_string(gate), {1}, {bias[gate]});
  }
  in[18] = b.AddVariable("h0", {1, 1});
  in[19] = b.AddVariable("c0", {1, 1});
  const int y = b.AddTensor("y", {1, 2, 1});
  OpOptions options;
  options.activation = Activation::kTanh;
  b.AddOperator(op::kUnidirectionalSequenceLstm, in, {y}, options);
  b.SetInputs({in[0]});
  b.SetOutputs({y});
  const std::vector<float> out = RunSingleOutput(b, {{1.0f, -1.0f}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0], 0.1135163f, 1e-7f);
  EXPECT_NEAR(out[1], -0.0062286f, 1e-7f);
}

struct LstmCase {
  const char* name;
  int batch, time, in, cells;
  int out = 0;  // projection width; 0 = no projection (out = cells)
  bool peepholes = false;
  bool cifg = false;
  bool projection_bias = false;
  float cell_clip = 0.0f;
  float proj_clip = 0.0f;
  bool time_major = false;
  Activation activation = Activation::kTanh;
  bool constant_state = false;  // a nonzero initial state in constants instead of zero variables
};

void PrintTo(const LstmCase& c, std::ostream* os) {
  *os << c.name;
}

// Every operand of one case, row-major, in the layouts the op documents. Absent ones are empty.
struct LstmValues {
  std::vector<float> x;
  std::vector<float> w[4], r[4], bias[4];
  std::vector<float> peephole[3];  // i, f, o
  std::vector<float> projection, projection_bias;
  std::vector<float> h0, c0;
};

int OutWidth(const LstmCase& c) {
  return c.out > 0 ? c.out : c.cells;
}

LstmValues RandomValues(const LstmCase& c, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const auto fill = [&](size_t count, float scale) {
    std::vector<float> v(count);
    for (float& e : v) e = scale * uniform(rng);
    return v;
  };
  const int out = OutWidth(c);
  const auto cells = static_cast<size_t>(c.cells);
  LstmValues v;
  v.x = fill(static_cast<size_t>(c.batch * c.time * c.in), 2.0f);
  for (int gate = 0; gate < 4; ++gate) {
    if (gate == 0 && c.cifg) continue;
    v.w[gate] = fill(cells * static_cast<size_t>(c.in), 1.0f);
    v.r[gate] = fill(cells * static_cast<size_t>(out), 1.0f);
    v.bias[gate] = fill(cells, 0.5f);
  }
  if (c.peepholes) {
    for (int p = 0; p < 3; ++p) {
      if (p == 0 && c.cifg) continue;
      v.peephole[p] = fill(cells, 1.0f);
    }
  }
  if (c.out > 0) {
    v.projection = fill(static_cast<size_t>(out) * cells, 1.0f);
    if (c.projection_bias) v.projection_bias = fill(static_cast<size_t>(out), 0.5f);
  }
  const size_t state_h = static_cast<size_t>(c.batch * out);
  const size_t state_c = static_cast<size_t>(c.batch) * cells;
  v.h0 = c.constant_state ? fill(state_h, 1.0f) : std::vector<float>(state_h, 0.0f);
  v.c0 = c.constant_state ? fill(state_c, 1.0f) : std::vector<float>(state_c, 0.0f);
  return v;
}

ModelBuilder LstmModel(const LstmCase& c, const LstmValues& v) {
  ModelBuilder b;
  const int out = OutWidth(c);
  std::vector<int32_t> in = AbsentInputs();
  in[0] = b.AddTensor("x", c.time_major ? std::vector<int32_t>{c.time, c.batch, c.in}
                                        : std::vector<int32_t>{c.batch, c.time, c.in});
  for (int gate = 0; gate < 4; ++gate) {
    if (v.w[gate].empty()) continue;
    const std::string g = std::to_string(gate);
    in[1 + gate] = b.AddConstant("w" + g, {c.cells, c.in}, v.w[gate]);
    in[5 + gate] = b.AddConstant("r" + g, {c.cells, out}, v.r[gate]);
    in[12 + gate] = b.AddConstant("b" + g, {c.cells}, v.bias[gate]);
  }
  for (int p = 0; p < 3; ++p) {
    if (!v.peephole[p].empty()) {
      in[9 + p] = b.AddConstant("p" + std::to_string(p), {c.cells}, v.peephole[p]);
    }
  }
  if (!v.projection.empty()) in[16] = b.AddConstant("proj", {out, c.cells}, v.projection);
  if (!v.projection_bias.empty()) in[17] = b.AddConstant("proj_b", {out}, v.projection_bias);
  if (c.constant_state) {
    in[18] = b.AddConstant("h0", {c.batch, out}, v.h0);
    in[19] = b.AddConstant("c0", {c.batch, c.cells}, v.c0);
  } else {
    in[18] = b.AddVariable("h0", {c.batch, out});
    in[19] = b.AddVariable("c0", {c.batch, c.cells});
  }
  const int y = b.AddTensor("y", c.time_major ? std::vector<int32_t>{c.time, c.batch, out}
                                              : std::vector<int32_t>{c.batch, c.time, out});
  OpOptions options;
  options.activation = c.activation;
  options.cell_clip = c.cell_clip;
  options.proj_clip = c.proj_clip;
  options.time_major = c.time_major;
  b.AddOperator(op::kUnidirectionalSequenceLstm, in, {y}, options);
  b.SetInputs({in[0]});
  b.SetOutputs({y});
  return b;
}

double Sigmoid(double z) {
  return 1.0 / (1.0 + std::exp(-z));
}

double Activate(Activation activation, double z) {
  switch (activation) {
    case Activation::kTanh:
      return std::tanh(z);
    case Activation::kRelu:
      return std::max(z, 0.0);
    case Activation::kNone:
      return z;
    default:
      ADD_FAILURE() << "the reference has no " << ActivationName(activation);
      return z;
  }
}

// The textbook recurrence in double, step by step over the whole batch. `clipped` counts the
// values a clip changed, so a case can show its clips were reached.
std::vector<float> Reference(const LstmCase& c, const LstmValues& v, int* clipped) {
  const int out = OutWidth(c);
  std::vector<double> h(v.h0.begin(), v.h0.end());     // [batch][out]
  std::vector<double> cell(v.c0.begin(), v.c0.end());  // [batch][cells]
  std::vector<float> y(static_cast<size_t>(c.batch * c.time * out));
  *clipped = 0;
  const auto clip = [&](double value, float limit) {
    if (limit <= 0.0f) return value;
    const double bounded = std::min(std::max(value, -double{limit}), double{limit});
    if (bounded != value) ++*clipped;
    return bounded;
  };
  for (int t = 0; t < c.time; ++t) {
    for (int b = 0; b < c.batch; ++b) {
      const int row = c.time_major ? t * c.batch + b : b * c.time + t;
      const float* x = &v.x[static_cast<size_t>(row * c.in)];
      double* hb = &h[static_cast<size_t>(b * out)];
      double* cb = &cell[static_cast<size_t>(b * c.cells)];
      // z[gate][j] = W x + R h + bias, from the step's old h.
      std::vector<std::vector<double>> z(4, std::vector<double>(static_cast<size_t>(c.cells)));
      for (int gate = 0; gate < 4; ++gate) {
        if (v.w[gate].empty()) continue;
        for (int j = 0; j < c.cells; ++j) {
          double sum = v.bias[gate][static_cast<size_t>(j)];
          for (int k = 0; k < c.in; ++k) sum += v.w[gate][static_cast<size_t>(j * c.in + k)] * x[k];
          for (int k = 0; k < out; ++k) sum += v.r[gate][static_cast<size_t>(j * out + k)] * hb[k];
          z[static_cast<size_t>(gate)][static_cast<size_t>(j)] = sum;
        }
      }
      std::vector<double> m(static_cast<size_t>(c.cells));
      for (int j = 0; j < c.cells; ++j) {
        const size_t js = static_cast<size_t>(j);
        const double old_c = cb[j];
        const bool peep = !v.peephole[1].empty();
        const double f = Sigmoid(z[1][js] + (peep ? v.peephole[1][js] * old_c : 0.0));
        const double i =
            c.cifg ? 1.0 - f : Sigmoid(z[0][js] + (peep ? v.peephole[0][js] * old_c : 0.0));
        const double g = Activate(c.activation, z[2][js]);
        const double new_c = clip(f * old_c + i * g, c.cell_clip);
        const double o = Sigmoid(z[3][js] + (peep ? v.peephole[2][js] * new_c : 0.0));
        cb[j] = new_c;
        m[js] = o * Activate(c.activation, new_c);
      }
      for (int k = 0; k < out; ++k) {
        double value = m[static_cast<size_t>(k % c.cells)];
        if (c.out > 0) {
          value = v.projection_bias.empty() ? 0.0 : v.projection_bias[static_cast<size_t>(k)];
          for (int j = 0; j < c.cells; ++j) {
            value += v.projection[static_cast<size_t>(k * c.cells + j)] * m[static_cast<size_t>(j)];
          }
          value = clip(value, c.proj_clip);
        }
        hb[k] = value;
        y[static_cast<size_t>(row * out + k)] = static_cast<float>(value);
      }
    }
  }
  return y;
}

class LstmAgainstReference : public ::testing::TestWithParam<LstmCase> {};

TEST_P(LstmAgainstReference, EveryStepMatchesWithinTheTolerance) {
  const LstmCase c = GetParam();
  const LstmValues v = RandomValues(c, 1234u + static_cast<uint32_t>(c.cells * 31 + c.time));
  int clipped = 0;
  const std::vector<float> expected = Reference(c, v, &clipped);
  if (c.cell_clip > 0.0f || c.proj_clip > 0.0f) {
    EXPECT_GT(clipped, 0) << "the case never reaches its clip";
  }
  const std::vector<float> actual = RunSingleOutput(LstmModel(c, v), {v.x});
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t e = 0; e < expected.size(); ++e) {
    EXPECT_NEAR(actual[e], expected[e], 1e-5 * std::fabs(expected[e]) + 1e-6) << "element " << e;
  }
}

LstmCase Case(const char* name, int batch, int time, int in, int cells) {
  LstmCase c{};
  c.name = name;
  c.batch = batch;
  c.time = time;
  c.in = in;
  c.cells = cells;
  return c;
}

std::vector<LstmCase> Cases() {
  std::vector<LstmCase> cases;
  cases.push_back(Case("Plain", 1, 5, 3, 4));
  LstmCase c = Case("Peepholes", 1, 6, 2, 3);
  c.peepholes = true;
  cases.push_back(c);
  c = Case("Cifg", 1, 5, 3, 4);
  c.cifg = true;
  cases.push_back(c);
  c = Case("CifgWithPeepholes", 2, 4, 2, 3);
  c.cifg = true;
  c.peepholes = true;
  cases.push_back(c);
  c = Case("ProjectionWithoutBias", 1, 5, 3, 5);
  c.out = 2;
  cases.push_back(c);
  c = Case("ProjectionWiderThanTheCells", 1, 4, 2, 2);
  c.out = 3;
  c.projection_bias = true;
  cases.push_back(c);
  c = Case("CellClip", 1, 8, 3, 4);
  c.cell_clip = 0.3f;
  cases.push_back(c);
  c = Case("ProjectionClip", 2, 5, 3, 4);
  c.out = 3;
  c.projection_bias = true;
  c.proj_clip = 0.2f;
  cases.push_back(c);
  c = Case("TimeMajorBatch2", 2, 5, 3, 4);
  c.time_major = true;
  cases.push_back(c);
  c = Case("Batch2", 2, 5, 3, 4);
  cases.push_back(c);
  c = Case("ReluActivation", 2, 4, 3, 3);
  c.activation = Activation::kRelu;
  cases.push_back(c);
  c = Case("ConstantInitialState", 2, 3, 2, 3);
  c.constant_state = true;
  c.peepholes = true;
  cases.push_back(c);
  c = Case("Everything", 2, 6, 3, 5);
  c.out = 3;
  c.peepholes = true;
  c.projection_bias = true;
  c.cell_clip = 0.4f;
  c.proj_clip = 0.3f;
  c.time_major = true;
  c.constant_state = true;
  cases.push_back(c);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Shapes, LstmAgainstReference, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<LstmCase>& param) {
                           return std::string(param.param.name);
                         });

// A valid model to break: 1 sequence, 2 steps, 2 features, 3 cells, zero variable state. Each
// change replaces input `slot` by a constant of `shape` (absent when the shape is empty).
struct Change {
  int slot;
  std::vector<int32_t> shape;
};

Status SmallModelStatus(const std::vector<Change>& changes, bool cifg = false,
                        const OpOptions& options = {}, std::vector<int32_t> y_shape = {1, 2, 3}) {
  LstmCase c = Case("small", 1, 2, 2, 3);
  c.cifg = cifg;
  const LstmValues v = RandomValues(c, 7u);
  ModelBuilder b;
  std::vector<int32_t> in = AbsentInputs();
  in[0] = b.AddTensor("x", {1, 2, 2});
  for (int gate = 0; gate < 4; ++gate) {
    if (v.w[gate].empty()) continue;
    in[1 + gate] = b.AddConstant("w", {3, 2}, v.w[gate]);
    in[5 + gate] = b.AddConstant("r", {3, 3}, v.r[gate]);
    in[12 + gate] = b.AddConstant("b", {3}, v.bias[gate]);
  }
  in[18] = b.AddVariable("h0", {1, 3});
  in[19] = b.AddVariable("c0", {1, 3});
  for (const Change& change : changes) {
    size_t count = 1;
    for (int32_t d : change.shape) count *= static_cast<size_t>(d);
    in[static_cast<size_t>(change.slot)] =
        change.shape.empty()
            ? -1
            : b.AddConstant("changed", change.shape, std::vector<float>(count, 0.25f));
  }
  const int y = b.AddTensor("y", std::move(y_shape));
  b.AddOperator(op::kUnidirectionalSequenceLstm, in, {y}, options);
  b.SetInputs({in[0]});
  b.SetOutputs({y});
  return TryRun(b, {std::vector<float>(4, 0.5f)});
}

std::string SmallModelError(const std::vector<Change>& changes, bool cifg = false) {
  const Status status = SmallModelStatus(changes, cifg);
  EXPECT_FALSE(status.ok());
  return status.message();
}

TEST(LstmPrepare, TheUnchangedSmallModelRunsAndSoDoesItsCifgVariant) {
  EXPECT_TRUE(SmallModelStatus({}).ok()) << SmallModelStatus({}).message();
  EXPECT_TRUE(SmallModelStatus({}, true).ok()) << SmallModelStatus({}, true).message();
}

TEST(LstmPrepare, WrongWeightBiasAndStateShapesNameTheInput) {
  const std::string forget = SmallModelError({{2, {3, 3}}});
  EXPECT_THAT(forget, HasSubstr("UNIDIRECTIONAL_SEQUENCE_LSTM): input 2 (tensor "));
  EXPECT_THAT(forget, HasSubstr("'changed') has shape [3, 3], expected [3, 2] (input weights of "
                                "the forget gate, [cells, in])"));
  EXPECT_THAT(SmallModelError({{7, {3, 2}}}),
              HasSubstr("expected [3, 3] (recurrent weights of the cell gate, [cells, out])"));
  EXPECT_THAT(SmallModelError({{15, {4}}}), HasSubstr("(bias of the output gate, [cells])"));
  EXPECT_THAT(SmallModelError({{13, {}}}),
              HasSubstr("input 13 (bias of the forget gate) is absent"));
  EXPECT_THAT(SmallModelError({{19, {1, 2}}}),
              HasSubstr("the initial cell state) has 2 elements, expected 3 ([batch, cells])"));
  EXPECT_THAT(SmallModelError({{18, {}}}),
              HasSubstr("input 18 (the initial output state) is absent"));
}

TEST(LstmPrepare, InconsistentOptionalInputsAreRefused) {
  EXPECT_THAT(SmallModelError({{5, {}}}), HasSubstr("or neither (CIFG)"));
  EXPECT_THAT(SmallModelError({{12, {3}}}, true),
              HasSubstr("the input gate has a bias (input 12)"));
  EXPECT_THAT(SmallModelError({{10, {3}}}),
              HasSubstr("need both the forget and the output gate's (inputs 10 and 11)"));
  EXPECT_THAT(SmallModelError({{9, {3}}, {10, {3}}, {11, {3}}}, true),
              HasSubstr("a peephole for the input gate (input 9) but no input gate (CIFG)"));
  EXPECT_THAT(SmallModelError({{10, {3}}, {11, {3}}}),
              HasSubstr("but not for the input gate (input 9)"));
  EXPECT_THAT(SmallModelError({{9, {2}}, {10, {3}}, {11, {3}}}),
              HasSubstr("expected [3] (peephole weights, [cells])"));
  EXPECT_THAT(SmallModelError({{17, {3}}}), HasSubstr("a projection bias (input 17) without"));
  EXPECT_THAT(SmallModelError({{16, {3, 2}}}),
              HasSubstr("expected [3, 3] (projection weights, [out, cells])"));
  // A projection narrower than the cells: the recurrent weights stay [cells, 3].
  EXPECT_TRUE(SmallModelStatus({{16, {3, 3}}, {17, {3}}}).ok());
}

TEST(LstmPrepare, LayerNormDiagonalWeightsAndOtherAritiesAreUnsupportedOrInvalid) {
  const Status layer_norm = SmallModelStatus({{21, {3}}});
  EXPECT_EQ(layer_norm.code(), StatusCode::kUnsupported);
  EXPECT_THAT(layer_norm.message(),
              HasSubstr("input 21 is a layer-norm coefficient; the layer-normalised LSTM is not "
                        "supported"));
  OpOptions diagonal;
  diagonal.diagonal_recurrent_tensors = true;
  const Status diagonal_status = SmallModelStatus({}, false, diagonal);
  EXPECT_EQ(diagonal_status.code(), StatusCode::kUnsupported);
  EXPECT_THAT(diagonal_status.message(), HasSubstr("diagonal recurrent weights"));

  ModelBuilder arity;
  std::vector<int32_t> in(22, -1);
  in[0] = arity.AddTensor("x", {1, 2, 2});
  const int y = arity.AddTensor("y", {1, 2, 3});
  arity.AddOperator(op::kUnidirectionalSequenceLstm, in, {y});
  arity.SetInputs({in[0]});
  arity.SetOutputs({y});
  EXPECT_THAT(TryRun(arity, {std::vector<float>(4, 0.5f)}).message(),
              HasSubstr("has 22 inputs, expected 20 or 24"));
}

TEST(LstmPrepare, TheOutputMustHaveTheLayoutTimeMajorSays) {
  OpOptions time_major;
  time_major.time_major = true;
  // x [1, 2, 2] read time-major is 1 step of 2 sequences: the output is [1, 2, 3] either way, but
  // the states then need 2 rows.
  EXPECT_THAT(SmallModelStatus({}, false, time_major).message(),
              HasSubstr("the initial output state) has 3 elements, expected 6"));
  EXPECT_THAT(SmallModelStatus({}, false, {}, {2, 1, 3}).message(),
              HasSubstr("has shape [2, 1, 3], expected [1, 2, 3] ([batch, time, out])"));
}

}  // namespace
}  // namespace trainscope
