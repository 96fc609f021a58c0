// SPDX-License-Identifier: Apache-2.0
//
// AsFloats: the float view of bytes the engine's own storage handed out - arena blocks and
// constant-store buffers, both aligned to 16 bytes by their allocators. It is the one place that
// relies on that: on a Cortex-M an unaligned float load faults, which is why -Wcast-align flags
// a plain reinterpret_cast from uint8_t* there. Never use it on bytes from a file or a port.
#pragma once

#include <cstdint>

namespace trainscope {

inline float* AsFloats(uint8_t* storage) {
  return static_cast<float*>(static_cast<void*>(storage));
}
inline const float* AsFloats(const uint8_t* storage) {
  return static_cast<const float*>(static_cast<const void*>(storage));
}

}  // namespace trainscope
