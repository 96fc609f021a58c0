// SPDX-License-Identifier: Apache-2.0
//
// The fuzzer's seed models of the forward-only operators are valid: each one runs forward end
// to end (CheckRunnable, every Prepare, every Eval) and gives finite outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/kernels/reference_runner.h"
#include "engine/model/model.h"
#include "tests/common/op_seed_models.h"

namespace trainscope {
namespace {

TEST(OpSeedModels, EveryOneRunsForwardToFiniteOutputs) {
  const std::vector<std::vector<uint8_t>> seeds = testing::OpSeedModels();
  ASSERT_EQ(seeds.size(), 5u);
  for (size_t s = 0; s < seeds.size(); ++s) {
    Model model;
    ASSERT_TRUE(Model::FromBytes(seeds[s], &model).ok()) << "seed " << s;
    std::vector<std::vector<float>> inputs;
    for (int32_t input : model.graph().main().inputs) {
      const size_t count = model.graph().main().tensors[input].element_count();
      std::vector<float> values(count);
      for (size_t i = 0; i < count; ++i)
        values[i] = 0.25f * static_cast<float>(i % 7 + 1);  // SQRT needs x >= 0
      inputs.push_back(values);
    }
    std::vector<std::vector<float>> outputs;
    const Status status = RunForward(model, inputs, &outputs);
    ASSERT_TRUE(status.ok()) << "seed " << s << ": " << status.message();
    for (const std::vector<float>& output : outputs) {
      for (float value : output) EXPECT_TRUE(std::isfinite(value)) << "seed " << s;
    }
  }
}

}  // namespace
}  // namespace trainscope
