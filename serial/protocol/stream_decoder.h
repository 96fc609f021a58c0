// SPDX-License-Identifier: Apache-2.0
//
// StreamDecoder cuts a byte stream into frames: push whatever chunks the transport delivered
// (one byte or a megabyte, split anywhere) and every good frame reaches the FrameSink as it
// completes. Nothing is trusted and nothing is fatal:
//   - a frame that fails COBS, is too short or too long, or fails its CRC is dropped and
//     counted in frames_bad; decoding resumes after the next 0x00, so one noisy burst costs at
//     most the frames it touched;
//   - a gap in sequence numbers between good frames is counted in frames_dropped (frames the
//     board discarded plus frames lost on the line); HELLO starts a new sequence;
//   - a good frame of a type this version does not know is counted in unknown_types and skipped
//     (unless set_deliver_unknown_types is on).
// The counters are plain integers meant to be polled (e.g. at 1 Hz) and shown as deltas.
//
// Storage: a StreamDecoderCore works in a caller buffer that holds one stuffed frame; frames
// longer than the buffer count as bad. BasicStreamDecoder<N> carries its own buffer: the host
// uses StreamDecoder (room for the largest frame), the board agent a small one for commands.
// No heap either way.
//
//   wire::StreamDecoder decoder;
//   MySink sink;                               // implements FrameSink::OnFrame
//   decoder.Push(bytes, n, &sink);             // any number of times
//   uint64_t lost = decoder.counters().frames_dropped;
#pragma once

#include <cstddef>
#include <cstdint>

#include "serial/protocol/wire_format.h"

namespace trainscope::wire {

// One decoded, CRC-checked frame. `payload` points into the decoder's buffer and is valid only
// during the OnFrame call.
struct FrameView {
  MessageType type = MessageType::kHello;
  uint8_t flags = 0;
  uint16_t sequence = 0;
  const uint8_t* payload = nullptr;
  size_t payload_size = 0;
  uint32_t crc = 0;  // as received (and verified) over header and payload
};

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual void OnFrame(const FrameView& frame) = 0;
};

struct LinkCounters {
  uint64_t bytes = 0;              // every byte pushed, delimiters and garbage included
  uint64_t frames_ok = 0;          // frames with a valid CRC (unknown types included)
  uint64_t frames_bad = 0;         // bad_cobs + bad_length + bad_crc
  uint64_t bad_cobs = 0;           // not valid COBS (corrupted stuffing)
  uint64_t bad_length = 0;         // shorter than a header + CRC, or longer than the maximum
  uint64_t bad_crc = 0;            // CRC mismatch
  uint64_t frames_dropped = 0;     // sequence numbers skipped between good frames
  uint64_t unknown_types = 0;      // good frames skipped because their type is unknown
  uint64_t sequence_restarts = 0;  // a good frame went backwards in sequence (not HELLO)
};

class StreamDecoderCore {
 public:
  // `scratch` holds one frame's stuffed bytes; it must outlive the decoder.
  StreamDecoderCore(uint8_t* scratch, size_t scratch_size);
  StreamDecoderCore(const StreamDecoderCore&) = delete;
  StreamDecoderCore& operator=(const StreamDecoderCore&) = delete;

  // `sink` may be null to only count.
  void Push(const uint8_t* data, size_t size, FrameSink* sink);

  const LinkCounters& counters() const { return counters_; }
  // Bytes of a frame whose delimiter has not arrived yet: at the end of a trace file this is
  // the torn tail a killed writer left behind.
  size_t pending_bytes() const { return pending_; }
  // Forgets a partial frame and the sequence baseline (e.g. after reconnecting); counters stay.
  void ResetStream();
  // Also hand good frames of unknown types to the sink (still counted in unknown_types). The
  // board agent uses this to answer commands newer than itself with ACK UNKNOWN_COMMAND.
  void set_deliver_unknown_types(bool deliver) { deliver_unknown_types_ = deliver; }

 private:
  void EndFrame(FrameSink* sink);
  void TrackSequence(MessageType type, uint16_t sequence);

  uint8_t* scratch_;
  size_t capacity_;
  size_t fill_ = 0;
  size_t pending_ = 0;     // bytes since the last delimiter
  bool overflow_ = false;  // the current frame outgrew the buffer; it ends as bad_length
  bool deliver_unknown_types_ = false;
  bool have_sequence_ = false;
  uint16_t expected_sequence_ = 0;
  LinkCounters counters_;
};

namespace internal {
template <size_t N>
struct DecoderStorage {
  uint8_t bytes[N];
};
}  // namespace internal

// The decoder's buffer is a base so it exists before StreamDecoderCore is constructed with it.
template <size_t kScratchBytes>
class BasicStreamDecoder : private internal::DecoderStorage<kScratchBytes>,
                           public StreamDecoderCore {
 public:
  BasicStreamDecoder()
      : StreamDecoderCore(internal::DecoderStorage<kScratchBytes>::bytes, kScratchBytes) {}
};

inline constexpr size_t kMaxStuffedFrameBytes = CobsMaxEncodedSize(kMaxUnstuffedFrameBytes);
using StreamDecoder = BasicStreamDecoder<kMaxStuffedFrameBytes>;

}  // namespace trainscope::wire
