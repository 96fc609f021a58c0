// SPDX-License-Identifier: Apache-2.0
//
// The recordings folder as the user manages it: what it holds, and a retention rule that keeps
// it within a total size by deleting the oldest recordings first (never the one being written).
// QtCore only.
//
//   RecordingsUsage usage = ScanRecordings(dir);   // "12 recordings, 1.3 GiB"
//   PruneRecordings(dir, uint64_t{2} << 30, recorder->path());
#pragma once

#include <QString>

#include <cstdint>

namespace trainscope {

// 2 GiB of recordings are kept unless the user says otherwise.
inline constexpr uint64_t kDefaultKeptRecordingBytes = uint64_t{2} << 30;

struct RecordingsUsage {
  int files = 0;
  uint64_t bytes = 0;
};

// The .tstrace files directly in `dir` (none when it does not exist).
RecordingsUsage ScanRecordings(const QString& dir);

// Deletes the oldest .tstrace files of `dir` (by modification time) until the rest hold at most
// `max_total_bytes`; `keep` (a path, may be empty) is never deleted. Returns how many went.
int PruneRecordings(const QString& dir, uint64_t max_total_bytes, const QString& keep);

// Deletes every .tstrace file of `dir` but `keep`; returns how many went.
int DeleteRecordings(const QString& dir, const QString& keep);

}  // namespace trainscope
