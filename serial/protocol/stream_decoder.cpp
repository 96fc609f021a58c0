// SPDX-License-Identifier: Apache-2.0
#include "serial/protocol/stream_decoder.h"

#include <cstring>

#include "serial/protocol/cobs.h"
#include "serial/protocol/crc32.h"

namespace trainscope::wire {

StreamDecoderCore::StreamDecoderCore(uint8_t* scratch, size_t scratch_size)
    : scratch_(scratch), capacity_(scratch ? scratch_size : 0) {}

void StreamDecoderCore::ResetStream() {
  fill_ = 0;
  pending_ = 0;
  overflow_ = false;
  have_sequence_ = false;
}

void StreamDecoderCore::Push(const uint8_t* data, size_t size, FrameSink* sink) {
  if (data == nullptr) return;
  counters_.bytes += size;
  while (size > 0) {
    const void* zero = std::memchr(data, 0, size);
    const size_t run = zero ? static_cast<size_t>(static_cast<const uint8_t*>(zero) - data) : size;
    pending_ += run;
    // An oversize frame is not kept, only remembered as "too long" until its delimiter.
    if (!overflow_) {
      if (run <= capacity_ - fill_) {
        if (run > 0) std::memcpy(scratch_ + fill_, data, run);
        fill_ += run;
      } else {
        overflow_ = true;
        fill_ = 0;
      }
    }
    if (zero == nullptr) return;
    EndFrame(sink);
    data += run + 1;
    size -= run + 1;
  }
}

void StreamDecoderCore::EndFrame(FrameSink* sink) {
  const size_t stuffed = fill_;
  const bool oversize = overflow_;
  pending_ = 0;
  fill_ = 0;
  overflow_ = false;
  if (oversize) {
    ++counters_.bad_length;
    ++counters_.frames_bad;
    return;
  }
  if (stuffed == 0) return;  // back-to-back delimiters are idle filler, not frames

  size_t size = 0;
  const CobsResult cobs = CobsDecode(scratch_, stuffed, scratch_, capacity_, &size);
  if (cobs != CobsResult::kOk) {
    ++counters_.frames_bad;
    ++(cobs == CobsResult::kTooLong ? counters_.bad_length : counters_.bad_cobs);
    return;
  }
  if (size < kMinUnstuffedFrameBytes || size > kMaxUnstuffedFrameBytes) {
    ++counters_.bad_length;
    ++counters_.frames_bad;
    return;
  }
  const size_t body = size - kFrameCrcBytes;
  uint32_t received_crc = 0;
  for (size_t i = 0; i < kFrameCrcBytes; ++i) {
    received_crc |= uint32_t{scratch_[body + i]} << (8 * i);
  }
  if (Crc32(scratch_, body) != received_crc) {
    ++counters_.bad_crc;
    ++counters_.frames_bad;
    return;
  }

  ++counters_.frames_ok;
  FrameView frame;
  frame.type = static_cast<MessageType>(scratch_[0]);
  frame.flags = scratch_[1];
  frame.sequence = static_cast<uint16_t>(scratch_[2] | (scratch_[3] << 8));
  frame.payload = scratch_ + kFrameHeaderBytes;
  frame.payload_size = body - kFrameHeaderBytes;
  frame.crc = received_crc;
  TrackSequence(frame.type, frame.sequence);
  if (!IsKnownMessageType(scratch_[0])) {
    ++counters_.unknown_types;
    if (!deliver_unknown_types_) return;
  }
  if (sink != nullptr) sink->OnFrame(frame);
}

void StreamDecoderCore::TrackSequence(MessageType type, uint16_t sequence) {
  if (have_sequence_ && type != MessageType::kHello) {
    const uint16_t gap = static_cast<uint16_t>(sequence - expected_sequence_);
    // Half the sequence space ahead is a gap; anything else went backwards (a restarted
    // sender that skipped HELLO, or a duplicate): re-base without inventing losses.
    if (gap < 0x8000u) {
      counters_.frames_dropped += gap;
    } else {
      ++counters_.sequence_restarts;
    }
  }
  have_sequence_ = true;
  expected_sequence_ = static_cast<uint16_t>(sequence + 1);
}

}  // namespace trainscope::wire
