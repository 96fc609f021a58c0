// SPDX-License-Identifier: Apache-2.0
#include "ui/session/event_batch.h"

namespace trainscope {

size_t EventBatch::size() const {
  return samples.size() + optimizer_steps.size() + forward_ops.size() + backward_steps.size() +
         memory.size() + memory_summaries.size() + gradient_stats.size() + update_ratios.size() +
         losses.size() + metrics.size() + messages.size();
}

void EventBatch::clear() {
  *this = EventBatch();
}

}  // namespace trainscope
