// SPDX-License-Identifier: Apache-2.0
//
// ConstantStore: aligned copies of a subgraph's constant tensors (16 bytes on a board, a 64-byte
// cache line on x86-64 hosts). Kernels read them and
// optimizers update them in place; the model's own bytes change only when WriteBack() is called,
// so a model whose buffers are unaligned or shared by several tensors still trains correctly
// (each tensor gets its own copy).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/float_storage.h"
#include "engine/model/model.h"

namespace trainscope {

class ConstantStore {
 public:
  void Load(const Model& model, const Subgraph& subgraph);

  // nullptr for a tensor that is not constant.
  uint8_t* data(int32_t tensor) const;
  float* floats(int32_t tensor) const { return AsFloats(data(tensor)); }

  // Bytes of the copies (with the alignment slack): what the store holds on the heap.
  size_t bytes() const { return storage_.size(); }

  // Copies `tensors` back into the model's constant buffers.
  void WriteBack(const std::vector<int32_t>& tensors, const Subgraph& subgraph, Model* model) const;

 private:
  std::vector<uint8_t> storage_;
  uint8_t* base_ = nullptr;
  std::vector<size_t> offsets_;  // by tensor; kMissing when not constant
};

}  // namespace trainscope
