// SPDX-License-Identifier: Apache-2.0
//
// Small generated models for the fit search tests: perceptrons of any widths (optionally with an
// ADD, which onert-micro cannot run backward) and a conv net with odd channel counts.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/model/model.h"
#include "engine/model/model_builder.h"

namespace trainscope::testing {

inline std::vector<float> Ramp(size_t count, float scale) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = scale * static_cast<float>((i % 7) + 1);
  return values;
}

// x [1,in] -> FC ... -> SOFTMAX, one FC per entry of `widths` (odd widths exercise the half
// ranks' floor/ceil difference). `add_after` > 0 inserts an ADD (no onert-micro backward kernel)
// after that many FC layers.
inline Graph Mlp(std::vector<int> widths, int input = 6, int add_after = 0) {
  ModelBuilder b;
  int x = b.AddTensor("x", {1, input});
  const int graph_input = x;
  int in = input;
  for (size_t l = 0; l < widths.size(); ++l) {
    const std::string name = "fc" + std::to_string(l);
    const int w = b.AddConstant(name + "/w", {widths[l], in},
                                Ramp(static_cast<size_t>(widths[l] * in), 0.01f));
    const int bias =
        b.AddConstant(name + "/b", {widths[l]}, Ramp(static_cast<size_t>(widths[l]), 0.1f));
    const int y = b.AddTensor(name + "/y", {1, widths[l]});
    OpOptions relu;
    relu.activation = l + 1 < widths.size() ? Activation::kRelu : Activation::kNone;
    b.AddOperator(op::kFullyConnected, {x, w, bias}, {y}, relu);
    x = y;
    in = widths[l];
    if (add_after > 0 && static_cast<int>(l) + 1 == add_after) {
      const int c = b.AddConstant(name + "/shift", {1, in}, Ramp(static_cast<size_t>(in), 0.5f));
      const int z = b.AddTensor(name + "/shifted", {1, in});
      b.AddOperator(op::kAdd, {x, c}, {z});
      x = z;
    }
  }
  const int p = b.AddTensor("p", {1, in});
  b.AddOperator(op::kSoftmax, {x}, {p});
  b.SetInputs({graph_input});
  b.SetOutputs({p});
  std::vector<uint8_t> bytes;
  Model model;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  EXPECT_TRUE(Model::FromBytes(std::move(bytes), &model).ok());
  return model.graph();
}

// image [1,6,6,1] -> CONV_2D(5 filters) -> MAX_POOL -> RESHAPE -> FC(5) -> FC(3) -> SOFTMAX.
inline Graph ConvNet() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 6, 6, 1});
  const int cw = b.AddConstant("conv/w", {5, 3, 3, 1}, Ramp(45, 0.05f));
  const int cb = b.AddConstant("conv/b", {5}, Ramp(5, 0.1f));
  const int cy = b.AddTensor("conv/y", {1, 4, 4, 5});
  OpOptions conv;
  conv.padding = Padding::kValid;
  conv.stride_w = conv.stride_h = 1;
  conv.activation = Activation::kRelu;
  b.AddOperator(op::kConv2D, {x, cw, cb}, {cy}, conv);
  const int py = b.AddTensor("pool", {1, 2, 2, 5});
  OpOptions pool;
  pool.padding = Padding::kValid;
  pool.stride_w = pool.stride_h = pool.filter_w = pool.filter_h = 2;
  b.AddOperator(op::kMaxPool2D, {cy}, {py}, pool);
  const int shape = b.AddConstantInt32("shape", {2}, {1, 20});
  const int flat = b.AddTensor("flat", {1, 20});
  OpOptions reshape;
  reshape.new_shape = {1, 20};
  b.AddOperator(op::kReshape, {py, shape}, {flat}, reshape);
  const int w1 = b.AddConstant("fc1/w", {5, 20}, Ramp(100, 0.02f));
  const int b1 = b.AddConstant("fc1/b", {5}, Ramp(5, 0.1f));
  const int h = b.AddTensor("fc1/y", {1, 5});
  b.AddOperator(op::kFullyConnected, {flat, w1, b1}, {h});
  const int w2 = b.AddConstant("fc2/w", {3, 5}, Ramp(15, 0.05f));
  const int b2 = b.AddConstant("fc2/b", {3}, Ramp(3, 0.1f));
  const int logits = b.AddTensor("fc2/y", {1, 3});
  b.AddOperator(op::kFullyConnected, {h, w2, b2}, {logits});
  const int p = b.AddTensor("p", {1, 3});
  b.AddOperator(op::kSoftmax, {logits}, {p});
  b.SetInputs({x});
  b.SetOutputs({p});
  std::vector<uint8_t> bytes;
  Model model;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  EXPECT_TRUE(Model::FromBytes(std::move(bytes), &model).ok());
  return model.graph();
}

}  // namespace trainscope::testing
