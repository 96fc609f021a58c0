// SPDX-License-Identifier: Apache-2.0
//
// The RAM a board reported (DEVICE_MEMORY) set against the plan, computed once for every place
// that shows it: `trainscope-cli attach --json`, `trace dump` and the app's Memory view.
//
// The heap peak is split into the planned arena (the prediction), the model, the data, the agent
// and "other": what none of them accounts for (the graph's structures, the C library and the
// allocator's block headers). The parts add up to the heap peak exactly; "other" is negative
// only when the board's heap never held all it planned (it ran out of memory first).
//
//   DeviceMemoryReport report = ExplainDeviceMemory(message);
//   for (const DeviceMemoryPart& part : report.heap_parts) ... part.label, part.bytes ...
#pragma once

#include <QString>

#include <cstdint>
#include <vector>

#include "serial/protocol/messages.h"

namespace trainscope {

struct DeviceMemoryPart {
  const char* key;    // "planned_arena", "model", "data", "agent", "other"
  const char* label;  // "planned arena", "model and its constants", ...
  int64_t bytes;
};

struct DeviceMemoryReport {
  wire::DeviceMemoryMessage message;
  uint64_t total_bytes = 0;          // heap peak + stack peak + static
  int64_t heap_over_plan_bytes = 0;  // heap peak - predicted heap peak
  bool measured = false;             // the firmware measured itself (not a simulator's sum)
  std::vector<DeviceMemoryPart> heap_parts;
};

DeviceMemoryReport ExplainDeviceMemory(const wire::DeviceMemoryMessage& message);

// One line for a view's header: "Board (measured): heap peak 120.6 KiB = planned arena 37.3 KiB
// + 83.3 KiB · stack 5.6 KiB · static 2.5 KiB · total 128.7 of 192.0 KiB".
QString DeviceMemoryLine(const DeviceMemoryReport& report);
// The heap split, one part per line, for a tooltip.
QString DeviceMemoryDetails(const DeviceMemoryReport& report);

}  // namespace trainscope
