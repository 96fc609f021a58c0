// SPDX-License-Identifier: Apache-2.0
//
// SentNames remembers which tensor and operator names were already sent, so each INTERN_NAME
// goes out once per session. A fixed bitset: ids beyond its range are not remembered, so their
// names are sent every time they are asked for (correct, only slower).
#pragma once

#include <cstddef>
#include <cstdint>

#include "serial/protocol/messages.h"

namespace trainscope {

class SentNames {
 public:
  static constexpr uint32_t kMaxTensorIds = 1024;
  static constexpr uint32_t kMaxOperatorIds = 512;

  // Marks (kind, id) as sent; returns true if it was not marked before (or cannot be marked).
  bool Mark(wire::NameKind kind, uint32_t id) {
    uint8_t* bits = kind == wire::NameKind::kTensor ? tensors_ : operators_;
    const uint32_t limit = kind == wire::NameKind::kTensor ? kMaxTensorIds : kMaxOperatorIds;
    if (id >= limit) return true;
    const uint8_t mask = static_cast<uint8_t>(1u << (id % 8));
    if (bits[id / 8] & mask) return false;
    bits[id / 8] = static_cast<uint8_t>(bits[id / 8] | mask);
    return true;
  }
  void Clear() {
    for (uint8_t& b : tensors_) b = 0;
    for (uint8_t& b : operators_) b = 0;
  }

 private:
  uint8_t tensors_[kMaxTensorIds / 8] = {};
  uint8_t operators_[kMaxOperatorIds / 8] = {};
};

}  // namespace trainscope
