// SPDX-License-Identifier: Apache-2.0
//
// Test helpers for the kernels: build a model with ModelBuilder and run it through the reference
// runner (forward cases), or hold it in a KernelHarness that owns one buffer per tensor, lets the
// test change any value (constants included) and runs forward op by op (gradient checks).
//
//   ModelBuilder b;  ... b.SetInputs({x}); b.SetOutputs({y});
//   std::vector<float> y = RunSingleOutput(b, {{1, 2, 3}});
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/model/model.h"
#include "engine/model/model_builder.h"

namespace trainscope::testing {

// Finishes the builder into a Model; on failure records a gtest failure and returns false.
bool BuildModel(const ModelBuilder& builder, Model* model);

// Runs a built model with RunForward and returns output 0 (empty and a gtest failure on error).
std::vector<float> RunSingleOutput(const ModelBuilder& builder,
                                   const std::vector<std::vector<float>>& inputs);

// Status of building + RunForward, for tests that expect an error.
Status TryRun(const ModelBuilder& builder, const std::vector<std::vector<float>>& inputs);

class KernelHarness {
 public:
  // Builds the model, checks it with CheckRunnable and gives every tensor a buffer (constants
  // copied). Buffers never move afterwards, so references from Values() stay valid.
  Status Load(const ModelBuilder& builder);

  const Subgraph& subgraph() const { return model_.graph().main(); }
  std::vector<float>& Values(int tensor) { return storage_[static_cast<size_t>(tensor)]; }
  // Copies `values` into the tensor's buffer (a gtest failure if the sizes differ).
  void Set(int tensor, const std::vector<float>& values);
  void* const* data() const { return data_.data(); }

  // Runs every operator in order on the current buffer contents.
  Status Forward();

  // How Backward() runs an op: what BackwardIo says beyond the buffers.
  struct BackwardCall {
    bool trainable = true;
    TrainRank rank = TrainRank::kAll;
    bool is_last_layer = false;
    BackwardMath math = BackwardMath::kCorrect;
  };
  // Runs the backward pass of operator `k` on the current forward values, with the gradient
  // buffers given by tensor index (nullptr elsewhere) and the scratch it asks for.
  Status Backward(uint32_t k, const std::map<int, std::vector<float>*>& buffers,
                  const BackwardCall& call);

 private:
  Model model_;
  std::vector<std::vector<float>> storage_;  // INT32 tensors keep their bits in float slots
  std::vector<void*> data_;
};

}  // namespace trainscope::testing
