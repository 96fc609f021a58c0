// SPDX-License-Identifier: Apache-2.0
//
// GRU: the forward pass against a hand-computed step, and every gradient (both weights, both
// biases, the input sequence and the initial state) against central differences, over sequence
// lengths, widths, absent biases, ONLY_BIAS and a last layer.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/kernels/kernel.h"
#include "engine/kernels/reference_runner.h"
#include "engine/model/model.h"
#include "engine/model/model_builder.h"
#include "tests/engine/kernels/gradient_check.h"

namespace trainscope {
namespace {

using testing::CheckGradients;
using testing::GradientCheck;

std::vector<float> Zeros(size_t count) {
  return std::vector<float>(count, 0.0f);
}

// x [time, 1, in] -> GRU(units) -> h [1, units].
ModelBuilder GruModel(int time, int in, int units, bool biases, bool constant_state = true) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {time, 1, in});
  const int wx =
      b.AddConstant("gru/wx", {3 * units, in}, Zeros(static_cast<size_t>(3 * units * in)));
  const int bx =
      biases ? b.AddConstant("gru/bx", {3 * units}, Zeros(static_cast<size_t>(3 * units))) : -1;
  const int wh =
      b.AddConstant("gru/wh", {3 * units, units}, Zeros(static_cast<size_t>(3 * units * units)));
  const int bh =
      biases ? b.AddConstant("gru/bh", {3 * units}, Zeros(static_cast<size_t>(3 * units))) : -1;
  const int state = constant_state
                        ? b.AddConstant("gru/h0", {1, units}, Zeros(static_cast<size_t>(units)))
                        : b.AddTensor("h0", {1, units});
  const int y = b.AddTensor("h", {1, units});
  b.AddOperator(op::kGru, {x, wx, bx, wh, bh, state}, {y});
  b.SetInputs(constant_state ? std::vector<int>{x} : std::vector<int>{x, state});
  b.SetOutputs({y});
  return b;
}

struct GruCase {
  int time, in, units;
  bool biases;
};

class GruGradient : public ::testing::TestWithParam<GruCase> {};

TEST_P(GruGradient, EveryGradientMatchesCentralDifferences) {
  const GruCase c = GetParam();
  GradientCheck check;
  check.seed = static_cast<uint32_t>(c.time * 100 + c.units);
  CheckGradients(GruModel(c.time, c.in, c.units, c.biases), check);
}

INSTANTIATE_TEST_SUITE_P(Shapes, GruGradient,
                         ::testing::Values(GruCase{1, 3, 2, true}, GruCase{3, 4, 5, true},
                                           GruCase{6, 2, 3, false}, GruCase{4, 5, 1, true}));

TEST(GruGradient, OnlyBiasTrainsBothBiasesAndNoWeights) {
  GradientCheck check;
  check.rank = TrainRank::kOnlyBias;
  CheckGradients(GruModel(3, 2, 3, true), check);
}

TEST(GruGradient, LastLayerPassesNoInputGradientButTrains) {
  GradientCheck check;
  check.is_last_layer = true;
  CheckGradients(GruModel(3, 2, 3, true), check);
}

TEST(GruGradient, AComputedStateGetsItsGradientLikeAnInput) {
  CheckGradients(GruModel(3, 2, 4, true, /*constant_state=*/false), GradientCheck());
}

// One step by hand: H = 1, in = 1, every weight chosen so each gate is a known value.
TEST(GruForward, OneStepByHand) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 1, 1});
  // rows z, r, n
  const int wx = b.AddConstant("wx", {3, 1}, {0.5f, -1.0f, 2.0f});
  const int bx = b.AddConstant("bx", {3}, {0.1f, 0.2f, 0.3f});
  const int wh = b.AddConstant("wh", {3, 1}, {1.5f, 0.25f, -0.5f});
  const int bh = b.AddConstant("bh", {3}, {-0.2f, 0.1f, 0.4f});
  const int h0 = b.AddConstant("h0", {1, 1}, {0.6f});
  const int y = b.AddTensor("h", {1, 1});
  b.AddOperator(op::kGru, {x, wx, bx, wh, bh, h0}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(b.Finish(&bytes).ok());
  Model model;
  ASSERT_TRUE(Model::FromBytes(std::move(bytes), &model).ok());
  ASSERT_TRUE(CheckRunnable(model.graph().main()).ok());
  const float input = 0.8f;
  std::vector<std::vector<float>> outputs;
  const Status run = RunForward(model, {{input}}, &outputs);
  ASSERT_TRUE(run.ok()) << run.message();
  const double h = 0.6, xv = input;
  const double z = 1.0 / (1.0 + std::exp(-((0.5 * xv + 0.1) + (1.5 * h - 0.2))));
  const double r = 1.0 / (1.0 + std::exp(-((-1.0 * xv + 0.2) + (0.25 * h + 0.1))));
  const double n = std::tanh((2.0 * xv + 0.3) + r * (-0.5 * h + 0.4));
  const double expected = z * h + (1.0 - z) * n;
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_EQ(outputs[0].size(), 1u);
  EXPECT_NEAR(outputs[0][0], expected, 1e-6);
}

TEST(GruPrepare, RefusesSequencesBatchesAndWrongWeights) {
  const auto prepare = [](ModelBuilder b) {
    std::vector<uint8_t> bytes;
    EXPECT_TRUE(b.Finish(&bytes).ok());
    Model model;
    EXPECT_TRUE(Model::FromBytes(std::move(bytes), &model).ok());
    return CheckRunnable(model.graph().main());
  };
  EXPECT_TRUE(prepare(GruModel(2, 3, 4, true)).ok());
  {
    ModelBuilder b;  // batch 2
    const int x = b.AddTensor("x", {2, 2, 3});
    const int wx = b.AddConstant("wx", {6, 3}, Zeros(18));
    const int wh = b.AddConstant("wh", {6, 2}, Zeros(12));
    const int h0 = b.AddConstant("h0", {1, 2}, Zeros(2));
    const int y = b.AddTensor("h", {1, 2});
    b.AddOperator(op::kGru, {x, wx, -1, wh, -1, h0}, {y});
    b.SetInputs({x});
    b.SetOutputs({y});
    const Status status = prepare(b);
    EXPECT_EQ(status.code(), StatusCode::kUnsupported);
    EXPECT_NE(std::string(status.message()).find("batch 1"), std::string::npos) << status.message();
  }
  {
    ModelBuilder b;  // the whole sequence as output
    const int x = b.AddTensor("x", {4, 1, 3});
    const int wx = b.AddConstant("wx", {6, 3}, Zeros(18));
    const int wh = b.AddConstant("wh", {6, 2}, Zeros(12));
    const int h0 = b.AddConstant("h0", {1, 2}, Zeros(2));
    const int y = b.AddTensor("h", {4, 2});
    b.AddOperator(op::kGru, {x, wx, -1, wh, -1, h0}, {y});
    b.SetInputs({x});
    b.SetOutputs({y});
    const Status status = prepare(b);
    EXPECT_NE(std::string(status.message()).find("last state only"), std::string::npos)
        << status.message();
  }
  {
    ModelBuilder b;  // hidden weights not [3H, H]
    const int x = b.AddTensor("x", {4, 1, 3});
    const int wx = b.AddConstant("wx", {6, 3}, Zeros(18));
    const int wh = b.AddConstant("wh", {5, 2}, Zeros(10));
    const int h0 = b.AddConstant("h0", {1, 2}, Zeros(2));
    const int y = b.AddTensor("h", {1, 2});
    b.AddOperator(op::kGru, {x, wx, -1, wh, -1, h0}, {y});
    b.SetInputs({x});
    b.SetOutputs({y});
    EXPECT_EQ(prepare(b).code(), StatusCode::kInvalidModel);
  }
}

}  // namespace
}  // namespace trainscope
