// SPDX-License-Identifier: Apache-2.0
//
// Interpreter: forward passes (inference) of a model's main subgraph, with onert-micro's
// inference plan placed in a planned arena.
//
//   Interpreter interpreter;
//   TS_RETURN_IF_ERROR(interpreter.Init(model));
//   std::vector<std::vector<float>> outputs;
//   TS_RETURN_IF_ERROR(interpreter.Run({input.data()}, &outputs));
//
// With an external ConstantStore (a Trainer's), runs see the weights as trained so far. The
// model (and the store) must outlive the interpreter.
#pragma once

#include <memory>
#include <vector>

#include "engine/exec/constant_store.h"
#include "engine/exec/timeline_arena.h"
#include "engine/memory/memory_timeline.h"
#include "engine/model/model.h"

namespace trainscope {

class Interpreter {
 public:
  // Fails with "unsupported operator X at index k" (and similar) before anything runs.
  Status Init(const Model& model, const ConstantStore* constants = nullptr);

  // One sample: `inputs[i]` holds the element count of graph input i. Non-finite input values
  // are refused with their position.
  Status Run(const std::vector<const float*>& inputs, std::vector<std::vector<float>>* outputs);

  const MemoryTimeline& timeline() const { return timeline_; }
  uint64_t arena_bytes() const { return arena_.arena_bytes(); }

 private:
  const Subgraph* subgraph_ = nullptr;
  std::unique_ptr<ConstantStore> owned_constants_;
  const ConstantStore* constants_ = nullptr;
  MemoryTimeline timeline_;
  TimelineArena arena_;
  KernelViews views_;
};

}  // namespace trainscope
