// SPDX-License-Identifier: Apache-2.0
//
// FcReluChainBytes: the generated large model the benchmarks share - `blocks` x
// (FULLY_CONNECTED 32->32 + RELU), i.e. 2 * blocks operators - as .circle bytes. The weights are
// near the identity so the chain also trains without exploding or vanishing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/model/model_builder.h"
#include "engine/model/opcodes.h"

namespace trainscope::testing {

inline Status FcReluChainBytes(int blocks, std::vector<uint8_t>* bytes) {
  ModelBuilder b;
  constexpr int32_t kWidth = 32;
  int previous = b.AddTensor("input", {1, kWidth});
  b.SetInputs({previous});
  std::vector<float> weights(kWidth * kWidth);
  for (size_t i = 0; i < weights.size(); ++i) {
    weights[i] = (i % kWidth == i / kWidth ? 1.0f : 0.0f) + 0.001f * static_cast<float>(i % 5);
  }
  for (int block = 0; block < blocks; ++block) {
    const std::string name = "block" + std::to_string(block);
    const int w = b.AddConstant(name + "/w", {kWidth, kWidth}, weights);
    const int bias = b.AddConstant(name + "/b", {kWidth}, std::vector<float>(kWidth, 0.01f));
    const int y = b.AddTensor(name + "/fc", {1, kWidth});
    b.AddOperator(op::kFullyConnected, {previous, w, bias}, {y});
    const int activated = b.AddTensor(name + "/relu", {1, kWidth});
    b.AddOperator(op::kRelu, {y}, {activated});
    previous = activated;
  }
  b.SetOutputs({previous});
  return b.Finish(bytes);
}

}  // namespace trainscope::testing
