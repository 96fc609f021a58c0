// SPDX-License-Identifier: Apache-2.0
#include "ui/session/device_memory.h"

#include <QStringList>

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

namespace {

QString KiB(int64_t bytes) {
  return QStringLiteral("%1 KiB").arg(static_cast<double>(bytes) / 1024.0, 0, 'f', 1);
}

}  // namespace

QString DeviceMemoryLine(const DeviceMemoryReport& report) {
  const wire::DeviceMemoryMessage& m = report.message;
  const QString over = report.heap_over_plan_bytes >= 0
                           ? QStringLiteral("+ ") + KiB(report.heap_over_plan_bytes)
                           : QStringLiteral("- ") + KiB(-report.heap_over_plan_bytes);
  QString line =
      QStringLiteral("Board (%1): heap peak %2 = planned arena %3 %4")
          .arg(report.measured ? QStringLiteral("measured") : QStringLiteral("accounted"),
               KiB(m.heap_peak_bytes), KiB(m.predicted_heap_peak_bytes), over);
  if (m.stack_peak_bytes > 0) line += QStringLiteral(" · stack ") + KiB(m.stack_peak_bytes);
  if (m.static_bytes > 0) line += QStringLiteral(" · static ") + KiB(m.static_bytes);
  line += QStringLiteral(" · total ") + KiB(static_cast<int64_t>(report.total_bytes));
  if (m.ram_bytes > 0) line += QStringLiteral(" of ") + KiB(m.ram_bytes);
  return line;
}

QString DeviceMemoryDetails(const DeviceMemoryReport& report) {
  QStringList lines;
  lines << QStringLiteral("The board's heap peak, by what holds it:");
  for (const DeviceMemoryPart& part : report.heap_parts) {
    lines << QStringLiteral("  %1: %2 bytes").arg(QLatin1String(part.label)).arg(part.bytes);
  }
  if (!report.measured) {
    lines << QStringLiteral("A simulator: the sum of what it allocated, not a measurement.");
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace trainscope
