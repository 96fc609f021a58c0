// SPDX-License-Identifier: Apache-2.0
#include "ui/session/trace_snapshot.h"

#include <algorithm>

namespace trainscope {

uint64_t TraceSnapshot::currentBytes() const {
  if (!memory) return 0;
  if (memory->hasSummary()) return memory->summaries().back().current_bytes;
  return memory->currentBytes();
}

uint64_t TraceSnapshot::peakBytes() const {
  return memory ? memory->peakBytes() : 0;
}

const TensorGradient* TraceSnapshot::findTensor(int32_t tensor) const {
  for (const TensorGradient& entry : tensors) {
    if (entry.tensor == tensor) return &entry;
  }
  return nullptr;
}

}  // namespace trainscope
