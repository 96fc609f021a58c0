// SPDX-License-Identifier: Apache-2.0
//
// Finite-difference checks across several operators, run the way an executor runs them
// (reverse order, accumulating gradients): a tensor that fans out to two consumers, an operator
// that reads the same tensor twice, a small classifier shaped like onert-micro's simple-MNIST
// model, and the last-layer rule for ops of every kind.
#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/model/model_builder.h"
#include "tests/engine/kernels/gradient_check.h"
#include "tests/engine/kernels/op_models.h"

namespace trainscope {
namespace {

using testing::CheckGradients;
using testing::GradientCheck;
using testing::In;
using testing::Ints;
using testing::OneOp;
using testing::ValueStyle;

struct Case {
  std::string name;
  std::function<ModelBuilder()> build;
  GradientCheck check;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

OpOptions Softmax(float beta) {
  OpOptions o;
  o.beta = beta;
  return o;
}

OpOptions WithActivation(Activation activation) {
  OpOptions o;
  o.activation = activation;
  return o;
}

OpOptions Pool2x2() {
  OpOptions o;
  o.padding = Padding::kValid;
  o.filter_h = o.filter_w = 2;
  o.stride_h = o.stride_w = 2;
  return o;
}

// x [2, 4] -> FC (tanh) -> h [2, 3]; h feeds both SOFTMAX and ADD(h, softmax(h)) -> y.
ModelBuilder FanOutChain() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {2, 4});
  const int w = b.AddConstant("w", {3, 4}, std::vector<float>(12, 0.0f));
  const int bias = b.AddConstant("b", {3}, std::vector<float>(3, 0.0f));
  const int h = b.AddTensor("h", {2, 3});
  const int s = b.AddTensor("s", {2, 3});
  const int y = b.AddTensor("y", {2, 3});
  b.AddOperator(op::kFullyConnected, {x, w, bias}, {h}, WithActivation(Activation::kTanh));
  b.AddOperator(op::kSoftmax, {h}, {s}, Softmax(1.5f));
  b.AddOperator(op::kAdd, {h, s}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

// The simple-MNIST layout: CONV_2D -> MAX_POOL_2D -> RESHAPE -> FC -> SOFTMAX.
ModelBuilder SmallClassifier() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 6, 6, 1});
  const int cw = b.AddConstant("conv_w", {2, 3, 3, 1}, std::vector<float>(18, 0.0f));
  const int cb = b.AddConstant("conv_b", {2}, {0.0f, 0.0f});
  const int c = b.AddTensor("conv", {1, 4, 4, 2});
  OpOptions conv;
  conv.padding = Padding::kValid;
  conv.stride_w = conv.stride_h = 1;
  b.AddOperator(op::kConv2D, {x, cw, cb}, {c}, conv);
  const int p = b.AddTensor("pool", {1, 2, 2, 2});
  b.AddOperator(op::kMaxPool2D, {c}, {p}, Pool2x2());
  const int shape = b.AddConstantInt32("shape", {2}, {1, 8});
  const int r = b.AddTensor("flat", {1, 8});
  b.AddOperator(op::kReshape, {p, shape}, {r});
  const int fw = b.AddConstant("fc_w", {3, 8}, std::vector<float>(24, 0.0f));
  const int fb = b.AddConstant("fc_b", {3}, std::vector<float>(3, 0.0f));
  const int f = b.AddTensor("logits", {1, 3});
  b.AddOperator(op::kFullyConnected, {r, fw, fb}, {f});
  const int y = b.AddTensor("probs", {1, 3});
  b.AddOperator(op::kSoftmax, {f}, {y}, Softmax(1.0f));
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

GradientCheck Distinct() {
  GradientCheck check;
  check.values = ValueStyle::kDistinct;
  return check;
}

std::vector<Case> ChainCases() {
  return {
      {"FanOutThroughSoftmaxAndAdd", FanOutChain, {}},
      // MUL(x, x): both operand gradients land in the same buffer.
      {"MulOfATensorWithItself",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", {2, 3});
         const int y = b.AddTensor("y", {2, 3});
         b.AddOperator(op::kMul, {x, x}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b;
       },
       {}},
      {"ConvPoolReshapeFcSoftmax", SmallClassifier, Distinct()},
  };
}

class ChainGradient : public ::testing::TestWithParam<Case> {};

TEST_P(ChainGradient, MatchesCentralDifferences) {
  CheckGradients(GetParam().build(), GetParam().check);
}

INSTANTIATE_TEST_SUITE_P(Chains, ChainGradient, ::testing::ValuesIn(ChainCases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return param.param.name;
                         });

GradientCheck LastLayer() {
  GradientCheck check;
  check.is_last_layer = true;
  return check;
}

TEST(LastLayer, LeavesTheInputGradientOfEveryOpKindUntouched) {
  CheckGradients(OneOp(op::kSoftmax, {In({1, 4})}, {1, 4}, Softmax(1.0f)), LastLayer());
  CheckGradients(OneOp(op::kMaxPool2D, {In({1, 2, 2, 1})}, {1, 1, 1, 1}, Pool2x2()), LastLayer());
  CheckGradients(OneOp(op::kMul, {In({2}), In({2})}, {2}), LastLayer());
  CheckGradients(OneOp(op::kGather, {In({3}), Ints({1}, {1})}, {1}), LastLayer());
  CheckGradients(OneOp(op::kReshape, {In({4}), Ints({2}, {2, 2})}, {2, 2}), LastLayer());
}

}  // namespace
}  // namespace trainscope
