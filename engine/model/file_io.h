// SPDX-License-Identifier: Apache-2.0
//
// Host-side file access with the project's guarantees (POSIX; not part of a board build):
//  - reading refuses what is not a regular file (a FIFO would block, a device never ends) and
//    anything larger than the caller's cap before reading a byte of it;
//  - writing goes through a temporary file in the target's folder that is renamed over the
//    target only after every write, the flush to disk and the close succeeded, so a full or
//    read-only disk leaves the previous file as it was.
//
//   std::vector<uint8_t> bytes;
//   TS_RETURN_IF_ERROR(ReadFileBytes(path, kMaxModelFileBytes, &bytes));
//   TS_RETURN_IF_ERROR(WriteFileAtomically(path, bytes.data(), bytes.size()));
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"

namespace trainscope {

// kInvalidFile when `path` is not a regular file or holds more than `max_bytes`, kIoError when
// it cannot be opened or read; each message names the path.
Status ReadFileBytes(const std::string& path, size_t max_bytes, std::vector<uint8_t>* out);

// kIoError naming the path and the reason (e.g. "No space left on device"); on failure nothing
// is left behind and `path` is unchanged.
Status WriteFileAtomically(const std::string& path, const uint8_t* data, size_t size);

}  // namespace trainscope
