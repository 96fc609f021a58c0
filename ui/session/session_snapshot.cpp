// SPDX-License-Identifier: Apache-2.0
#include "ui/session/session_snapshot.h"

#include <algorithm>

namespace trainscope {

uint64_t SessionSnapshot::currentBytes() const {
  if (!memory) return 0;
  if (memory->hasSummary()) return memory->summaries().back().current_bytes;
  return memory->currentBytes();
}

uint64_t SessionSnapshot::peakBytes() const {
  return memory ? memory->peakBytes() : 0;
}

const TensorGradient* SessionSnapshot::findTensor(int32_t tensor) const {
  for (const TensorGradient& entry : tensors) {
    if (entry.tensor == tensor) return &entry;
  }
  return nullptr;
}

}  // namespace trainscope
