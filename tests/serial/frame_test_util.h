// SPDX-License-Identifier: Apache-2.0
//
// Small helpers for the framing tests: encode messages into one byte stream, and a FrameSink that
// keeps copies of everything it receives.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/message.h"
#include "serial/protocol/stream_decoder.h"

namespace trainscope::testing {

struct CapturedFrame {
  wire::MessageType type;
  uint8_t flags;
  uint16_t sequence;
  std::vector<uint8_t> payload;
  uint32_t crc;
};

class CapturingSink : public wire::FrameSink {
 public:
  void OnFrame(const wire::FrameView& frame) override {
    frames.push_back({frame.type, frame.flags, frame.sequence,
                      std::vector<uint8_t>(frame.payload, frame.payload + frame.payload_size),
                      frame.crc});
  }
  // Decodes every captured frame; fails the test on any frame that does not decode.
  std::vector<wire::Message> Messages() const {
    std::vector<wire::Message> messages;
    for (const CapturedFrame& f : frames) {
      wire::FrameView view;
      view.type = f.type;
      view.payload = f.payload.data();
      view.payload_size = f.payload.size();
      wire::Message message;
      EXPECT_EQ(wire::DecodeMessage(view, &message), wire::DecodeStatus::kOk);
      messages.push_back(message);
    }
    return messages;
  }
  std::vector<CapturedFrame> frames;
};

inline std::vector<uint8_t> EncodeFrame(const wire::Message& message, wire::FrameEncoder* encoder) {
  std::vector<uint8_t> bytes(wire::kMaxWireFrameBytes);
  const size_t n = wire::EncodeMessage(message, encoder, bytes.data(), bytes.size());
  EXPECT_GT(n, 0u);
  bytes.resize(n);
  return bytes;
}

inline void Append(std::vector<uint8_t>* stream, const std::vector<uint8_t>& bytes) {
  stream->insert(stream->end(), bytes.begin(), bytes.end());
}

}  // namespace trainscope::testing
