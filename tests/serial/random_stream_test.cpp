// SPDX-License-Identifier: Apache-2.0
//
// Robustness: whatever bytes arrive, the decoder neither crashes nor delivers a frame whose CRC
// does not match, and a damaged stream never yields a frame that was not sent.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "serial/protocol/crc32.h"
#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/message.h"
#include "serial/protocol/message_router.h"
#include "serial/protocol/stream_decoder.h"
#include "tests/serial/frame_test_util.h"
#include "tests/serial/sample_messages.h"

namespace trainscope::wire {
namespace {

// Recomputes each delivered frame's CRC and routes it, so payload decoding runs on it too.
class CheckingSink : public FrameSink {
 public:
  void OnFrame(const FrameView& frame) override {
    const uint8_t header[4] = {static_cast<uint8_t>(frame.type), frame.flags,
                               static_cast<uint8_t>(frame.sequence),
                               static_cast<uint8_t>(frame.sequence >> 8)};
    const uint32_t crc = Crc32(frame.payload, frame.payload_size, Crc32(header, 4));
    if (crc != frame.crc) ++bad_crc_delivered;
    if (!IsKnownMessageType(static_cast<uint8_t>(frame.type))) ++unknown_delivered;
    ++delivered;
    router.OnFrame(frame);
  }
  int delivered = 0;
  int bad_crc_delivered = 0;
  int unknown_delivered = 0;
  TrainingObserver observer;
  LinkHandler link;
  MessageRouter router{&observer, &link};
};

TEST(RandomStream, ArbitraryBytesNeverCrashAndNeverPassABadCrc) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> bytes(4096 + rng() % 8192);
    const auto zero_odds =
        static_cast<unsigned>(1 + rng() % 400);  // from dense delimiters to near none
    for (uint8_t& b : bytes) b = (rng() % zero_odds == 0) ? 0 : static_cast<uint8_t>(rng());
    StreamDecoder decoder;
    BasicStreamDecoder<48> small_decoder;
    CheckingSink sink;
    for (size_t at = 0; at < bytes.size();) {
      const size_t n = std::min<size_t>(1 + rng() % 700, bytes.size() - at);
      decoder.Push(bytes.data() + at, n, &sink);
      small_decoder.Push(bytes.data() + at, n, &sink);
      at += n;
    }
    ASSERT_EQ(sink.bad_crc_delivered, 0) << "seed " << seed;
    ASSERT_EQ(sink.unknown_delivered, 0) << "seed " << seed;
    EXPECT_EQ(decoder.counters().bytes, bytes.size());
  }
}

TEST(RandomStream, DamagedValidStreamsOnlyDeliverFramesThatWereSent) {
  const std::vector<Message> messages = testing::OneOfEachMessage();
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    FrameEncoder encoder(static_cast<uint16_t>(rng()));
    std::vector<uint8_t> stream;
    std::map<uint16_t, std::vector<uint8_t>> sent;  // sequence -> frame bytes
    for (int i = 0; i < 60; ++i) {
      const uint16_t sequence = encoder.next_sequence();
      std::vector<uint8_t> frame =
          testing::EncodeFrame(messages[rng() % messages.size()], &encoder);
      sent[sequence] = frame;
      testing::Append(&stream, frame);
    }
    // Damage: flipped bits, deleted bytes, inserted bytes.
    const int damage = 1 + static_cast<int>(rng() % 20);
    for (int d = 0; d < damage && !stream.empty(); ++d) {
      const size_t at = rng() % stream.size();
      switch (rng() % 3) {
        case 0:
          stream[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
          break;
        case 1:
          stream.erase(stream.begin() + static_cast<long>(at));
          break;
        default:
          stream.insert(stream.begin() + static_cast<long>(at), static_cast<uint8_t>(rng()));
      }
    }
    StreamDecoder decoder;
    testing::CapturingSink sink;
    decoder.Push(stream.data(), stream.size(), &sink);
    for (const testing::CapturedFrame& got : sink.frames) {
      ASSERT_TRUE(sent.count(got.sequence)) << "seed " << seed;
      FrameEncoder replay(got.sequence);
      std::vector<uint8_t> again(kMaxWireFrameBytes);
      again.resize(replay.EncodeRaw(got.type, got.flags, got.payload.data(), got.payload.size(),
                                    again.data(), again.size()));
      ASSERT_EQ(again, sent[got.sequence]) << "seed " << seed << " sequence " << got.sequence;
    }
    const LinkCounters& c = decoder.counters();
    EXPECT_EQ(c.frames_ok, sink.frames.size());
    EXPECT_EQ(c.frames_bad, c.bad_cobs + c.bad_length + c.bad_crc);
  }
}

}  // namespace
}  // namespace trainscope::wire
