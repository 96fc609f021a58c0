// SPDX-License-Identifier: Apache-2.0
#include "serial/protocol/frame_encoder.h"

#include "serial/protocol/cobs.h"
#include "serial/protocol/crc32.h"

namespace trainscope::wire {

FrameEncoder::Slot FrameEncoder::Begin(uint8_t* out, size_t capacity) {
  // Stuffing n bytes adds at most n/254 + 1 code bytes and n < capacity, so this gap is enough.
  const size_t offset = capacity / 254 + 1;
  const size_t reserved = offset + kFrameHeaderBytes + kFrameCrcBytes + 1;  // + delimiter
  if (out == nullptr || capacity < reserved) return Slot{false, 0, ByteWriter(nullptr, 0)};
  size_t payload_capacity = capacity - reserved;
  if (payload_capacity > kMaxPayloadBytes) payload_capacity = kMaxPayloadBytes;
  return Slot{true, offset, ByteWriter(out + offset + kFrameHeaderBytes, payload_capacity)};
}

size_t FrameEncoder::Finish(MessageType type, uint8_t flags, const Slot& slot, uint8_t* out,
                            size_t capacity) {
  if (!slot.payload.ok()) return 0;
  uint8_t* frame = out + slot.offset;
  frame[0] = static_cast<uint8_t>(type);
  frame[1] = flags;
  frame[2] = static_cast<uint8_t>(next_sequence_);
  frame[3] = static_cast<uint8_t>(next_sequence_ >> 8);
  size_t size = kFrameHeaderBytes + slot.payload.size();
  const uint32_t crc = Crc32(frame, size);
  for (int i = 0; i < 4; ++i) frame[size++] = static_cast<uint8_t>(crc >> (8 * i));

  const size_t stuffed = CobsEncode(frame, size, out, capacity - 1);
  if (stuffed == 0) return 0;
  out[stuffed] = 0;
  ++next_sequence_;
  return stuffed + 1;
}

size_t FrameEncoder::EncodeRaw(MessageType type, uint8_t flags, const uint8_t* payload,
                               size_t payload_size, uint8_t* out, size_t capacity) {
  if (payload_size > kMaxPayloadBytes || (payload == nullptr && payload_size > 0)) return 0;
  Slot slot = Begin(out, capacity);
  if (!slot.valid) return 0;
  slot.payload.Bytes(payload, payload_size);
  return Finish(type, flags, slot, out, capacity);
}

}  // namespace trainscope::wire
