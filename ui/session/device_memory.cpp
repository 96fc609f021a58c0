// SPDX-License-Identifier: Apache-2.0
#include "ui/session/device_memory.h"

namespace trainscope {

DeviceMemoryReport ExplainDeviceMemory(const wire::DeviceMemoryMessage& message) {
  DeviceMemoryReport report;
  report.message = message;
  report.total_bytes = wire::DeviceMemoryTotal(message);
  report.measured = message.source == wire::MemorySource::kMeasured;
  const int64_t heap = message.heap_peak_bytes;
  report.heap_over_plan_bytes = heap - int64_t{message.predicted_heap_peak_bytes};
  const int64_t other = heap - int64_t{message.predicted_heap_peak_bytes} -
                        int64_t{message.model_bytes} - int64_t{message.data_bytes} -
                        int64_t{message.agent_bytes};
  report.heap_parts = {
      {"planned_arena", "planned arena", int64_t{message.predicted_heap_peak_bytes}},
      {"model", "model and its constants", int64_t{message.model_bytes}},
      {"data", "training data", int64_t{message.data_bytes}},
      {"agent", "agent and TX ring", int64_t{message.agent_bytes}},
      {"other", "other (graph, C library, allocator)", other},
  };
  return report;
}

}  // namespace trainscope
