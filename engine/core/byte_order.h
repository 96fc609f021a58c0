// SPDX-License-Identifier: Apache-2.0
//
// Little-endian loads and stores: onert-micro's side files (checkpoint, train config, WOF) and the
// wire protocol are packed and little-endian whatever the host. The callers bound every offset
// first; these helpers only move bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace trainscope::little_endian {

// `width` (1 to 8) bytes at `p`, least significant first.
inline uint64_t Load(const uint8_t* p, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= uint64_t{p[i]} << (8 * i);
  return value;
}

inline void Store(uint64_t value, size_t width, uint8_t* p) {
  for (size_t i = 0; i < width; ++i) p[i] = static_cast<uint8_t>(value >> (8 * i));
}

inline uint16_t LoadU16(const uint8_t* p) {
  return static_cast<uint16_t>(Load(p, 2));
}

inline uint32_t LoadU32(const uint8_t* p) {
  return static_cast<uint32_t>(Load(p, 4));
}

inline float LoadF32(const uint8_t* p) {
  const uint32_t bits = LoadU32(p);
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

inline void StoreU16(uint16_t value, uint8_t* p) {
  Store(value, 2, p);
}

inline void StoreU32(uint32_t value, uint8_t* p) {
  Store(value, 4, p);
}

inline void StoreF32(float value, uint8_t* p) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  StoreU32(bits, p);
}

}  // namespace trainscope::little_endian
