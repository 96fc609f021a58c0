// SPDX-License-Identifier: Apache-2.0
#include "serial/protocol/cobs.h"

namespace trainscope::wire {

size_t CobsEncode(const uint8_t* in, size_t size, uint8_t* out, size_t capacity) {
  if (capacity == 0) return 0;
  size_t code_at = 0;  // where the current block's code byte goes once the block is closed
  size_t written = 1;
  uint8_t code = 1;
  for (size_t i = 0; i < size; ++i) {
    const uint8_t byte = in[i];  // read before any write that may land on it (in-place use)
    if (byte == 0) {
      out[code_at] = code;
      if (written >= capacity) return 0;
      code_at = written++;
      code = 1;
      continue;
    }
    if (written >= capacity) return 0;
    out[written++] = byte;
    if (++code == 0xFF) {
      out[code_at] = code;
      // A full block that ends the input needs no further (empty) block.
      if (i + 1 == size) return written;
      if (written >= capacity) return 0;
      code_at = written++;
      code = 1;
    }
  }
  out[code_at] = code;
  return written;
}

CobsResult CobsDecode(const uint8_t* in, size_t size, uint8_t* out, size_t capacity,
                      size_t* decoded_size) {
  size_t read = 0;
  size_t written = 0;
  while (read < size) {
    const uint8_t code = in[read++];
    if (code == 0) return CobsResult::kZeroInInput;
    const size_t run = static_cast<size_t>(code) - 1;
    if (run > size - read) return CobsResult::kTruncated;
    if (run > capacity - written) return CobsResult::kTooLong;
    for (size_t i = 0; i < run; ++i) {
      const uint8_t byte = in[read++];
      if (byte == 0) return CobsResult::kZeroInInput;
      out[written++] = byte;
    }
    // A short block stands for a zero, except the last block of the input.
    if (code != 0xFF && read < size) {
      if (written >= capacity) return CobsResult::kTooLong;
      out[written++] = 0;
    }
  }
  *decoded_size = written;
  return CobsResult::kOk;
}

}  // namespace trainscope::wire
