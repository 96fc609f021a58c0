// SPDX-License-Identifier: Apache-2.0
#include "serial/protocol/crc32.h"

namespace trainscope::wire {
namespace {

struct Crc32Table {
  uint32_t entries[256];
};

constexpr Crc32Table MakeCrc32Table() {
  Crc32Table table{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t value = byte;
    for (int bit = 0; bit < 8; ++bit)
      value = (value & 1u) ? (value >> 1) ^ 0xEDB88320u : value >> 1;
    table.entries[byte] = value;
  }
  return table;
}

// Computed at compile time so a board keeps it in flash.
constexpr Crc32Table kTable = MakeCrc32Table();

}  // namespace

uint32_t Crc32(const uint8_t* data, size_t size, uint32_t previous) {
  uint32_t crc = previous ^ 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) crc = kTable.entries[(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

}  // namespace trainscope::wire
