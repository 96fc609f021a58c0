// SPDX-License-Identifier: Apache-2.0
//
// Finite-difference checks of the trainable ops' backward kernels (FULLY_CONNECTED, CONV_2D,
// DEPTHWISE_CONV_2D): input, weight and bias gradients over shapes, paddings, strides,
// dilations, fused activations and batches, plus the rank contract (compact half-rank weight
// gradients, ONLY_BIAS, non-trainable, last layer).
#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/model/model_builder.h"
#include "tests/engine/kernels/gradient_check.h"

namespace trainscope {
namespace {

using testing::CheckGradients;
using testing::GradientCheck;
using testing::ValueStyle;

// Constants start at zero; CheckGradients fills every leaf with random values.
std::vector<float> Zeros(size_t count) {
  return std::vector<float>(count, 0.0f);
}

size_t Count(const std::vector<int32_t>& shape) {
  size_t count = 1;
  for (int32_t d : shape) count *= static_cast<size_t>(d);
  return count;
}

ModelBuilder FcModel(std::vector<int32_t> in_shape, int32_t in, int32_t out, Activation act,
                     bool bias = true, bool keep_num_dims = false) {
  ModelBuilder b;
  const size_t rows = Count(in_shape) / static_cast<size_t>(in);
  std::vector<int32_t> out_shape = {static_cast<int32_t>(rows), out};
  if (keep_num_dims) {
    out_shape = in_shape;
    out_shape.back() = out;
  }
  const int x = b.AddTensor("x", std::move(in_shape));
  const int w = b.AddConstant("w", {out, in}, Zeros(static_cast<size_t>(out * in)));
  const int bb = bias ? b.AddConstant("b", {out}, Zeros(static_cast<size_t>(out))) : -1;
  const int y = b.AddTensor("y", out_shape);
  OpOptions o;
  o.activation = act;
  o.keep_num_dims = keep_num_dims;
  b.AddOperator(op::kFullyConnected, {x, w, bb}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

struct ConvSpec {
  std::vector<int32_t> input;  // NHWC
  int32_t out_c = 0;           // CONV_2D: output channels; DEPTHWISE: multiplier
  int32_t kh = 0, kw = 0;
  Padding padding = Padding::kValid;
  int32_t sh = 1, sw = 1, dh = 1, dw = 1;
  Activation activation = Activation::kNone;
  bool bias = true;
};

int32_t OutSize(Padding padding, int32_t in, int32_t k, int32_t s, int32_t d) {
  const int32_t effective = (k - 1) * d + 1;
  return padding == Padding::kSame ? (in + s - 1) / s : (in - effective + s) / s;
}

ModelBuilder ConvModel(const ConvSpec& c, bool depthwise) {
  ModelBuilder b;
  const int32_t in_c = c.input[3];
  const int32_t channels = depthwise ? in_c * c.out_c : c.out_c;
  const std::vector<int32_t> w_shape = depthwise ? std::vector<int32_t>{1, c.kh, c.kw, channels}
                                                 : std::vector<int32_t>{channels, c.kh, c.kw, in_c};
  const int x = b.AddTensor("x", c.input);
  const int w = b.AddConstant("w", w_shape, Zeros(Count(w_shape)));
  const int bias =
      c.bias ? b.AddConstant("b", {channels}, Zeros(static_cast<size_t>(channels))) : -1;
  const int y = b.AddTensor("y", {c.input[0], OutSize(c.padding, c.input[1], c.kh, c.sh, c.dh),
                                  OutSize(c.padding, c.input[2], c.kw, c.sw, c.dw), channels});
  OpOptions o;
  o.padding = c.padding;
  o.stride_h = c.sh;
  o.stride_w = c.sw;
  o.dilation_h = c.dh;
  o.dilation_w = c.dw;
  o.activation = c.activation;
  if (depthwise) o.depth_multiplier = c.out_c;
  b.AddOperator(depthwise ? op::kDepthwiseConv2D : op::kConv2D, {x, w, bias}, {y}, o);
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

struct Case {
  std::string name;
  std::function<ModelBuilder()> build;
  GradientCheck check;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class DenseGradient : public ::testing::TestWithParam<Case> {};

TEST_P(DenseGradient, MatchesCentralDifferences) {
  CheckGradients(GetParam().build(), GetParam().check);
}

GradientCheck Rank(TrainRank rank) {
  GradientCheck check;
  check.rank = rank;
  return check;
}

GradientCheck NotTrainable() {
  GradientCheck check;
  check.trainable = false;
  return check;
}

GradientCheck LastLayer() {
  GradientCheck check;
  check.is_last_layer = true;
  return check;
}

std::vector<Case> FullyConnectedCases() {
  std::vector<Case> cases = {
      {"Plain",
       [] {
         return FcModel({1, 5}, 5, 3, Activation::kNone);
       },
       {}},
      {"NoBias",
       [] {
         return FcModel({1, 4}, 4, 3, Activation::kNone, false);
       },
       {}},
      {"BatchRows",
       [] {
         return FcModel({3, 4}, 4, 2, Activation::kNone);
       },
       {}},
      {"KeepNumDims",
       [] {
         return FcModel({2, 2, 3}, 3, 4, Activation::kNone, true, true);
       },
       {}},
      {"Relu",
       [] {
         return FcModel({2, 6}, 6, 5, Activation::kRelu);
       },
       {}},
      {"Relu6",
       [] {
         return FcModel({2, 4}, 4, 5, Activation::kRelu6);
       },
       {}},
      {"ReluN1To1",
       [] {
         return FcModel({2, 4}, 4, 5, Activation::kReluN1To1);
       },
       {}},
      {"Tanh",
       [] {
         return FcModel({2, 4}, 4, 3, Activation::kTanh);
       },
       {}},
      {"UpperHalf",
       [] {
         return FcModel({2, 3}, 3, 5, Activation::kRelu);
       },
       Rank(TrainRank::kUpperHalf)},
      {"LowerHalf",
       [] {
         return FcModel({2, 3}, 3, 5, Activation::kRelu);
       },
       Rank(TrainRank::kLowerHalf)},
      {"OnlyBias",
       [] {
         return FcModel({2, 3}, 3, 4, Activation::kNone);
       },
       Rank(TrainRank::kOnlyBias)},
      {"NotTrainable",
       [] {
         return FcModel({1, 3}, 3, 4, Activation::kNone);
       },
       NotTrainable()},
      {"LastLayer",
       [] {
         return FcModel({1, 3}, 3, 4, Activation::kTanh);
       },
       LastLayer()},
  };
  for (Case& c : cases) c.name = "FullyConnected" + c.name;
  return cases;
}

std::vector<Case> ConvCases(bool depthwise) {
  ConvSpec valid{{1, 5, 5, 2}, 3, 3, 3};
  ConvSpec same = valid;
  same.padding = Padding::kSame;
  ConvSpec strided{{1, 6, 5, 2}, 2, 3, 2, Padding::kSame, 2, 3};
  ConvSpec strided_valid = strided;
  strided_valid.padding = Padding::kValid;
  ConvSpec dilated{{1, 6, 6, 1}, 2, 2, 3, Padding::kSame, 1, 1, 2, 3};
  ConvSpec dilated_strided{{2, 7, 6, 2}, 2, 2, 2, Padding::kValid, 2, 1, 2, 2};
  ConvSpec relu{{1, 4, 4, 2}, 3, 2, 2, Padding::kSame, 1, 1, 1, 1, Activation::kRelu};
  ConvSpec relu6 = relu;
  relu6.activation = Activation::kRelu6;
  ConvSpec tanh_no_bias{{1, 4, 3, 3},      2,    2, 2, Padding::kValid, 1, 1, 1, 1,
                        Activation::kTanh, false};
  ConvSpec halves{{1, 4, 4, 2}, 5, 2, 2, Padding::kSame, 1, 1, 1, 1, Activation::kRelu};
  const std::string prefix = depthwise ? "DepthwiseConv2D" : "Conv2D";
  auto make = [depthwise, &prefix](const std::string& name, ConvSpec spec, GradientCheck check) {
    return Case{prefix + name, [spec, depthwise] { return ConvModel(spec, depthwise); }, check};
  };
  return {
      make("Valid", valid, {}),
      make("Same", same, {}),
      make("SameStrided", strided, {}),
      make("ValidStrided", strided_valid, {}),
      make("SameDilated", dilated, {}),
      make("ValidDilatedStridedBatch2", dilated_strided, {}),
      make("Relu", relu, {}),
      make("Relu6", relu6, {}),
      make("TanhNoBias", tanh_no_bias, {}),
      make("UpperHalf", halves, Rank(TrainRank::kUpperHalf)),
      make("LowerHalf", halves, Rank(TrainRank::kLowerHalf)),
      make("OnlyBias", valid, Rank(TrainRank::kOnlyBias)),
      make("NotTrainable", same, NotTrainable()),
      make("LastLayer", same, LastLayer()),
  };
}

std::vector<Case> AllCases() {
  std::vector<Case> cases = FullyConnectedCases();
  for (bool depthwise : {false, true}) {
    for (Case& c : ConvCases(depthwise)) cases.push_back(c);
  }
  for (size_t i = 0; i < cases.size(); ++i) cases[i].check.seed = static_cast<uint32_t>(100 + i);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(TrainableOps, DenseGradient, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return param.param.name;
                         });

}  // namespace
}  // namespace trainscope
