// SPDX-License-Identifier: Apache-2.0
//
// Text for numbers the views show: byte sizes in binary units, shapes, counts with separators,
// signed deltas and durations. One place so every view writes "12.5 KiB" the same way.
#pragma once

#include <QString>

#include <cstdint>
#include <vector>

namespace trainscope {

QString FormatBytes(uint64_t bytes);                     // "512 B", "12.5 KiB", "3.20 MiB"
QString FormatBytesDelta(int64_t delta);                 // "+1.2 KiB", "−512 B", "±0 B"
QString FormatCount(uint64_t count);                     // "1,234,567"
QString FormatCountDelta(int64_t delta);                 // "+1,234", "−12", "±0"
QString FormatShape(const std::vector<int32_t>& shape);  // "1×28×28×8", "scalar"
QString FormatDuration(uint64_t nanoseconds);            // "850 ns", "12.3 µs", "4.10 ms"
QString FormatValue(double value);                       // compact: "0.0123", "1.2e-07", "NaN"

}  // namespace trainscope
