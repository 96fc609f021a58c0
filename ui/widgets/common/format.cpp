// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/common/format.h"

#include <cmath>

namespace trainscope {
namespace {
const QChar kMinus(0x2212);
}

QString FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return QStringLiteral("%1 B").arg(bytes);
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  int unit = 0;
  while (value >= 1024.0 && unit < 3) {
    value /= 1024.0;
    ++unit;
  }
  const int decimals = value < 10.0 ? 2 : (value < 100.0 ? 1 : 0);
  return QString::number(value, 'f', decimals) + QLatin1Char(' ') + QLatin1String(kUnits[unit]);
}

QString FormatBytesDelta(int64_t delta) {
  if (delta == 0) return QStringLiteral("±0 B");
  const uint64_t magnitude =
      delta < 0 ? uint64_t(0) - static_cast<uint64_t>(delta) : static_cast<uint64_t>(delta);
  return (delta < 0 ? QString(kMinus) : QStringLiteral("+")) + FormatBytes(magnitude);
}

QString FormatCount(uint64_t count) {
  QString digits = QString::number(count);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(i, QLatin1Char(','));
  return digits;
}

QString FormatCountDelta(int64_t delta) {
  if (delta == 0) return QStringLiteral("±0");
  const uint64_t magnitude =
      delta < 0 ? uint64_t(0) - static_cast<uint64_t>(delta) : static_cast<uint64_t>(delta);
  return (delta < 0 ? QString(kMinus) : QStringLiteral("+")) + FormatCount(magnitude);
}

QString FormatShape(const std::vector<int32_t>& shape) {
  if (shape.empty()) return QStringLiteral("scalar");
  QString text;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += QChar(0x00D7);
    text += QString::number(shape[i]);
  }
  return text;
}

QString FormatDuration(uint64_t nanoseconds) {
  if (nanoseconds < 1000) return QStringLiteral("%1 ns").arg(nanoseconds);
  const double micro = static_cast<double>(nanoseconds) / 1000.0;
  if (micro < 1000.0)
    return QString::number(micro, 'f', micro < 10 ? 2 : 1) + QStringLiteral(" µs");
  const double milli = micro / 1000.0;
  if (milli < 1000.0)
    return QString::number(milli, 'f', milli < 10 ? 2 : 1) + QStringLiteral(" ms");
  return QString::number(milli / 1000.0, 'f', 2) + QStringLiteral(" s");
}

QString FormatValue(double value) {
  if (std::isnan(value)) return QStringLiteral("NaN");
  if (std::isinf(value)) return value > 0 ? QStringLiteral("+Inf") : QStringLiteral("−Inf");
  const double magnitude = std::fabs(value);
  if (value == 0.0) return QStringLiteral("0");
  if (magnitude >= 1e-3 && magnitude < 1e5) return QString::number(value, 'g', 4);
  return QString::number(value, 'e', 2);
}

}  // namespace trainscope
