// SPDX-License-Identifier: Apache-2.0
//
// Feeds a byte stream to wire::StreamDecoder (the host's) and to the agent-sized decoder in
// chunks of random size, and checks what must hold for any input:
//   - every frame handed to the sink fits its decoder (payload <= kMaxPayloadBytes; the small
//     decoder only takes frames whose stuffed bytes fit its 40-byte buffer) and its CRC-32,
//     recomputed here bit by bit (not with the protocol's table), matches;
//   - counters never decrease, frames_bad is the sum of its parts, `bytes` counts every byte
//     pushed, pending_bytes() is the distance to the last 0x00;
//   - a well-formed frame that follows a 0x00 is decoded whatever garbage came before it.
// The input is read as a script: segments of raw garbage, well-formed frames and well-formed
// frames with bits flipped, so the fuzzer reaches the accept path and not only the reject paths.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/stream_decoder.h"
#include "serial/protocol/wire_format.h"

namespace trainscope::wire {
namespace {

constexpr size_t kSmallScratchBytes = 40;  // the board agent's command decoder

// Names the failed condition and its line before aborting, so a crash report says which
// invariant broke.
#define Check(condition) CheckAt((condition), #condition, __LINE__)
void CheckAt(bool condition, const char* text, int line) {
  if (condition) return;
  std::fprintf(stderr, "invariant failed at line %d: %s\n", line, text);
  std::abort();
}

uint32_t BitwiseCrc32(const uint8_t* data, size_t size, uint32_t crc) {
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return crc;
}

uint32_t FrameCrc(const FrameView& frame) {
  const uint8_t header[kFrameHeaderBytes] = {static_cast<uint8_t>(frame.type), frame.flags,
                                             static_cast<uint8_t>(frame.sequence),
                                             static_cast<uint8_t>(frame.sequence >> 8)};
  uint32_t crc = BitwiseCrc32(header, sizeof header, 0xFFFFFFFFu);
  crc = BitwiseCrc32(frame.payload, frame.payload_size, crc);
  return crc ^ 0xFFFFFFFFu;
}

struct ExpectedFrame {
  uint8_t type;
  uint8_t flags;
  uint16_t sequence;
  std::vector<uint8_t> payload;
};

class CheckingSink final : public FrameSink {
 public:
  explicit CheckingSink(size_t max_unstuffed) : max_unstuffed_(max_unstuffed) {}

  void OnFrame(const FrameView& frame) override {
    ++delivered;
    Check(frame.payload != nullptr || frame.payload_size == 0);
    Check(frame.payload_size <= kMaxPayloadBytes);
    Check(kFrameHeaderBytes + frame.payload_size + kFrameCrcBytes <= max_unstuffed_);
    Check(FrameCrc(frame) == frame.crc);
    if (frame.payload_size > 0) {  // touch every byte: ASan catches a view past the buffer
      volatile uint8_t last = frame.payload[frame.payload_size - 1];
      (void)last;
    }
    if (!expected.empty() && Matches(frame, expected.front())) expected.pop_front();
  }

  uint64_t delivered = 0;
  std::deque<ExpectedFrame> expected;  // well-formed frames still to be seen, in order

 private:
  static bool Matches(const FrameView& frame, const ExpectedFrame& want) {
    return static_cast<uint8_t>(frame.type) == want.type && frame.flags == want.flags &&
           frame.sequence == want.sequence && frame.payload_size == want.payload.size() &&
           (want.payload.empty() ||
            std::memcmp(frame.payload, want.payload.data(), want.payload.size()) == 0);
  }

  size_t max_unstuffed_;
};

void CheckMonotonic(const LinkCounters& before, const LinkCounters& after) {
  Check(after.bytes >= before.bytes);
  Check(after.frames_ok >= before.frames_ok);
  Check(after.frames_bad >= before.frames_bad);
  Check(after.bad_cobs >= before.bad_cobs);
  Check(after.bad_length >= before.bad_length);
  Check(after.bad_crc >= before.bad_crc);
  Check(after.frames_dropped >= before.frames_dropped);
  Check(after.unknown_types >= before.unknown_types);
  Check(after.sequence_restarts >= before.sequence_restarts);
  Check(after.frames_bad == after.bad_cobs + after.bad_length + after.bad_crc);
  Check(after.unknown_types <= after.frames_ok);
}

// Appends one segment of the script to `stream`; well-formed frames go to `expected` as well.
void AppendSegment(FuzzedDataProvider* input, FrameEncoder* encoder, std::vector<uint8_t>* stream,
                   std::deque<ExpectedFrame>* expected) {
  enum Kind : uint8_t { kGarbage = 0, kFrame = 1, kFlippedFrame = 2 };
  const uint8_t kind = input->ConsumeIntegralInRange<uint8_t>(0, 2);
  if (kind == kGarbage) {
    const std::vector<uint8_t> bytes =
        input->ConsumeBytes<uint8_t>(input->ConsumeIntegralInRange<size_t>(0, 2048));
    stream->insert(stream->end(), bytes.begin(), bytes.end());
    return;
  }
  ExpectedFrame frame;
  frame.type = input->ConsumeIntegral<uint8_t>();
  frame.flags = input->ConsumeIntegral<uint8_t>();
  frame.sequence = encoder->next_sequence();
  frame.payload =
      input->ConsumeBytes<uint8_t>(input->ConsumeIntegralInRange<size_t>(0, kMaxPayloadBytes));
  std::vector<uint8_t> wire(kMaxWireFrameBytes);
  const size_t size =
      encoder->EncodeRaw(static_cast<MessageType>(frame.type), frame.flags, frame.payload.data(),
                         frame.payload.size(), wire.data(), wire.size());
  Check(size > 1 && size <= kMaxWireFrameBytes && wire[size - 1] == 0);
  Check(std::memchr(wire.data(), 0, size - 1) == nullptr);  // COBS left no other zero
  wire.resize(size);
  if (kind == kFlippedFrame) {
    const size_t flips = input->ConsumeIntegralInRange<size_t>(1, 4);
    for (size_t i = 0; i < flips; ++i) {
      const size_t at = input->ConsumeIntegralInRange<size_t>(0, size - 1);
      wire[at] = static_cast<uint8_t>(wire[at] ^ (1u << input->ConsumeIntegralInRange(0, 7)));
    }
  } else if (IsKnownMessageType(frame.type)) {
    stream->push_back(0);  // ends whatever garbage came before: the frame must get through
    expected->push_back(frame);
  }
  stream->insert(stream->end(), wire.begin(), wire.end());
}

}  // namespace
}  // namespace trainscope::wire

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainscope::wire;
  FuzzedDataProvider input(data, size);
  FrameEncoder encoder(input.ConsumeIntegral<uint16_t>());
  std::vector<uint8_t> stream;
  CheckingSink big_sink(kMaxUnstuffedFrameBytes);
  // A frame of n unstuffed bytes needs at least n + 1 stuffed bytes.
  CheckingSink small_sink(kSmallScratchBytes - 1);
  const bool deliver_unknown = input.ConsumeBool();
  const int segments = input.ConsumeIntegralInRange(0, 16);
  for (int i = 0; i < segments && input.remaining_bytes() > 0; ++i) {
    AppendSegment(&input, &encoder, &stream, &big_sink.expected);
  }
  // Whatever is left is raw bytes at the end of the stream (often a torn frame).
  const std::vector<uint8_t> tail = input.ConsumeRemainingBytes<uint8_t>();
  stream.insert(stream.end(), tail.begin(), tail.end());

  StreamDecoder big;
  BasicStreamDecoder<kSmallScratchBytes> small;
  big.set_deliver_unknown_types(deliver_unknown);
  small.set_deliver_unknown_types(deliver_unknown);
  // Chunk sizes come from the stream itself so every split point gets tried.
  uint32_t chunk_seed = 0x9E3779B9u ^ static_cast<uint32_t>(stream.size());
  size_t offset = 0;
  size_t last_zero_end = 0;  // stream position just after the last 0x00 pushed
  while (offset < stream.size()) {
    chunk_seed = chunk_seed * 1664525u + 1013904223u;
    const size_t chunk_limit = (chunk_seed >> 28) < 2 ? 1 : 1 + ((chunk_seed >> 8) % 700);
    const size_t chunk = std::min(chunk_limit, stream.size() - offset);
    const LinkCounters big_before = big.counters();
    const LinkCounters small_before = small.counters();
    big.Push(stream.data() + offset, chunk, &big_sink);
    small.Push(stream.data() + offset, chunk, &small_sink);
    for (size_t i = offset; i < offset + chunk; ++i) {
      if (stream[i] == 0) last_zero_end = i + 1;
    }
    offset += chunk;
    CheckMonotonic(big_before, big.counters());
    CheckMonotonic(small_before, small.counters());
    Check(big.counters().bytes == offset && small.counters().bytes == offset);
    Check(big.pending_bytes() == offset - last_zero_end);
    Check(small.pending_bytes() == offset - last_zero_end);
  }
  big.Push(nullptr, 5, &big_sink);  // a null chunk is ignored, not counted
  Check(big.counters().bytes == stream.size());

  // Every frame accepted by the small decoder fits the big one, so the big one saw more.
  Check(big.counters().frames_ok >= small.counters().frames_ok);
  const LinkCounters& c = big.counters();
  Check(big_sink.delivered == (deliver_unknown ? c.frames_ok : c.frames_ok - c.unknown_types));
  Check(big_sink.expected.empty());
  return 0;
}
