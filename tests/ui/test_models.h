// SPDX-License-Identifier: Apache-2.0
//
// Small generated models for the UI tests and the screenshot program, built with ModelBuilder and
// read back through the real model reader, so the views see exactly what a loaded file gives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/graph.h"
#include "engine/model/model.h"
#include "engine/model/model_builder.h"

namespace trainscope::testing {

inline std::vector<float> Ramp(size_t count, float scale) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = scale * static_cast<float>(i % 7) - scale * 3.0f;
  return values;
}

// Builds the model and reads it back; an empty Graph if anything failed.
inline Graph FinishGraph(const ModelBuilder& builder) {
  std::vector<uint8_t> bytes;
  Model model;
  if (!builder.Finish(&bytes).ok()) return Graph();
  if (!Model::FromBytes(std::move(bytes), &model).ok()) return Graph();
  return model.graph();
}

// FULLY_CONNECTED + RELU per hidden width, then a final FULLY_CONNECTED and SOFTMAX, as file
// bytes (empty if building failed).
// widths = {16, 8, 4}: 16 inputs, one hidden layer of 8, 4 outputs -> FC RELU FC SOFTMAX.
inline std::vector<uint8_t> MakeMlpBytes(const std::vector<int32_t>& widths) {
  ModelBuilder b;
  int previous = b.AddTensor("input", {1, widths.front()});
  b.SetInputs({previous});
  for (size_t layer = 1; layer < widths.size(); ++layer) {
    const std::string name = "dense" + std::to_string(layer);
    const int32_t in = widths[layer - 1];
    const int32_t out = widths[layer];
    const int w = b.AddConstant(name + "/w", {out, in}, Ramp(static_cast<size_t>(out * in), 0.01f));
    const int bias = b.AddConstant(name + "/b", {out}, Ramp(static_cast<size_t>(out), 0.1f));
    const int y = b.AddTensor(name + "/y", {1, out});
    b.AddOperator(op::kFullyConnected, {previous, w, bias}, {y});
    const bool last = layer + 1 == widths.size();
    const int activated = b.AddTensor(name + (last ? "/softmax" : "/relu"), {1, out});
    b.AddOperator(last ? op::kSoftmax : op::kRelu, {y}, {activated});
    previous = activated;
  }
  b.SetOutputs({previous});
  std::vector<uint8_t> bytes;
  if (!b.Finish(&bytes).ok()) bytes.clear();
  return bytes;
}

// The same MLP read back as a Graph; an empty Graph if anything failed.
inline Graph MakeMlp(const std::vector<int32_t>& widths) {
  Model model;
  if (!Model::FromBytes(MakeMlpBytes(widths), &model).ok()) return Graph();
  return model.graph();
}

// A small image classifier: CONV_2D MAX_POOL_2D CONV_2D RESHAPE FULLY_CONNECTED
// FULLY_CONNECTED SOFTMAX, plus an ADD skip connection around the second convolution.
inline Graph MakeConvNet() {
  ModelBuilder b;
  const int image = b.AddTensor("image", {1, 16, 16, 1});
  OpOptions conv;
  conv.padding = Padding::kSame;
  conv.stride_w = conv.stride_h = 1;
  conv.activation = Activation::kRelu;
  const int c1w = b.AddConstant("conv1/w", {8, 3, 3, 1}, Ramp(72, 0.05f));
  const int c1b = b.AddConstant("conv1/b", {8}, Ramp(8, 0.1f));
  const int c1y = b.AddTensor("conv1/y", {1, 16, 16, 8});
  b.AddOperator(op::kConv2D, {image, c1w, c1b}, {c1y}, conv);
  OpOptions pool;
  pool.padding = Padding::kValid;
  pool.stride_w = pool.stride_h = pool.filter_w = pool.filter_h = 2;
  const int pooled = b.AddTensor("pool/y", {1, 8, 8, 8});
  b.AddOperator(op::kMaxPool2D, {c1y}, {pooled}, pool);
  const int c2w = b.AddConstant("conv2/w", {8, 3, 3, 8}, Ramp(576, 0.02f));
  const int c2b = b.AddConstant("conv2/b", {8}, Ramp(8, 0.1f));
  const int c2y = b.AddTensor("conv2/y", {1, 8, 8, 8});
  b.AddOperator(op::kConv2D, {pooled, c2w, c2b}, {c2y}, conv);
  const int sum = b.AddTensor("skip/y", {1, 8, 8, 8});
  b.AddOperator(op::kAdd, {c2y, pooled}, {sum});
  const int shape = b.AddConstantInt32("flatten/shape", {2}, {1, 512});
  const int flat = b.AddTensor("flatten/y", {1, 512});
  OpOptions reshape;
  reshape.new_shape = {1, 512};
  b.AddOperator(op::kReshape, {sum, shape}, {flat}, reshape);
  const int f1w = b.AddConstant("dense1/w", {32, 512}, Ramp(32 * 512, 0.001f));
  const int f1b = b.AddConstant("dense1/b", {32}, Ramp(32, 0.1f));
  const int f1y = b.AddTensor("dense1/y", {1, 32});
  OpOptions relu;
  relu.activation = Activation::kRelu;
  b.AddOperator(op::kFullyConnected, {flat, f1w, f1b}, {f1y}, relu);
  const int f2w = b.AddConstant("dense2/w", {10, 32}, Ramp(320, 0.01f));
  const int f2b = b.AddConstant("dense2/b", {10}, Ramp(10, 0.1f));
  const int f2y = b.AddTensor("dense2/y", {1, 10});
  b.AddOperator(op::kFullyConnected, {f1y, f2w, f2b}, {f2y});
  const int probabilities = b.AddTensor("probabilities", {1, 10});
  b.AddOperator(op::kSoftmax, {f2y}, {probabilities});
  b.SetInputs({image});
  b.SetOutputs({probabilities});
  return FinishGraph(b);
}

}  // namespace trainscope::testing
