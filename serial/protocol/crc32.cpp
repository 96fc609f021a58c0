// SPDX-License-Identifier: Apache-2.0
#include "serial/protocol/crc32.h"

namespace trainscope::wire {
namespace {

// On 64-bit hosts (the desktop decoding traces of millions of frames) eight bytes are folded at
// a time with eight tables (8 KiB); a 32-bit board keeps the single 1 KiB table.
#if UINTPTR_MAX > 0xFFFFFFFFu
constexpr int kTables = 8;
#else
constexpr int kTables = 1;
#endif

struct Crc32Tables {
  // entries[k][b]: the CRC register after byte b is followed by k zero bytes.
  uint32_t entries[kTables][256];
};

constexpr Crc32Tables MakeCrc32Tables() {
  Crc32Tables tables{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t value = byte;
    for (int bit = 0; bit < 8; ++bit)
      value = (value & 1u) ? (value >> 1) ^ 0xEDB88320u : value >> 1;
    tables.entries[0][byte] = value;
  }
  for (int k = 1; k < kTables; ++k) {
    for (uint32_t byte = 0; byte < 256; ++byte) {
      const uint32_t previous = tables.entries[k - 1][byte];
      tables.entries[k][byte] = (previous >> 8) ^ tables.entries[0][previous & 0xFFu];
    }
  }
  return tables;
}

// Computed at compile time so a board keeps it in flash.
constexpr Crc32Tables kTables32 = MakeCrc32Tables();

inline uint32_t LoadLittleEndian32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

}  // namespace

uint32_t Crc32(const uint8_t* data, size_t size, uint32_t previous) {
  const auto& t = kTables32.entries;
  uint32_t crc = previous ^ 0xFFFFFFFFu;
  size_t i = 0;
  if constexpr (kTables == 8) {
    for (; i + 8 <= size; i += 8) {
      const uint32_t low = LoadLittleEndian32(data + i) ^ crc;
      const uint32_t high = LoadLittleEndian32(data + i + 4);
      crc = t[7][low & 0xFFu] ^ t[6][(low >> 8) & 0xFFu] ^ t[5][(low >> 16) & 0xFFu] ^
            t[4][low >> 24] ^ t[3][high & 0xFFu] ^ t[2][(high >> 8) & 0xFFu] ^
            t[1][(high >> 16) & 0xFFu] ^ t[0][high >> 24];
    }
  }
  for (; i < size; ++i) crc = t[0][(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

}  // namespace trainscope::wire
