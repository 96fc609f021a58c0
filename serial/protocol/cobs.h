// SPDX-License-Identifier: Apache-2.0
//
// Consistent Overhead Byte Stuffing: removes every 0x00 from a block so 0x00 can delimit frames.
// Each output block is a code byte n (1..255) followed by n-1 non-zero bytes; a code below 255
// stands for "these bytes, then a zero", except at the very end of the block.
//
// Both functions work on caller buffers and never write past `capacity`. They also work in
// place, which lets the frame encoder avoid a second buffer:
//   - decoding: `out` may equal `in` (output never runs ahead of input);
//   - encoding: `out` may overlap `in` when in >= out + CobsMaxEncodedSize(size) - size, i.e. the
//     unstuffed bytes sit at the end of the area the stuffed bytes will fill.
//
//   uint8_t wire[wire::CobsMaxEncodedSize(sizeof raw)];
//   size_t n = wire::CobsEncode(raw, sizeof raw, wire, sizeof wire);  // 0: did not fit
#pragma once

#include <cstddef>
#include <cstdint>

namespace trainscope::wire {

// Returns the number of bytes written (at least 1), or 0 when `capacity` is too small.
size_t CobsEncode(const uint8_t* in, size_t size, uint8_t* out, size_t capacity);

enum class CobsResult : uint8_t {
  kOk,
  kZeroInInput,  // a 0x00 inside a stuffed block: the bytes are not COBS
  kTruncated,    // a code byte promises more bytes than the block has
  kTooLong,      // the decoded bytes do not fit in `capacity`
};

// Decodes one block (without its 0x00 delimiter). On success *decoded_size is the output length.
CobsResult CobsDecode(const uint8_t* in, size_t size, uint8_t* out, size_t capacity,
                      size_t* decoded_size);

}  // namespace trainscope::wire
