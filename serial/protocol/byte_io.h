// SPDX-License-Identifier: Apache-2.0
//
// Little-endian field writer and reader over caller buffers: the only way payloads are built and
// parsed, so every field of the protocol has one explicit width and byte order.
//
// Neither class allocates or fails loudly. A write that does not fit, or a read past the end,
// sets a sticky failure flag; later calls do nothing (reads return 0) and the caller checks ok()
// once at the end. That keeps payload code flat and makes "short payload" impossible to miss.
//
//   ByteReader reader(payload, size);
//   uint32_t step = reader.U32();
//   float value = reader.F32();
//   if (!reader.ok()) return DecodeStatus::kTruncated;
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "engine/core/byte_order.h"

namespace trainscope::wire {

static_assert(std::numeric_limits<float>::is_iec559, "the wire format carries IEEE-754 floats");

class ByteWriter {
 public:
  ByteWriter(uint8_t* data, size_t capacity) : data_(data), capacity_(capacity) {}

  void U8(uint8_t value) { Put(&value, 1); }
  void U16(uint16_t value) { PutLittleEndian(value, 2); }
  void U32(uint32_t value) { PutLittleEndian(value, 4); }
  void U64(uint64_t value) { PutLittleEndian(value, 8); }
  void I16(int16_t value) { U16(static_cast<uint16_t>(value)); }
  void I32(int32_t value) { U32(static_cast<uint32_t>(value)); }
  void F32(float value) {
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    U32(bits);
  }
  void Bytes(const void* bytes, size_t size) { Put(static_cast<const uint8_t*>(bytes), size); }

  bool ok() const { return ok_; }
  size_t size() const { return size_; }

 private:
  void PutLittleEndian(uint64_t value, size_t width) {
    uint8_t bytes[8];
    little_endian::Store(value, width, bytes);
    Put(bytes, width);
  }
  void Put(const uint8_t* bytes, size_t size) {
    if (!ok_ || size > capacity_ - size_) {
      ok_ = false;
      return;
    }
    if (size > 0) std::memcpy(data_ + size_, bytes, size);
    size_ += size;
  }

  uint8_t* data_;
  size_t capacity_;
  size_t size_ = 0;
  bool ok_ = true;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t U8() { return static_cast<uint8_t>(GetLittleEndian(1)); }
  uint16_t U16() { return static_cast<uint16_t>(GetLittleEndian(2)); }
  uint32_t U32() { return static_cast<uint32_t>(GetLittleEndian(4)); }
  uint64_t U64() { return GetLittleEndian(8); }
  int16_t I16() { return static_cast<int16_t>(U16()); }
  int32_t I32() { return static_cast<int32_t>(U32()); }
  float F32() {
    const uint32_t bits = U32();
    float value = 0.0f;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  // Copies `size` bytes; on failure `out` is left untouched.
  void Bytes(void* out, size_t size) {
    if (!Take(size)) return;
    if (size > 0) std::memcpy(out, data_ + offset_ - size, size);
  }

  bool ok() const { return ok_; }
  size_t offset() const { return offset_; }
  size_t remaining() const { return size_ - offset_; }

 private:
  bool Take(size_t size) {
    if (!ok_ || size > size_ - offset_) {
      ok_ = false;
      return false;
    }
    offset_ += size;
    return true;
  }
  uint64_t GetLittleEndian(size_t width) {
    if (!Take(width)) return 0;
    return little_endian::Load(data_ + offset_ - width, width);
  }

  const uint8_t* data_;
  size_t size_;
  size_t offset_ = 0;
  bool ok_ = true;
};

}  // namespace trainscope::wire
