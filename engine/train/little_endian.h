// SPDX-License-Identifier: Apache-2.0
//
// Little-endian loads and stores for onert-micro's side files (checkpoint, train config, WOF),
// which are packed and little-endian whatever the host. The callers bound every offset first;
// these helpers only move bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace trainscope::little_endian {

inline uint16_t LoadU16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

inline uint32_t LoadU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

inline float LoadF32(const uint8_t* p) {
  const uint32_t bits = LoadU32(p);
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

inline void StoreU16(uint16_t value, uint8_t* p) {
  p[0] = static_cast<uint8_t>(value);
  p[1] = static_cast<uint8_t>(value >> 8);
}

inline void StoreU32(uint32_t value, uint8_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(value >> (8 * i));
}

inline void StoreF32(float value, uint8_t* p) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  StoreU32(bits, p);
}

}  // namespace trainscope::little_endian
