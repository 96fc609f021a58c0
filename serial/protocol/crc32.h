// SPDX-License-Identifier: Apache-2.0
//
// CRC-32 as used by Ethernet, zlib and PNG (reflected polynomial 0xEDB88320, initial value and
// final XOR 0xFFFFFFFF): the check value of "123456789" is 0xCBF43926. Firmware authors can use
// any existing implementation of that CRC (for example a hardware CRC unit set up the same way).
//
// Chaining: Crc32(b, nb, Crc32(a, na)) == Crc32(a followed by b), like zlib's crc32().
// The tables live in read-only memory (1 KiB on 32-bit targets, 8 KiB on 64-bit hosts, which fold
// eight bytes at a time); nothing is allocated.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trainscope::wire {

uint32_t Crc32(const uint8_t* data, size_t size, uint32_t previous = 0);

}  // namespace trainscope::wire
