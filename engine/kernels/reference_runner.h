// SPDX-License-Identifier: Apache-2.0
//
// RunForward: a small forward executor for tests and first command-line use. It checks the model
// with CheckRunnable, gives every non-constant tensor its own buffer and every constant a 16-byte
// aligned copy, feeds the graph inputs, runs the operators in file order and returns the graph
// outputs. It allocates freely (one std::vector per tensor) and is not the training executor.
//
//   std::vector<std::vector<float>> outputs;
//   Status s = RunForward(model, {{0.5f}}, &outputs);  // one input of one float
//
// Inputs must match the graph inputs in count and size ("input 0 'x' needs 121 floats, got 120")
// and be finite (NaN/Inf are rejected with the element index). Graph inputs and outputs must be
// FLOAT32.
#pragma once

#include <vector>

#include "engine/core/status.h"
#include "engine/model/model.h"

namespace trainscope {

Status RunForward(const Model& model, const std::vector<std::vector<float>>& inputs,
                  std::vector<std::vector<float>>* outputs);

}  // namespace trainscope
