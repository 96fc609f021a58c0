// SPDX-License-Identifier: Apache-2.0
//
// BackwardMath::kOnertMicro: each operator's onert-micro backward against values computed by
// hand from the formulas of research/onert-micro-training.md §7 and §9, beside the correct
// result for the same case, so a test fails both when the emulation drifts and when it
// silently computes the correct gradient.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "engine/exec/trainer.h"
#include "engine/kernels/kernel.h"
#include "engine/model/model_builder.h"
#include "engine/train/optimizers.h"
#include "tests/engine/kernels/kernel_harness.h"

namespace trainscope {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::KernelHarness;

// Runs the backward pass of operator `k` in `math` with the given gradient buffers; the op
// trains only when told.
Status Backward(KernelHarness& h, uint32_t k, BackwardMath math,
                const std::map<int, std::vector<float>*>& buffers, TrainRank rank = TrainRank::kAll,
                bool is_last_layer = false, bool trainable = false) {
  return h.Backward(k, buffers, {trainable, rank, is_last_layer, math});
}

struct ConvModel {
  ModelBuilder builder;
  int x = 0, w = 0, y = 0;
};

ConvModel Conv(std::vector<int32_t> in, std::vector<int32_t> filters, std::vector<float> weights,
               std::vector<int32_t> out, Padding padding, int stride) {
  ConvModel m;
  m.x = m.builder.AddTensor("x", std::move(in));
  m.w = m.builder.AddConstant("w", std::move(filters), weights);
  m.y = m.builder.AddTensor("y", std::move(out));
  OpOptions o;
  o.padding = padding;
  o.stride_h = o.stride_w = stride;
  m.builder.AddOperator(op::kConv2D, {m.x, m.w, -1}, {m.y}, o);
  m.builder.SetInputs({m.x});
  m.builder.SetOutputs({m.y});
  return m;
}

// dW of both maths for a conv whose output gradient is all ones.
void WeightGradients(ConvModel& m, const std::vector<float>& x, size_t weight_count,
                     std::vector<float>* correct, std::vector<float>* onert) {
  KernelHarness h;
  ASSERT_TRUE(h.Load(m.builder).ok());
  h.Set(m.x, x);
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy(h.Values(m.y).size(), 1.0f);
  for (auto [math, dw] :
       {std::pair{BackwardMath::kCorrect, correct}, std::pair{BackwardMath::kOnertMicro, onert}}) {
    dw->assign(weight_count, 0.0f);
    ASSERT_TRUE(Backward(h, 0, math, {{m.y, &dy}, {m.w, dw}}, TrainRank::kAll, true, true).ok());
  }
}

TEST(OnertMath, Conv2DWeightGradientIgnoresSamePadding) {
  // x = 1..9 on 3x3, a 3x3 filter, SAME (one padding cell each side), dY = 1. onert-micro sums
  // x[ky + oy][kx + ox] over the cells inside x: dW[ky][kx] = the sum of rows ky..2, columns
  // kx..2. The correct dW[1][1] sums all of x (45), dW[0][0] the top-left 2x2 (1+2+4+5).
  ConvModel m = Conv({1, 3, 3, 1}, {1, 3, 3, 1}, std::vector<float>(9, 0.5f), {1, 3, 3, 1},
                     Padding::kSame, 1);
  std::vector<float> correct, onert;
  WeightGradients(m, {1, 2, 3, 4, 5, 6, 7, 8, 9}, 9, &correct, &onert);
  EXPECT_THAT(onert,
              ElementsAreArray({45.0f, 33.0f, 18.0f, 39.0f, 28.0f, 15.0f, 24.0f, 17.0f, 9.0f}));
  EXPECT_FLOAT_EQ(correct[0], 12.0f);
  EXPECT_FLOAT_EQ(correct[4], 45.0f);
}

TEST(OnertMath, Conv2DWeightGradientSwapsStrideAndDilation) {
  // A 1x1 filter with stride 2 on x = 1..9 (3x3): outputs at (0,0) (0,2) (2,0) (2,2), so the
  // correct dW = 1+3+7+9 = 20. onert-micro multiplies the output index by the dilation (1):
  // x[oy][ox] for oy, ox < 2, 1+2+4+5 = 12.
  ConvModel m = Conv({1, 3, 3, 1}, {1, 1, 1, 1}, {1.0f}, {1, 2, 2, 1}, Padding::kValid, 2);
  std::vector<float> correct, onert;
  WeightGradients(m, {1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, &correct, &onert);
  EXPECT_FLOAT_EQ(correct[0], 20.0f);
  EXPECT_FLOAT_EQ(onert[0], 12.0f);
}

TEST(OnertMath, Conv2DInputGradientKeepsOnlyTheLastOutputChannel) {
  // Two 1x1 filters w = 2 and 3 on a 2x2 input, dY = 1: correct dX = 2 + 3 everywhere;
  // onert-micro overwrites channel 0's sum with channel 1's.
  ConvModel m = Conv({1, 2, 2, 1}, {2, 1, 1, 1}, {2.0f, 3.0f}, {1, 2, 2, 2}, Padding::kValid, 1);
  KernelHarness h;
  ASSERT_TRUE(h.Load(m.builder).ok());
  h.Set(m.x, {1, 2, 3, 4});
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy(8, 1.0f);
  std::vector<float> correct(4, 0.0f), onert(4, 0.0f);
  ASSERT_TRUE(Backward(h, 0, BackwardMath::kCorrect, {{m.y, &dy}, {m.x, &correct}}).ok());
  ASSERT_TRUE(Backward(h, 0, BackwardMath::kOnertMicro, {{m.y, &dy}, {m.x, &onert}}).ok());
  EXPECT_THAT(correct, ElementsAreArray({5.0f, 5.0f, 5.0f, 5.0f}));
  EXPECT_THAT(onert, ElementsAreArray({3.0f, 3.0f, 3.0f, 3.0f}));
}

TEST(OnertMath, Conv2DInputGradientMirrorsColumnsWithoutPaddingTheOutputGradient) {
  // x is 1x3, the filter [1 2] (1x2), VALID: y has 2 columns, dY = [1 10]. Correct (transposed
  // convolution): dX = [1*1, 1*2 + 10*1, 10*2] = [1, 12, 20]. onert-micro: dX[x] =
  // sum_fx dY[x + fx] * [2 1][fx] over dY's columns only: [1*2 + 10*1, 10*2, 0].
  ConvModel m = Conv({1, 1, 3, 1}, {1, 1, 2, 1}, {1.0f, 2.0f}, {1, 1, 2, 1}, Padding::kValid, 1);
  KernelHarness h;
  ASSERT_TRUE(h.Load(m.builder).ok());
  h.Set(m.x, {0.5f, -1.0f, 2.0f});
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy = {1.0f, 10.0f};
  std::vector<float> correct(3, 0.0f), onert(3, 0.0f);
  ASSERT_TRUE(Backward(h, 0, BackwardMath::kCorrect, {{m.y, &dy}, {m.x, &correct}}).ok());
  ASSERT_TRUE(Backward(h, 0, BackwardMath::kOnertMicro, {{m.y, &dy}, {m.x, &onert}}).ok());
  EXPECT_THAT(correct, ElementsAreArray({1.0f, 12.0f, 20.0f}));
  EXPECT_THAT(onert, ElementsAreArray({12.0f, 20.0f, 0.0f}));
}

TEST(OnertMath, Conv2DLowerHalfComputesTheUpperChannelsGradient) {
  // Two 1x1 filters, x = 3, dY = [1 10]: the LOWER half is channel 1 (dW = 30); onert-micro
  // writes channel 0's gradient (3) into the compact buffer.
  ConvModel m = Conv({1, 1, 1, 1}, {2, 1, 1, 1}, {1.0f, 1.0f}, {1, 1, 1, 2}, Padding::kValid, 1);
  KernelHarness h;
  ASSERT_TRUE(h.Load(m.builder).ok());
  h.Set(m.x, {3.0f});
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy = {1.0f, 10.0f};
  std::vector<float> correct(1, 0.0f), onert(1, 0.0f);
  ASSERT_TRUE(Backward(h, 0, BackwardMath::kCorrect, {{m.y, &dy}, {m.w, &correct}},
                       TrainRank::kLowerHalf, true, true)
                  .ok());
  ASSERT_TRUE(Backward(h, 0, BackwardMath::kOnertMicro, {{m.y, &dy}, {m.w, &onert}},
                       TrainRank::kLowerHalf, true, true)
                  .ok());
  EXPECT_FLOAT_EQ(correct[0], 30.0f);
  EXPECT_FLOAT_EQ(onert[0], 3.0f);
}

TEST(OnertMath, Conv2DAgreesWithTheCorrectGradientWhereOnertMicroIsRight) {
  // VALID, stride 1, a single output channel, the first layer: onert-micro's dW is exact.
  ConvModel m = Conv({1, 3, 3, 1}, {1, 2, 2, 1}, {0.5f, -1.0f, 2.0f, 0.25f}, {1, 2, 2, 1},
                     Padding::kValid, 1);
  std::vector<float> correct, onert;
  WeightGradients(m, {1, -2, 3, 4, 5, -6, 7, 8, 9}, 4, &correct, &onert);
  EXPECT_THAT(onert, ElementsAreArray(correct));
}

TEST(OnertMath, MaxPool2DOverlappingWindowsOverwrite) {
  // Windows [0, 5] and [5, 0] share the maximum 5: correct 1 + 2, onert-micro the later 2.
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 1, 3, 1});
  const int y = b.AddTensor("y", {1, 1, 2, 1});
  OpOptions o;
  o.padding = Padding::kValid;
  o.filter_h = 1;
  o.filter_w = 2;
  o.stride_h = o.stride_w = 1;
  b.AddOperator(op::kMaxPool2D, {x}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  KernelHarness h;
  ASSERT_TRUE(h.Load(b).ok());
  h.Set(x, {0, 5, 0});
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy = {1, 2};
  std::vector<float> correct(3, 0.0f), onert(3, 0.0f);
  ASSERT_TRUE(Backward(h, 0, BackwardMath::kCorrect, {{x, &correct}, {y, &dy}}).ok());
  ASSERT_TRUE(Backward(h, 0, BackwardMath::kOnertMicro, {{x, &onert}, {y, &dy}}).ok());
  EXPECT_THAT(correct, ElementsAreArray({0.0f, 3.0f, 0.0f}));
  EXPECT_THAT(onert, ElementsAreArray({0.0f, 2.0f, 0.0f}));
}

TEST(OnertMath, SoftmaxBackwardIgnoresBeta) {
  // x = [0 0], beta 2: y = [.5 .5]; g = [1 0]: y.g = .5, correct dx = 2 * .5 * (g - .5) =
  // [.5 -.5]; onert-micro leaves the factor 2 out.
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 2});
  const int y = b.AddTensor("y", {1, 2});
  OpOptions o;
  o.beta = 2.0f;
  b.AddOperator(op::kSoftmax, {x}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  KernelHarness h;
  ASSERT_TRUE(h.Load(b).ok());
  h.Set(x, {0, 0});
  ASSERT_TRUE(h.Forward().ok());
  std::vector<float> dy = {1, 0};
  std::vector<float> correct(2, 0.0f), onert(2, 0.0f);
  ASSERT_TRUE(Backward(h, 0, BackwardMath::kCorrect, {{x, &correct}, {y, &dy}}).ok());
  ASSERT_TRUE(Backward(h, 0, BackwardMath::kOnertMicro, {{x, &onert}, {y, &dy}}).ok());
  EXPECT_THAT(correct, ElementsAreArray({0.5f, -0.5f}));
  EXPECT_THAT(onert, ElementsAreArray({0.25f, -0.25f}));
}

TEST(OnertMath, OperatorsOnertMicroComputesCorrectlyHaveNoSecondBackward) {
  for (int32_t opcode : {op::kFullyConnected, op::kRelu, op::kReshape, op::kDepthwiseConv2D}) {
    const OpRegistration* r = FindRegistration(opcode);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(BackwardOf(*r, BackwardMath::kOnertMicro), r->backward) << OpcodeName(opcode);
  }
  for (int32_t opcode : {op::kConv2D, op::kMaxPool2D, op::kSoftmax}) {
    const OpRegistration* r = FindRegistration(opcode);
    EXPECT_NE(BackwardOf(*r, BackwardMath::kOnertMicro), r->backward) << OpcodeName(opcode);
    EXPECT_EQ(BackwardOf(*r, BackwardMath::kCorrect), r->backward) << OpcodeName(opcode);
  }
}

// A 4x2 weight tensor whose LOWER half (rows 2 and 3) has the gradient 1 everywhere.
struct LowerHalf {
  std::vector<float> weights = std::vector<float>(8, 0.0f);
  std::vector<float> gradient = std::vector<float>(4, 1.0f);
  std::vector<float> m = std::vector<float>(4, 0.0f);
  std::vector<float> v = std::vector<float>(4, 0.0f);
  ParameterSlice Slice() {
    return {weights.data(), 8, 2, 2, 2, gradient.data(), m.data(), v.data()};
  }
};

TEST(OnertMath, SgdUpdatesTheFirstRowsWithTheLowerHalfsGradient) {
  LowerHalf correct, onert;
  ASSERT_TRUE(ApplySgd({1.0f}, 1, correct.Slice(), nullptr).ok());
  ASSERT_TRUE(
      ApplySgd({1.0f}, 1, AsOnertMicroUpdates(OptimizerKind::kSgd, onert.Slice()), nullptr).ok());
  EXPECT_THAT(correct.weights,
              ElementsAreArray({0.0f, 0.0f, 0.0f, 0.0f, -1.0f, -1.0f, -1.0f, -1.0f}));
  EXPECT_THAT(onert.weights,
              ElementsAreArray({-1.0f, -1.0f, -1.0f, -1.0f, 0.0f, 0.0f, 0.0f, 0.0f}));
}

TEST(OnertMath, AdamShiftsTheUpdateByTheRowOffsetInElements) {
  // First row 2 becomes element offset 2: elements 2..5 move, by lr on the first step.
  LowerHalf correct, onert;
  const AdamSettings adam{0.5f, 0.9f, 0.9f, 1e-7f};
  ASSERT_TRUE(ApplyAdam(adam, 1, correct.Slice(), nullptr).ok());
  ASSERT_TRUE(
      ApplyAdam(adam, 1, AsOnertMicroUpdates(OptimizerKind::kAdam, onert.Slice()), nullptr).ok());
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_NEAR(correct.weights[i], i >= 4 ? -0.5f : 0.0f, 1e-5f) << i;
    EXPECT_NEAR(onert.weights[i], i >= 2 && i < 6 ? -0.5f : 0.0f, 1e-5f) << i;
  }
}

TEST(OnertMath, UpperHalfAndFullSlicesAreUpdatedAsTheyAre) {
  LowerHalf rows;
  ParameterSlice upper = rows.Slice();
  upper.first_row = 0;
  for (OptimizerKind kind : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    const ParameterSlice same = AsOnertMicroUpdates(kind, upper);
    EXPECT_EQ(same.weights, upper.weights);
    EXPECT_EQ(same.element_count, upper.element_count);
    EXPECT_EQ(same.first_row, 0u);
  }
}

// x [1,4] -> FULLY_CONNECTED 4->3 -> SOFTMAX(beta) -> FULLY_CONNECTED 3->2, MSE.
std::vector<uint8_t> SoftmaxBetweenDense(float beta) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 4});
  const int w1 = b.AddConstant(
      "w1", {3, 4}, {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f, 0.2f, -0.1f, 0.3f, 0.3f, -0.4f, 0.2f});
  const int h = b.AddTensor("h", {1, 3});
  const int s = b.AddTensor("s", {1, 3});
  const int w2 = b.AddConstant("w2", {2, 3}, {0.5f, -0.3f, 0.2f, 0.1f, 0.4f, -0.6f});
  const int y = b.AddTensor("y", {1, 2});
  b.AddOperator(op::kFullyConnected, {x, w1, -1}, {h});
  OpOptions o;
  o.beta = beta;
  b.AddOperator(op::kSoftmax, {h}, {s}, o);
  b.AddOperator(op::kFullyConnected, {s, w2, -1}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  return bytes;
}

// The trained tensors after one SGD step in `math`, by tensor index.
std::map<int32_t, std::vector<float>> TrainOnce(const std::vector<uint8_t>& bytes,
                                                BackwardMath math,
                                                std::vector<std::string>* warnings = nullptr) {
  Model model;
  EXPECT_TRUE(Model::FromBytes(bytes, &model).ok());
  TrainingOptions options;
  options.learning_rate = 0.5f;
  options.math = math;
  Trainer trainer;
  const Status status = trainer.Init(&model, options, TrainabilityConfig{});
  EXPECT_TRUE(status.ok()) << status.message();
  if (warnings != nullptr) *warnings = trainer.warnings();
  DataSet data;
  data.inputs = {{1.0f, 2.0f, -1.0f, 0.5f}};
  data.targets = {1.0f, -1.0f};
  data.sample_count = 1;
  EXPECT_TRUE(trainer.TrainStep(data, 0).ok());
  std::map<int32_t, std::vector<float>> weights;
  for (const ParameterGradient& p : trainer.parameters()) {
    const float* w = trainer.parameter_data(p.tensor);
    const size_t n = model.graph().main().tensors[static_cast<size_t>(p.tensor)].element_count();
    weights[p.tensor].assign(w, w + n);
  }
  return weights;
}

TEST(OnertMath, TrainingIsTheSameWhereOnertMicroComputesCorrectly) {
  // beta 1: the only emulated operator computes what the correct one does, bit for bit.
  const std::vector<uint8_t> model = SoftmaxBetweenDense(1.0f);
  EXPECT_EQ(TrainOnce(model, BackwardMath::kOnertMicro), TrainOnce(model, BackwardMath::kCorrect));
}

TEST(OnertMath, TrainingDiffersBeforeASoftmaxWithBetaAndTheTrainerSaysWhy) {
  const std::vector<uint8_t> model = SoftmaxBetweenDense(2.0f);
  std::vector<std::string> warnings;
  auto onert = TrainOnce(model, BackwardMath::kOnertMicro, &warnings);
  auto correct = TrainOnce(model, BackwardMath::kCorrect);
  constexpr int32_t kW1 = 1, kW2 = 4;  // tensor indices in SoftmaxBetweenDense
  ASSERT_EQ(onert.size(), 2u);
  // w2 (after the softmax) learns the same; w1 (before it) does not.
  EXPECT_NE(onert[kW1], correct[kW1]);
  EXPECT_EQ(onert[kW2], correct[kW2]);
  EXPECT_THAT(::testing::PrintToString(warnings),
              HasSubstr("op 1 (SOFTMAX): computed as onert-micro does: beta is not 1"));
}

}  // namespace
}  // namespace trainscope
