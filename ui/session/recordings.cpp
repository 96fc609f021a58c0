// SPDX-License-Identifier: Apache-2.0
#include "ui/session/recordings.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace trainscope {
namespace {

QFileInfoList Recordings(const QString& dir, QDir::SortFlags sort) {
  return QDir(dir).entryInfoList({QStringLiteral("*.tstrace")}, QDir::Files, sort);
}

bool SameFile(const QFileInfo& file, const QString& keep) {
  return !keep.isEmpty() && file.absoluteFilePath() == QFileInfo(keep).absoluteFilePath();
}

}  // namespace

RecordingsUsage ScanRecordings(const QString& dir) {
  RecordingsUsage usage;
  for (const QFileInfo& file : Recordings(dir, QDir::NoSort)) {
    ++usage.files;
    usage.bytes += static_cast<uint64_t>(file.size());
  }
  return usage;
}

int PruneRecordings(const QString& dir, uint64_t max_total_bytes, const QString& keep) {
  // Oldest first: QDir::Time sorts newest first, Reversed turns it round.
  const QFileInfoList files = Recordings(dir, QDir::Time | QDir::Reversed);
  uint64_t total = 0;
  for (const QFileInfo& file : files) total += static_cast<uint64_t>(file.size());
  int removed = 0;
  for (const QFileInfo& file : files) {
    if (total <= max_total_bytes) break;
    if (SameFile(file, keep)) continue;
    if (QFile::remove(file.absoluteFilePath())) {
      total -= static_cast<uint64_t>(file.size());
      ++removed;
    }
  }
  return removed;
}

int DeleteRecordings(const QString& dir, const QString& keep) {
  int removed = 0;
  for (const QFileInfo& file : Recordings(dir, QDir::NoSort)) {
    if (!SameFile(file, keep) && QFile::remove(file.absoluteFilePath())) ++removed;
  }
  return removed;
}

}  // namespace trainscope
