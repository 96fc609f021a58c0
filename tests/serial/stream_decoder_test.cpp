// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/message.h"
#include "serial/protocol/stream_decoder.h"
#include "tests/serial/frame_test_util.h"
#include "tests/serial/sample_messages.h"

namespace trainscope::wire {
namespace {

using testing::Append;
using testing::CapturingSink;
using testing::EncodeFrame;

LossEvent Loss(uint32_t step) {
  return LossEvent{step, 0, 0.5f * static_cast<float>(step)};
}

// Frames carrying LossEvent{step = first .. first+count-1}, with consecutive sequence numbers.
std::vector<std::vector<uint8_t>> LossFrames(FrameEncoder* encoder, uint32_t first, int count) {
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < count; ++i) frames.push_back(EncodeFrame(Loss(first + i), encoder));
  return frames;
}

std::vector<uint32_t> LossSteps(const CapturingSink& sink) {
  std::vector<uint32_t> steps;
  for (const Message& m : sink.Messages()) {
    if (const auto* loss = std::get_if<LossEvent>(&m)) steps.push_back(loss->optimizer_step);
  }
  return steps;
}

std::vector<uint8_t> NonZeroGarbage(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(size);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(1 + rng() % 255);
  return bytes;
}

TEST(StreamDecoder, DeliversFramesSplitIntoSingleBytesAndRandomChunks) {
  FrameEncoder encoder;
  std::vector<uint8_t> stream;
  for (const auto& frame : LossFrames(&encoder, 1, 20)) Append(&stream, frame);

  StreamDecoder one_byte;
  CapturingSink one_byte_sink;
  for (uint8_t b : stream) one_byte.Push(&b, 1, &one_byte_sink);
  EXPECT_EQ(one_byte_sink.frames.size(), 20u);

  std::mt19937 rng(7);
  StreamDecoder chunked;
  CapturingSink chunked_sink;
  for (size_t at = 0; at < stream.size();) {
    const size_t n = std::min<size_t>(1 + rng() % 9, stream.size() - at);
    chunked.Push(stream.data() + at, n, &chunked_sink);
    at += n;
  }
  std::vector<uint32_t> expected;
  for (uint32_t i = 1; i <= 20; ++i) expected.push_back(i);
  EXPECT_EQ(LossSteps(one_byte_sink), expected);
  EXPECT_EQ(LossSteps(chunked_sink), expected);
  EXPECT_EQ(chunked.counters().bytes, stream.size());
  EXPECT_EQ(chunked.counters().frames_bad, 0u);
}

TEST(StreamDecoder, GarbageBetweenDelimitersCostsOnlyItself) {
  FrameEncoder encoder;
  const auto frames = LossFrames(&encoder, 1, 3);
  std::vector<uint8_t> stream = NonZeroGarbage(50, 1);  // before: e.g. a boot banner
  stream.push_back(0);  // a sender starts with a delimiter, which ends the garbage
  Append(&stream, frames[0]);
  Append(&stream, NonZeroGarbage(30, 2));  // between frames, ended by a delimiter
  stream.push_back(0);
  Append(&stream, frames[1]);
  Append(&stream, frames[2]);
  Append(&stream, NonZeroGarbage(10, 3));  // after: no delimiter yet

  StreamDecoder decoder;
  CapturingSink sink;
  decoder.Push(stream.data(), stream.size(), &sink);
  EXPECT_EQ(LossSteps(sink), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(decoder.counters().frames_bad, 2u);
  EXPECT_EQ(decoder.counters().frames_dropped, 0u);
  EXPECT_EQ(decoder.pending_bytes(), 10u);
}

TEST(StreamDecoder, GarbageInsideAFrameLosesThatFrameOnly) {
  FrameEncoder encoder;
  const auto frames = LossFrames(&encoder, 1, 3);
  std::vector<uint8_t> stream;
  Append(&stream, frames[0]);
  std::vector<uint8_t> spoiled = frames[1];
  const std::vector<uint8_t> noise = NonZeroGarbage(5, 4);
  spoiled.insert(spoiled.begin() + 6, noise.begin(), noise.end());
  Append(&stream, spoiled);
  Append(&stream, frames[2]);

  StreamDecoder decoder;
  CapturingSink sink;
  decoder.Push(stream.data(), stream.size(), &sink);
  EXPECT_EQ(LossSteps(sink), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(decoder.counters().frames_bad, 1u);
  EXPECT_EQ(decoder.counters().frames_dropped, 1u);  // the lost frame's sequence number
}

TEST(StreamDecoder, EveryFlippedBitIsCaughtAndCounted) {
  FrameEncoder encoder;
  const auto frames = LossFrames(&encoder, 1, 2);
  // Flip each bit of frame 0 except its delimiter in turn; frame 1 must always get through.
  for (size_t bit = 0; bit < (frames[0].size() - 1) * 8; ++bit) {
    std::vector<uint8_t> stream = frames[0];
    stream[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    Append(&stream, frames[1]);
    StreamDecoder decoder;
    CapturingSink sink;
    decoder.Push(stream.data(), stream.size(), &sink);
    ASSERT_EQ(LossSteps(sink), (std::vector<uint32_t>{2})) << "bit " << bit;
    // A flip that creates a 0x00 splits the frame into two bad pieces.
    EXPECT_GE(decoder.counters().frames_bad, 1u) << "bit " << bit;
    EXPECT_LE(decoder.counters().frames_bad, 2u) << "bit " << bit;
  }
}

TEST(StreamDecoder, CorruptedPayloadIsCountedAsCrcError) {
  // Header 18 01 01 01 and a 0x55 payload hold no zero, so stuffed byte 5 is payload byte 1.
  FrameEncoder encoder(0x0101);
  const std::vector<uint8_t> payload(12, 0x55);
  std::vector<uint8_t> frame(64);
  frame.resize(encoder.EncodeRaw(MessageType::kLoss, kFlagLossy, payload.data(), payload.size(),
                                 frame.data(), frame.size()));
  ASSERT_EQ(frame[5], 0x55);
  frame[5] ^= 0x01;
  StreamDecoder decoder;
  decoder.Push(frame.data(), frame.size(), nullptr);
  EXPECT_EQ(decoder.counters().bad_crc, 1u);
  EXPECT_EQ(decoder.counters().frames_ok, 0u);
}

TEST(StreamDecoder, TruncatedFrameIsDroppedAndTheNextOneDecodes) {
  FrameEncoder encoder;
  const auto frames = LossFrames(&encoder, 1, 2);
  for (size_t keep = 1; keep + 1 < frames[0].size(); ++keep) {
    std::vector<uint8_t> stream(frames[0].begin(), frames[0].begin() + keep);
    stream.push_back(0);  // the sender restarted mid-frame and sent a delimiter
    Append(&stream, frames[1]);
    StreamDecoder decoder;
    CapturingSink sink;
    decoder.Push(stream.data(), stream.size(), &sink);
    ASSERT_EQ(LossSteps(sink), (std::vector<uint32_t>{2})) << "kept " << keep;
    EXPECT_EQ(decoder.counters().frames_bad, 1u);
  }
}

TEST(StreamDecoder, OversizeFrameIsCountedAndSkippedUntilTheNextDelimiter) {
  FrameEncoder encoder;
  const auto frames = LossFrames(&encoder, 1, 2);
  std::vector<uint8_t> stream = frames[0];
  Append(&stream, NonZeroGarbage(3 * kMaxWireFrameBytes, 5));
  stream.push_back(0);
  Append(&stream, frames[1]);

  StreamDecoder decoder;
  CapturingSink sink;
  for (size_t at = 0; at < stream.size(); at += 100) {
    decoder.Push(stream.data() + at, std::min<size_t>(100, stream.size() - at), &sink);
  }
  EXPECT_EQ(LossSteps(sink), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(decoder.counters().bad_length, 1u);
  EXPECT_EQ(decoder.counters().frames_bad, 1u);
}

TEST(StreamDecoder, SmallDecoderRejectsFramesLargerThanItsBuffer) {
  FrameEncoder encoder;
  LogMessage log;
  log.text.Assign(std::string(150, 'x').c_str());
  std::vector<uint8_t> stream = EncodeFrame(log, &encoder);
  Append(&stream, EncodeFrame(BasicCommand{MessageType::kPause, 9}, &encoder));

  BasicStreamDecoder<64> decoder;
  CapturingSink sink;
  decoder.Push(stream.data(), stream.size(), &sink);
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0].type, MessageType::kPause);
  EXPECT_EQ(decoder.counters().bad_length, 1u);
}

TEST(StreamDecoder, FramesShorterThanHeaderAndCrcAreBadLength) {
  const uint8_t tiny[] = {0x03, 0x11, 0x22, 0x00};  // decodes to 2 bytes
  StreamDecoder decoder;
  decoder.Push(tiny, sizeof tiny, nullptr);
  EXPECT_EQ(decoder.counters().bad_length, 1u);
}

TEST(StreamDecoder, RepeatedDelimitersAreIdleFiller) {
  const std::vector<uint8_t> zeros(100, 0);
  StreamDecoder decoder;
  decoder.Push(zeros.data(), zeros.size(), nullptr);
  EXPECT_EQ(decoder.counters().frames_bad, 0u);
  EXPECT_EQ(decoder.counters().frames_ok, 0u);
  EXPECT_EQ(decoder.counters().bytes, 100u);
}

TEST(StreamDecoder, SequenceGapsAreCountedAsDroppedFrames) {
  FrameEncoder encoder(65533);  // the gap spans the wrap from 65535 to 0
  const auto frames = LossFrames(&encoder, 1, 8);
  std::vector<uint8_t> stream;
  for (size_t i : {0, 1, 4, 5, 7}) Append(&stream, frames[i]);  // 2, 3 and 6 lost
  StreamDecoder decoder;
  CapturingSink sink;
  decoder.Push(stream.data(), stream.size(), &sink);
  EXPECT_EQ(LossSteps(sink), (std::vector<uint32_t>{1, 2, 5, 6, 8}));
  EXPECT_EQ(decoder.counters().frames_dropped, 3u);
  EXPECT_EQ(decoder.counters().sequence_restarts, 0u);
}

TEST(StreamDecoder, HelloStartsANewSequenceWithoutCountingLosses) {
  FrameEncoder before(1000);
  FrameEncoder after_reboot(0);
  std::vector<uint8_t> stream;
  for (const auto& f : LossFrames(&before, 1, 3)) Append(&stream, f);
  Append(&stream, EncodeFrame(HelloMessage{}, &after_reboot));
  for (const auto& f : LossFrames(&after_reboot, 1, 3)) Append(&stream, f);
  StreamDecoder decoder;
  decoder.Push(stream.data(), stream.size(), nullptr);
  EXPECT_EQ(decoder.counters().frames_ok, 7u);
  EXPECT_EQ(decoder.counters().frames_dropped, 0u);
  EXPECT_EQ(decoder.counters().sequence_restarts, 0u);
}

TEST(StreamDecoder, BackwardSequenceWithoutHelloIsARestartNotALoss) {
  FrameEncoder first(500);
  FrameEncoder second(10);
  std::vector<uint8_t> stream;
  for (const auto& f : LossFrames(&first, 1, 2)) Append(&stream, f);
  for (const auto& f : LossFrames(&second, 3, 2)) Append(&stream, f);
  StreamDecoder decoder;
  decoder.Push(stream.data(), stream.size(), nullptr);
  EXPECT_EQ(decoder.counters().frames_dropped, 0u);
  EXPECT_EQ(decoder.counters().sequence_restarts, 1u);
}

TEST(StreamDecoder, UnknownMessageTypesAreSkippedAndCounted) {
  FrameEncoder encoder;
  std::vector<uint8_t> stream = EncodeFrame(Loss(1), &encoder);
  std::vector<uint8_t> unknown(64);
  const uint8_t payload[] = {1, 2, 3};
  unknown.resize(encoder.EncodeRaw(static_cast<MessageType>(0x7E), 0, payload, sizeof payload,
                                   unknown.data(), unknown.size()));
  Append(&stream, unknown);
  Append(&stream, EncodeFrame(Loss(2), &encoder));

  StreamDecoder decoder;
  CapturingSink sink;
  decoder.Push(stream.data(), stream.size(), &sink);
  EXPECT_EQ(LossSteps(sink), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(decoder.counters().unknown_types, 1u);
  EXPECT_EQ(decoder.counters().frames_ok, 3u);
  EXPECT_EQ(decoder.counters().frames_dropped, 0u);  // its sequence number was seen
}

TEST(StreamDecoder, UnknownTypesCanBeDeliveredOnRequest) {
  FrameEncoder encoder;
  std::vector<uint8_t> stream(64);
  const uint8_t payload[] = {7};
  stream.resize(encoder.EncodeRaw(static_cast<MessageType>(0x66), 0, payload, sizeof payload,
                                  stream.data(), stream.size()));
  StreamDecoder decoder;
  decoder.set_deliver_unknown_types(true);
  CapturingSink sink;
  decoder.Push(stream.data(), stream.size(), &sink);
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(static_cast<uint8_t>(sink.frames[0].type), 0x66);
  EXPECT_EQ(decoder.counters().unknown_types, 1u);
}

TEST(StreamDecoder, ResetStreamForgetsAPartialFrame) {
  FrameEncoder encoder;
  const std::vector<uint8_t> frame = EncodeFrame(Loss(1), &encoder);
  StreamDecoder decoder;
  CapturingSink sink;
  decoder.Push(frame.data(), 5, &sink);
  EXPECT_EQ(decoder.pending_bytes(), 5u);
  decoder.ResetStream();
  EXPECT_EQ(decoder.pending_bytes(), 0u);
  decoder.Push(frame.data(), frame.size(), &sink);
  EXPECT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(decoder.counters().frames_bad, 0u);
}

}  // namespace
}  // namespace trainscope::wire
