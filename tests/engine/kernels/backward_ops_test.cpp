// SPDX-License-Identifier: Apache-2.0
//
// Finite-difference checks of every backward kernel without trainable parameters: pools,
// softmax, the copy ops, strided slices, element-wise activations, broadcasting binary ops,
// mean, concatenation, pad, transpose and gather.
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
using testing::Const;
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

GradientCheck Values(ValueStyle style, float scale = 1.0f) {
  GradientCheck check;
  check.values = style;
  check.scale = scale;
  return check;
}

OpOptions Pool(Padding padding, int filter_h, int filter_w, int stride_h, int stride_w,
               Activation activation = Activation::kNone) {
  OpOptions o;
  o.padding = padding;
  o.filter_h = filter_h;
  o.filter_w = filter_w;
  o.stride_h = stride_h;
  o.stride_w = stride_w;
  o.activation = activation;
  return o;
}

OpOptions WithActivation(Activation activation) {
  OpOptions o;
  o.activation = activation;
  return o;
}

OpOptions WithAxis(int32_t axis, Activation activation = Activation::kNone) {
  OpOptions o;
  o.axis = axis;
  o.activation = activation;
  return o;
}

OpOptions Softmax(float beta) {
  OpOptions o;
  o.beta = beta;
  return o;
}

OpOptions Slice(int32_t begin_mask, int32_t end_mask, int32_t ellipsis, int32_t new_axis,
                int32_t shrink) {
  OpOptions o;
  o.begin_mask = begin_mask;
  o.end_mask = end_mask;
  o.ellipsis_mask = ellipsis;
  o.new_axis_mask = new_axis;
  o.shrink_axis_mask = shrink;
  return o;
}

std::vector<Case> PoolCases() {
  const ValueStyle distinct = ValueStyle::kDistinct;
  return {
      {"MaxPoolValidDisjoint",
       [] {
         return OneOp(op::kMaxPool2D, {In({1, 4, 6, 2})}, {1, 2, 3, 2},
                      Pool(Padding::kValid, 2, 2, 2, 2));
       },
       Values(distinct)},
      {"MaxPoolSameOverlapping",
       [] {
         return OneOp(op::kMaxPool2D, {In({1, 5, 4, 2})}, {1, 5, 4, 2},
                      Pool(Padding::kSame, 3, 3, 1, 1));
       },
       Values(distinct)},
      {"MaxPoolSameStridedBatch2Relu",
       [] {
         return OneOp(op::kMaxPool2D, {In({2, 5, 5, 1})}, {2, 3, 2, 1},
                      Pool(Padding::kSame, 3, 2, 2, 3, Activation::kRelu));
       },
       Values(distinct)},
      {"AveragePoolValid",
       [] {
         return OneOp(op::kAveragePool2D, {In({1, 4, 5, 2})}, {1, 2, 2, 2},
                      Pool(Padding::kValid, 2, 3, 2, 2));
       },
       {}},
      {"AveragePoolSameOverlapping",
       [] {
         return OneOp(op::kAveragePool2D, {In({1, 4, 4, 3})}, {1, 4, 4, 3},
                      Pool(Padding::kSame, 3, 3, 1, 1));
       },
       {}},
      {"AveragePoolSameStridedTanh",
       [] {
         return OneOp(op::kAveragePool2D, {In({2, 5, 3, 2})}, {2, 3, 2, 2},
                      Pool(Padding::kSame, 2, 2, 2, 2, Activation::kTanh));
       },
       {}},
  };
}

std::vector<Case> ShapeCases() {
  return {
      {"SoftmaxRows",
       [] {
         return OneOp(op::kSoftmax, {In({2, 4})}, {2, 4}, Softmax(1.0f));
       },
       {}},
      {"SoftmaxBeta",
       [] {
         return OneOp(op::kSoftmax, {In({1, 5})}, {1, 5}, Softmax(2.5f));
       },
       {}},
      {"SoftmaxRank3SmallBeta",
       [] {
         return OneOp(op::kSoftmax, {In({2, 2, 3})}, {2, 2, 3}, Softmax(0.5f));
       },
       {}},
      {"Reshape",
       [] {
         return OneOp(op::kReshape, {In({2, 3}), Ints({2}, {3, 2})}, {3, 2});
       },
       {}},
      {"Squeeze",
       [] {
         return OneOp(op::kSqueeze, {In({1, 3, 1, 2})}, {3, 2});
       },
       {}},
      {"ExpandDims",
       [] {
         return OneOp(op::kExpandDims, {In({3, 2}), Ints({}, {1})}, {3, 1, 2});
       },
       {}},
      {"StridedSliceNegativeStride",
       [] {
         return OneOp(op::kStridedSlice,
                      {In({3, 5}), Ints({2}, {1, -1}), Ints({2}, {3, 0}), Ints({2}, {1, -2})},
                      {2, 2}, Slice(0, 0, 0, 0, 0));
       },
       {}},
      {"StridedSliceShrinkAndBeginMask",
       [] {
         return OneOp(
             op::kStridedSlice,
             {In({4, 3, 2}), Ints({3}, {9, 1, 0}), Ints({3}, {3, 2, 2}), Ints({3}, {2, 1, 1})},
             {2, 2}, Slice(1, 0, 0, 0, 2));
       },
       {}},
      {"StridedSliceEllipsisNewAxis",
       [] {
         return OneOp(
             op::kStridedSlice,
             {In({2, 3, 4}), Ints({3}, {0, 0, 1}), Ints({3}, {0, 0, 4}), Ints({3}, {1, 1, 2})},
             {2, 3, 1, 2}, Slice(0, 0, 1, 2, 0));
       },
       {}},
      {"MeanKeepDims",
       [] {
         return OneOp(op::kMean, {In({2, 3, 4}), Ints({1}, {1})}, {2, 1, 4}, [] {
           OpOptions o;
           o.keep_dims = true;
           return o;
         }());
       },
       {}},
      {"MeanNegativeAxes",
       [] {
         return OneOp(op::kMean, {In({2, 3, 4}), Ints({2}, {-1, 0})}, {3});
       },
       {}},
      {"ConcatenationThreeInputsTanh",
       [] {
         return OneOp(op::kConcatenation, {In({2, 1, 3}), In({2, 2, 3}), Const({2, 3, 3})},
                      {2, 6, 3}, WithAxis(1, Activation::kTanh));
       },
       {}},
      {"ConcatenationNegativeAxis",
       [] {
         return OneOp(op::kConcatenation, {In({2, 2}), In({2, 3})}, {2, 5}, WithAxis(-1));
       },
       {}},
      {"Pad",
       [] {
         return OneOp(op::kPad, {In({2, 3}), Ints({2, 2}, {1, 0, 2, 1})}, {3, 6});
       },
       {}},
      {"Transpose",
       [] {
         return OneOp(op::kTranspose, {In({2, 3, 4}), Ints({3}, {2, 0, 1})}, {4, 2, 3});
       },
       {}},
      {"GatherRepeatedRows",
       [] {
         return OneOp(op::kGather, {In({3, 2}), Ints({4}, {2, 0, 2, 2})}, {4, 2});
       },
       {}},
      {"GatherInnerAxis",
       [] {
         return OneOp(op::kGather, {In({2, 3, 4}), Ints({2, 2}, {1, 1, 0, 2})}, {2, 2, 2, 4},
                      WithAxis(1));
       },
       {}},
  };
}

std::vector<Case> ElementwiseCases() {
  const ValueStyle away = ValueStyle::kAwayFromZero;
  OpOptions leaky;
  leaky.alpha = 0.2f;
  OpOptions leaky_negative;
  leaky_negative.alpha = -0.5f;
  return {
      {"Relu",
       [] {
         return OneOp(op::kRelu, {In({2, 7})}, {2, 7});
       },
       Values(away)},
      {"Relu6",
       [] {
         return OneOp(op::kRelu6, {In({3, 6})}, {3, 6});
       },
       Values(away, 8.0f)},
      {"LeakyRelu",
       [leaky] {
         return OneOp(op::kLeakyRelu, {In({2, 5})}, {2, 5}, leaky);
       },
       Values(away)},
      {"LeakyReluNegativeAlpha",
       [leaky_negative] {
         return OneOp(op::kLeakyRelu, {In({2, 5})}, {2, 5}, leaky_negative);
       },
       Values(away)},
      {"Logistic",
       [] {
         return OneOp(op::kLogistic, {In({2, 5})}, {2, 5});
       },
       Values(away, 3.0f)},
      {"Tanh",
       [] {
         return OneOp(op::kTanh, {In({2, 5})}, {2, 5});
       },
       Values(away, 2.0f)},
      {"Exp",
       [] {
         return OneOp(op::kExp, {In({2, 5})}, {2, 5});
       },
       Values(away, 2.0f)},
      {"AddSameShape",
       [] {
         return OneOp(op::kAdd, {In({2, 3}), In({2, 3})}, {2, 3});
       },
       {}},
      {"AddBroadcastBothWays",
       [] {
         return OneOp(op::kAdd, {In({2, 1, 3}), In({4, 1})}, {2, 4, 3});
       },
       {}},
      {"AddConstantBiasRelu",
       [] {
         return OneOp(op::kAdd, {In({2, 3, 4}), Const({4})}, {2, 3, 4},
                      WithActivation(Activation::kRelu));
       },
       {}},
      {"SubBroadcastVectorMinusMatrix",
       [] {
         return OneOp(op::kSub, {In({3}), In({2, 3})}, {2, 3});
       },
       {}},
      {"SubReluN1To1",
       [] {
         return OneOp(op::kSub, {In({2, 3}), In({1, 3})}, {2, 3},
                      WithActivation(Activation::kReluN1To1));
       },
       Values(ValueStyle::kUniform, 1.5f)},
      {"MulBroadcastRank4",
       [] {
         return OneOp(op::kMul, {In({2, 3, 1, 2}), In({1, 3, 4, 1})}, {2, 3, 4, 2});
       },
       {}},
      {"MulScalarTanh",
       [] {
         return OneOp(op::kMul, {In({}), In({3, 2})}, {3, 2}, WithActivation(Activation::kTanh));
       },
       {}},
  };
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (auto make : {PoolCases, ShapeCases, ElementwiseCases}) {
    for (Case& c : make()) cases.push_back(c);
  }
  for (size_t i = 0; i < cases.size(); ++i) cases[i].check.seed = static_cast<uint32_t>(7 + i);
  return cases;
}

class OpGradient : public ::testing::TestWithParam<Case> {};

TEST_P(OpGradient, MatchesCentralDifferences) {
  CheckGradients(GetParam().build(), GetParam().check);
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpGradient, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return param.param.name;
                         });

}  // namespace
}  // namespace trainscope
