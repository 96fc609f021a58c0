// SPDX-License-Identifier: Apache-2.0
//
// Small generated models for executor tests: a conv net with a bias on every layer (so every
// rank has something to change) and deterministic data.
#pragma once

#include <cmath>
#include <cstring>
#include <vector>

#include "engine/exec/trainer.h"
#include "engine/model/model_builder.h"

namespace trainscope::testing {

inline std::vector<float> Pattern(size_t count, float scale, float phase) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = scale * std::sin(0.7f * static_cast<float>(i) + phase);
  return values;
}

// image [1,6,6,1] -> CONV_2D(3 filters 3x3, VALID, RELU) [1,4,4,3] -> MAX_POOL 2x2 [1,2,2,3]
// -> RESHAPE [1,12] -> FC(5, RELU) -> FC(3) -> SOFTMAX.  Ops 0..5.
inline Model ConvNet() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 6, 6, 1});
  const int cw = b.AddConstant("conv/w", {3, 3, 3, 1}, Pattern(27, 0.4f, 0.1f));
  const int cb = b.AddConstant("conv/b", {3}, {0.3f, 0.25f, 0.35f});  // positive: no dead units
  const int cy = b.AddTensor("conv/y", {1, 4, 4, 3});
  OpOptions conv;
  conv.padding = Padding::kValid;
  conv.stride_w = conv.stride_h = 1;
  conv.activation = Activation::kRelu;
  b.AddOperator(op::kConv2D, {x, cw, cb}, {cy}, conv);
  const int py = b.AddTensor("pool", {1, 2, 2, 3});
  OpOptions pool;
  pool.padding = Padding::kValid;
  pool.stride_w = pool.stride_h = pool.filter_w = pool.filter_h = 2;
  b.AddOperator(op::kMaxPool2D, {cy}, {py}, pool);
  const int shape = b.AddConstantInt32("shape", {2}, {1, 12});
  const int flat = b.AddTensor("flat", {1, 12});
  b.AddOperator(op::kReshape, {py, shape}, {flat});
  const int w1 = b.AddConstant("fc1/w", {5, 12}, Pattern(60, 0.3f, 0.5f));
  const int b1 = b.AddConstant("fc1/b", {5}, {0.5f, 0.6f, 0.4f, 0.5f, 0.7f});
  const int h = b.AddTensor("fc1/y", {1, 5});
  OpOptions relu;
  relu.activation = Activation::kRelu;
  b.AddOperator(op::kFullyConnected, {flat, w1, b1}, {h}, relu);
  const int w2 = b.AddConstant("fc2/w", {3, 5}, Pattern(15, 0.5f, 0.9f));
  const int b2 = b.AddConstant("fc2/b", {3}, {0.0f, 0.1f, -0.1f});
  const int logits = b.AddTensor("fc2/y", {1, 3});
  b.AddOperator(op::kFullyConnected, {h, w2, b2}, {logits});
  const int probabilities = b.AddTensor("p", {1, 3});
  b.AddOperator(op::kSoftmax, {logits}, {probabilities});
  b.SetInputs({x});
  b.SetOutputs({probabilities});
  std::vector<uint8_t> bytes;
  Model model;
  if (b.Finish(&bytes).ok()) (void)Model::FromBytes(std::move(bytes), &model);
  return model;
}

inline DataSet ConvNetData(uint32_t samples) {
  DataSet data;
  data.sample_count = samples;
  data.inputs.resize(1);
  for (uint32_t s = 0; s < samples; ++s) {
    const std::vector<float> image = Pattern(36, 1.0f, 0.37f * static_cast<float>(s));
    data.inputs[0].insert(data.inputs[0].end(), image.begin(), image.end());
    data.targets.push_back(static_cast<float>(s % 3));
  }
  return data;
}

// x [6, 1, 2] -> GRU(4 units; biases, constant initial state) -> FC(4 -> 1): a sequence
// regression model. Ops 0..1; tensors 1..5 are the GRU's parameters.
inline Model GruRegression() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {6, 1, 2});
  b.AddConstant("gru/wx", {12, 2}, Pattern(24, 0.5f, 0.2f));
  b.AddConstant("gru/bx", {12}, Pattern(12, 0.1f, 0.4f));
  b.AddConstant("gru/wh", {12, 4}, Pattern(48, 0.4f, 0.7f));
  b.AddConstant("gru/bh", {12}, Pattern(12, 0.1f, 1.3f));
  b.AddConstant("gru/h0", {1, 4}, {0.0f, 0.1f, -0.1f, 0.05f});
  const int h = b.AddTensor("gru/h", {1, 4});
  b.AddOperator(op::kGru, {x, 1, 2, 3, 4, 5}, {h});
  const int w = b.AddConstant("fc/w", {1, 4}, {0.3f, -0.2f, 0.25f, 0.1f});
  const int bias = b.AddConstant("fc/b", {1}, {0.0f});
  const int y = b.AddTensor("y", {1, 1});
  b.AddOperator(op::kFullyConnected, {h, w, bias}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  Model model;
  if (b.Finish(&bytes).ok()) (void)Model::FromBytes(std::move(bytes), &model);
  return model;
}

// Sequences for GruRegression(): the target is the mean of the first feature over time.
inline DataSet GruRegressionData(uint32_t samples) {
  DataSet data;
  data.sample_count = samples;
  data.inputs.resize(1);
  for (uint32_t s = 0; s < samples; ++s) {
    const std::vector<float> sequence = Pattern(12, 1.0f, 0.9f * static_cast<float>(s));
    data.inputs[0].insert(data.inputs[0].end(), sequence.begin(), sequence.end());
    float mean = 0.0f;
    for (size_t t = 0; t < 6; ++t) mean += sequence[2 * t] / 6.0f;
    data.targets.push_back(mean);
  }
  return data;
}

// Tensor indices of ConvNet(), for readability in tests.
struct ConvNetTensors {
  static constexpr int kConvW = 1, kConvB = 2, kFc1W = 7, kFc1B = 8, kFc2W = 10, kFc2B = 11;
};

inline std::vector<float> Floats(const Model& model, int32_t tensor) {
  const Tensor& t = model.graph().main().tensors[tensor];
  std::vector<float> values(t.element_count());
  std::memcpy(values.data(), model.ConstantData(t), t.bytes);
  return values;
}

}  // namespace trainscope::testing
