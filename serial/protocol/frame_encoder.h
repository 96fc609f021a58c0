// SPDX-License-Identifier: Apache-2.0
//
// FrameEncoder turns one message into wire bytes in a caller buffer: header (type, flags,
// sequence), payload, CRC-32, COBS stuffing and the 0x00 delimiter. It allocates nothing and
// needs no second buffer (stuffing runs in place), so the board agent uses it as is.
//
// One encoder per direction of a link: it owns the sequence counter the receiver uses to count
// dropped frames. The counter advances only when a frame was actually produced.
//
//   wire::FrameEncoder encoder;
//   uint8_t bytes[wire::kMaxWireFrameBytes];
//   size_t n = encoder.Encode(wire::BasicCommand{wire::MessageType::kPause, 7}, bytes, sizeof
//   bytes); if (n == 0) { /* buffer too small */ } transport.Write(bytes, n);
#pragma once

#include <cstddef>
#include <cstdint>

#include "serial/protocol/byte_io.h"
#include "serial/protocol/payload_codec.h"
#include "serial/protocol/wire_format.h"

namespace trainscope::wire {

// Bytes a frame with this payload size occupies on the wire, delimiter included (upper bound).
constexpr size_t WireFrameSize(size_t payload_size) {
  return CobsMaxEncodedSize(kFrameHeaderBytes + payload_size + kFrameCrcBytes) + 1;
}

class FrameEncoder {
 public:
  explicit FrameEncoder(uint16_t first_sequence = 0) : next_sequence_(first_sequence) {}

  // Encodes a typed message with the flags its type normally carries (DefaultFlags).
  // Returns the bytes written to `out`, or 0 when they do not fit in `capacity`.
  template <class Message>
  size_t Encode(const Message& message, uint8_t* out, size_t capacity) {
    return Encode(message, DefaultFlags(MessageTypeOf(message)), out, capacity);
  }
  template <class Message>
  size_t Encode(const Message& message, uint8_t flags, uint8_t* out, size_t capacity) {
    Slot slot = Begin(out, capacity);
    if (!slot.valid || !EncodePayload(message, &slot.payload)) return 0;
    return Finish(MessageTypeOf(message), flags, slot, out, capacity);
  }

  // Encodes a frame around payload bytes that are already laid out (at most kMaxPayloadBytes).
  size_t EncodeRaw(MessageType type, uint8_t flags, const uint8_t* payload, size_t payload_size,
                   uint8_t* out, size_t capacity);

  uint16_t next_sequence() const { return next_sequence_; }
  void set_next_sequence(uint16_t sequence) { next_sequence_ = sequence; }

 private:
  // The unstuffed frame is built at `offset` inside `out`, far enough from the start that
  // in-place stuffing never overtakes it.
  struct Slot {
    bool valid;
    size_t offset;
    ByteWriter payload;
  };
  static Slot Begin(uint8_t* out, size_t capacity);
  size_t Finish(MessageType type, uint8_t flags, const Slot& slot, uint8_t* out, size_t capacity);

  uint16_t next_sequence_;
};

}  // namespace trainscope::wire
