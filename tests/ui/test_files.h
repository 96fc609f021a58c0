// SPDX-License-Identifier: Apache-2.0
//
// Whole-file reads and writes for the UI tests. A failure gives an empty array or false, which
// the test then asserts on.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

#include <cstdint>
#include <vector>

namespace trainscope::testing {

inline QByteArray ReadAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

inline bool WriteAll(const QString& path, const QByteArray& bytes) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

inline bool WriteAll(const QString& path, const std::vector<uint8_t>& bytes) {
  return WriteAll(path, QByteArray(reinterpret_cast<const char*>(bytes.data()),
                                   static_cast<qsizetype>(bytes.size())));
}

}  // namespace trainscope::testing
