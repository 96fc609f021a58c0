// SPDX-License-Identifier: Apache-2.0
//
// Small models for the training-format tests, built with ModelBuilder.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/model.h"
#include "engine/model/model_builder.h"

namespace trainscope::testing {

// x[1,4] -> FC(w1[3,4], b1[3]) -> h[1,3] -> FC(w2[2,3], no bias) -> y[1,2] -> SOFTMAX -> p.
// Tensor indices: x 0, w1 1, b1 2, h 3, w2 4, y 5, p 6. `w2_rows` lets a test build a variant
// whose w2 has another size; `metadata` entries are added in order.
using MetadataList = std::vector<std::pair<std::string, std::vector<uint8_t>>>;
inline Model SmallClassifier(int32_t w2_rows = 2, const MetadataList& metadata = {}) {
  ModelBuilder b;
  std::vector<float> w1(12), w2(static_cast<size_t>(w2_rows) * 3);
  for (size_t i = 0; i < w1.size(); ++i) w1[i] = 0.125f * static_cast<float>(i + 1);
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = -0.25f * static_cast<float>(i + 1);
  const int x = b.AddTensor("x", {1, 4});
  const int w1_id = b.AddConstant("w1", {3, 4}, w1);
  const int b1 = b.AddConstant("b1", {3}, {0.5f, -0.5f, 0.25f});
  const int h = b.AddTensor("h", {1, 3});
  const int w2_id = b.AddConstant("w2", {w2_rows, 3}, w2);
  const int y = b.AddTensor("y", {1, w2_rows});
  const int p = b.AddTensor("p", {1, w2_rows});
  b.AddOperator(op::kFullyConnected, {x, w1_id, b1}, {h});
  b.AddOperator(op::kFullyConnected, {h, w2_id, -1}, {y});
  b.AddOperator(op::kSoftmax, {y}, {p});
  b.SetInputs({x});
  b.SetOutputs({p});
  for (const auto& [name, data] : metadata) b.AddMetadata(name, data);
  std::vector<uint8_t> bytes;
  Status status = b.Finish(&bytes);
  EXPECT_TRUE(status.ok()) << status.message();
  Model model;
  status = Model::FromBytes(std::move(bytes), &model);
  EXPECT_TRUE(status.ok()) << status.message();
  return model;
}

}  // namespace trainscope::testing
