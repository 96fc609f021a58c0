// SPDX-License-Identifier: Apache-2.0
#include "engine/exec/constant_store.h"

#include <cstring>
#include <limits>

#include "engine/train/host_simd.h"

namespace trainscope {
namespace {
constexpr size_t kMissing = std::numeric_limits<size_t>::max();
#if defined(TRAINSCOPE_AVX2_PATH)
// A cache line: the vector paths read weight rows whose lengths are multiples of 16 floats as
// whole lines (a load split across two lines costs as much as two).
constexpr size_t kAlignment = 64;
#else
constexpr size_t kAlignment = 16;
#endif
}  // namespace

void ConstantStore::Load(const Model& model, const Subgraph& subgraph) {
  offsets_.assign(subgraph.tensors.size(), kMissing);
  size_t total = 0;
  for (size_t t = 0; t < subgraph.tensors.size(); ++t) {
    if (!subgraph.tensors[t].constant) continue;
    offsets_[t] = total;
    total += (subgraph.tensors[t].bytes + kAlignment - 1) / kAlignment * kAlignment;
  }
  storage_.assign(total + kAlignment, 0);
  const size_t misalignment = reinterpret_cast<uintptr_t>(storage_.data()) % kAlignment;
  base_ = storage_.data() + (misalignment == 0 ? 0 : kAlignment - misalignment);
  for (size_t t = 0; t < subgraph.tensors.size(); ++t) {
    if (offsets_[t] == kMissing || subgraph.tensors[t].bytes == 0) continue;
    std::memcpy(base_ + offsets_[t], model.ConstantData(subgraph.tensors[t]),
                subgraph.tensors[t].bytes);
  }
}

uint8_t* ConstantStore::data(int32_t tensor) const {
  if (tensor < 0 || static_cast<size_t>(tensor) >= offsets_.size() ||
      offsets_[tensor] == kMissing) {
    return nullptr;
  }
  return base_ + offsets_[tensor];
}

void ConstantStore::WriteBack(const std::vector<int32_t>& tensors, const Subgraph& subgraph,
                              Model* model) const {
  for (int32_t tensor : tensors) {
    const uint8_t* source = data(tensor);
    if (source == nullptr) continue;
    std::memcpy(model->MutableConstantData(subgraph.tensors[tensor]), source,
                subgraph.tensors[tensor].bytes);
  }
}

}  // namespace trainscope
