// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "serial/protocol/byte_io.h"
#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/message.h"
#include "serial/protocol/payload_codec.h"
#include "serial/protocol/stream_decoder.h"
#include "tests/serial/frame_test_util.h"
#include "tests/serial/sample_messages.h"

namespace trainscope::wire {
namespace {

using testing::CapturingSink;
using testing::Describe;
using testing::OneOfEachMessage;
using testing::SameMessage;

std::vector<uint8_t> PayloadOf(const Message& message) {
  std::vector<uint8_t> payload(kMaxPayloadBytes);
  ByteWriter writer(payload.data(), payload.size());
  const bool ok =
      std::visit([&](const auto& value) { return EncodePayload(value, &writer); }, message);
  EXPECT_TRUE(ok);
  payload.resize(writer.size());
  return payload;
}

DecodeStatus DecodeBytes(MessageType type, const std::vector<uint8_t>& payload, Message* out) {
  FrameView view;
  view.type = type;
  view.payload = payload.data();
  view.payload_size = payload.size();
  return DecodeMessage(view, out);
}

TEST(MessageRoundTrip, SamplesCoverEveryMessageTypeAndVariantAlternative) {
  std::set<MessageType> types;
  std::set<size_t> alternatives;
  for (const Message& m : OneOfEachMessage()) {
    types.insert(MessageTypeOf(m));
    alternatives.insert(m.index());
  }
  size_t known_types = 0;
  for (int raw = 0; raw < 256; ++raw) known_types += IsKnownMessageType(static_cast<uint8_t>(raw));
  EXPECT_EQ(types.size(), known_types);
  EXPECT_EQ(alternatives.size(), std::variant_size_v<Message>);
}

TEST(MessageRoundTrip, EveryMessageSurvivesEncodeFrameDecode) {
  FrameEncoder encoder(65530);  // also crosses the sequence wrap
  std::vector<uint8_t> stream;
  const std::vector<Message> sent = OneOfEachMessage();
  for (const Message& m : sent) testing::Append(&stream, testing::EncodeFrame(m, &encoder));

  StreamDecoder decoder;
  CapturingSink sink;
  decoder.Push(stream.data(), stream.size(), &sink);
  EXPECT_EQ(decoder.counters().frames_ok, sent.size());
  EXPECT_EQ(decoder.counters().frames_bad, 0u);
  EXPECT_EQ(decoder.counters().frames_dropped, 0u);
  EXPECT_EQ(decoder.pending_bytes(), 0u);

  const std::vector<Message> received = sink.Messages();
  ASSERT_EQ(received.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_TRUE(SameMessage(sent[i], received[i])) << Describe(sent[i]);
    EXPECT_EQ(sink.frames[i].flags, DefaultFlags(MessageTypeOf(sent[i]))) << Describe(sent[i]);
    EXPECT_EQ(sink.frames[i].sequence, static_cast<uint16_t>(65530 + i));
  }
}

TEST(MessageRoundTrip, AFrameHasTheDocumentedBytes) {
  // PING with command id 0x1234 as the first frame: header 40 00 00 00, payload 34 12, CRC-32
  // 0xF6092970 (computed independently with zlib), then COBS and the delimiter.
  FrameEncoder encoder;
  uint8_t out[32];
  const size_t n = encoder.Encode(BasicCommand{MessageType::kPing, 0x1234}, out, sizeof out);
  const std::vector<uint8_t> expected = {0x02, 0x40, 0x01, 0x01, 0x07, 0x34,
                                         0x12, 0x70, 0x29, 0x09, 0xF6, 0x00};
  EXPECT_EQ(std::vector<uint8_t>(out, out + n), expected);
  EXPECT_EQ(encoder.next_sequence(), 1);
}

TEST(MessageRoundTrip, LargestPayloadsMatchTheSizeTable) {
  // Fill every variable part to its cap; fixed-size messages are already at their size.
  for (Message m : OneOfEachMessage()) {
    if (auto* hello = std::get_if<HelloMessage>(&m)) {
      hello->agent_name.Assign(std::string(kMaxAgentNameBytes, 'a').c_str());
    } else if (auto* announce = std::get_if<ModelAnnounceMessage>(&m)) {
      announce->op_count = 1000;
      announce->entry_count = kMaxOpsPerAnnounce;
    } else if (auto* name = std::get_if<InternNameMessage>(&m)) {
      name->name.Assign(std::string(kMaxInternedNameBytes, 'n').c_str());
    } else if (auto* log = std::get_if<LogMessage>(&m)) {
      log->text.Assign(std::string(kMaxLogTextBytes, 't').c_str());
    } else if (auto* state = std::get_if<RunStateMessage>(&m)) {
      state->transition = 7;  // the appended fields are written only when the board numbers them
      state->activity = BoardActivity::kFinished;
    }
    EXPECT_EQ(PayloadOf(m).size(), MaxPayloadSize(MessageTypeOf(m))) << Describe(m);
  }
}

// Except MODEL_ANNOUNCE cut inside or right before its appended training setup: that reads as
// an older board's announcement (AnnounceCarriesTheTrainingSetupAndAnOlderBoardsHasNone).
TEST(MessageRoundTrip, EveryShorterPayloadIsReportedTruncated) {
  for (const Message& m : OneOfEachMessage()) {
    const std::vector<uint8_t> payload = PayloadOf(m);
    for (size_t cut = 0; cut < payload.size(); ++cut) {
      if (const auto* announce = std::get_if<ModelAnnounceMessage>(&m);
          announce != nullptr && announce->optimizer != kOptimizerUnknown &&
          cut >= payload.size() - 5) {
        continue;
      }
      const std::vector<uint8_t> prefix(payload.begin(), payload.begin() + cut);
      Message decoded;
      EXPECT_EQ(DecodeBytes(MessageTypeOf(m), prefix, &decoded), DecodeStatus::kTruncated)
          << Describe(m) << " cut at " << cut;
    }
  }
}

TEST(MessageRoundTrip, RunStateCarriesTheBoardsActivityAndAnOlderBoardsSaysNone) {
  RunStateMessage state;
  state.transition = 9;
  state.activity = BoardActivity::kFinished;
  state.optimizer_step = 600;
  std::vector<uint8_t> payload = PayloadOf(state);
  ASSERT_EQ(payload.size(), 27u);
  EXPECT_EQ(payload[26], 2);
  Message decoded;
  ASSERT_EQ(DecodeBytes(MessageType::kRunState, payload, &decoded), DecodeStatus::kOk);
  EXPECT_TRUE(std::get<RunStateMessage>(decoded) == state);
  payload.pop_back();  // a board from before the activity field
  ASSERT_EQ(DecodeBytes(MessageType::kRunState, payload, &decoded), DecodeStatus::kOk);
  EXPECT_EQ(std::get<RunStateMessage>(decoded).activity, BoardActivity::kUnknown);
  EXPECT_EQ(std::get<RunStateMessage>(decoded).transition, 9u);
  payload.push_back(kBoardActivityCount);
  EXPECT_EQ(DecodeBytes(MessageType::kRunState, payload, &decoded), DecodeStatus::kInvalidValue);
  // A transition of 0 is "not numbered": what follows it is not an activity (the fuzzer's case).
  payload[22] = payload[23] = payload[24] = payload[25] = 0;
  payload[26] = 2;
  ASSERT_EQ(DecodeBytes(MessageType::kRunState, payload, &decoded), DecodeStatus::kOk);
  EXPECT_EQ(std::get<RunStateMessage>(decoded).activity, BoardActivity::kUnknown);
}

TEST(MessageRoundTrip, DeviceMemoryHasTheDocumentedBytesAndRefusesAnUnknownSource) {
  DeviceMemoryMessage memory{0x01020304, 5, 6, 7, 8, 9, 10, 11, MemorySource::kAccounted};
  std::vector<uint8_t> payload = PayloadOf(memory);
  ASSERT_EQ(payload.size(), 33u);
  EXPECT_EQ(payload[0], 0x04);  // little-endian heap_peak_bytes first
  EXPECT_EQ(payload[3], 0x01);
  EXPECT_EQ(payload[4], 5);    // stack_peak_bytes
  EXPECT_EQ(payload[28], 11);  // agent_bytes
  EXPECT_EQ(payload[32], 1);   // source: accounted
  EXPECT_EQ(DeviceMemoryTotal(memory), 0x01020304u + 5u + 6u);
  payload[32] = kMemorySourceCount;
  Message decoded;
  EXPECT_EQ(DecodeBytes(MessageType::kDeviceMemory, payload, &decoded),
            DecodeStatus::kInvalidValue);
  memory.heap_peak_bytes = UINT32_MAX;
  EXPECT_EQ(DeviceMemoryTotal(memory), UINT32_MAX);  // saturates rather than wraps
}

TEST(MessageRoundTrip, AnnounceCarriesTheTrainingSetupAndAnOlderBoardsHasNone) {
  ModelAnnounceMessage announce;
  announce.model_hash = 9;
  announce.op_count = 1;
  announce.entry_count = 1;
  announce.ops[0].opcode = 9;
  announce.optimizer = 1;  // Adam
  announce.batch_size = 4;
  std::vector<uint8_t> payload = PayloadOf(announce);
  Message decoded;
  ASSERT_EQ(DecodeBytes(MessageType::kModelAnnounce, payload, &decoded), DecodeStatus::kOk);
  EXPECT_EQ(std::get<ModelAnnounceMessage>(decoded).optimizer, 1u);
  EXPECT_EQ(std::get<ModelAnnounceMessage>(decoded).batch_size, 4u);
  payload.resize(payload.size() - 5);  // as boards before the setup field send it
  announce.optimizer = kOptimizerUnknown;
  announce.batch_size = 0;
  EXPECT_EQ(PayloadOf(announce), payload) << "an unknown setup is written the older way";
  ASSERT_EQ(DecodeBytes(MessageType::kModelAnnounce, payload, &decoded), DecodeStatus::kOk);
  EXPECT_EQ(std::get<ModelAnnounceMessage>(decoded).optimizer, kOptimizerUnknown);
  EXPECT_EQ(std::get<ModelAnnounceMessage>(decoded).batch_size, 0u);
  EXPECT_EQ(std::get<ModelAnnounceMessage>(decoded).ops[0].opcode, 9);
}

TEST(MessageRoundTrip, TrailingBytesFromANewerVersionAreIgnored) {
  for (const Message& m : OneOfEachMessage()) {
    std::vector<uint8_t> payload = PayloadOf(m);
    payload.insert(payload.end(), {0xAA, 0xBB, 0xCC});
    Message decoded;
    ASSERT_EQ(DecodeBytes(MessageTypeOf(m), payload, &decoded), DecodeStatus::kOk) << Describe(m);
    EXPECT_TRUE(SameMessage(m, decoded)) << Describe(m);
  }
}

TEST(MessageRoundTrip, OutOfRangeFieldsAreRejected) {
  Message decoded;
  std::vector<uint8_t> memory = PayloadOf(MemoryEvent{});
  memory[4] = 3;  // phase
  EXPECT_EQ(DecodeBytes(MessageType::kMemory, memory, &decoded), DecodeStatus::kInvalidValue);
  memory = PayloadOf(MemoryEvent{});
  memory[13] = kMemoryCategoryCount;  // category
  EXPECT_EQ(DecodeBytes(MessageType::kMemory, memory, &decoded), DecodeStatus::kInvalidValue);

  std::vector<uint8_t> backward = PayloadOf(BackwardStepEvent{});
  backward[13] = kTrainRankCount;  // rank
  EXPECT_EQ(DecodeBytes(MessageType::kBackwardStep, backward, &decoded),
            DecodeStatus::kInvalidValue);

  std::vector<uint8_t> hello = PayloadOf(HelloMessage{});
  hello[0] ^= 0xFF;  // magic
  EXPECT_EQ(DecodeBytes(MessageType::kHello, hello, &decoded), DecodeStatus::kInvalidValue);

  LogMessage log;
  log.text.Assign("abc");
  std::vector<uint8_t> log_bytes = PayloadOf(log);
  log_bytes[1] = kMaxLogTextBytes + 1;  // a length over the cap, whatever follows
  log_bytes.resize(2 + kMaxLogTextBytes + 1, 'x');
  EXPECT_EQ(DecodeBytes(MessageType::kLog, log_bytes, &decoded), DecodeStatus::kInvalidValue);

  ModelAnnounceMessage announce;
  announce.op_count = 10;
  announce.first_op = 8;
  announce.entry_count = 2;
  std::vector<uint8_t> announce_bytes = PayloadOf(announce);
  EXPECT_EQ(DecodeBytes(MessageType::kModelAnnounce, announce_bytes, &decoded), DecodeStatus::kOk);
  announce_bytes[16] = 9;  // first_op 9 + 2 entries > 10 ops
  EXPECT_EQ(DecodeBytes(MessageType::kModelAnnounce, announce_bytes, &decoded),
            DecodeStatus::kInvalidValue);

  std::vector<uint8_t> trainability = PayloadOf(SetTrainabilityCommand{});
  trainability[2] = kTrainabilityModeCount;
  EXPECT_EQ(DecodeBytes(MessageType::kSetTrainability, trainability, &decoded),
            DecodeStatus::kInvalidValue);
  std::vector<uint8_t> breakpoint = PayloadOf(SetBreakpointCommand{});
  breakpoint[2] = kBreakpointKindCount;
  EXPECT_EQ(DecodeBytes(MessageType::kSetBreakpoint, breakpoint, &decoded),
            DecodeStatus::kInvalidValue);
}

TEST(MessageRoundTrip, EncoderRefusesBuffersThatAreTooSmallWithoutAdvancingTheSequence) {
  FrameEncoder encoder(5);
  GradientStatsEvent stats;
  uint8_t out[wire::WireFrameSize(96)];
  EXPECT_EQ(encoder.Encode(stats, out, 40), 0u);
  EXPECT_EQ(encoder.next_sequence(), 5);
  EXPECT_GT(encoder.Encode(stats, out, sizeof out), 0u);
  EXPECT_EQ(encoder.next_sequence(), 6);
  const std::vector<uint8_t> too_big(kMaxPayloadBytes + 1, 1);
  std::vector<uint8_t> big_out(2 * kMaxWireFrameBytes);
  EXPECT_EQ(encoder.EncodeRaw(MessageType::kLog, 0, too_big.data(), too_big.size(), big_out.data(),
                              big_out.size()),
            0u);
  EXPECT_GT(encoder.EncodeRaw(MessageType::kLog, 0, too_big.data(), kMaxPayloadBytes,
                              big_out.data(), big_out.size()),
            0u);
}

TEST(MessageRoundTrip, MaximumPayloadFrameFitsTheDocumentedWireMaximum) {
  FrameEncoder encoder;
  std::vector<uint8_t> payload(kMaxPayloadBytes, 0x5A);  // no zeros: worst case stuffing
  std::vector<uint8_t> out(kMaxWireFrameBytes);
  const size_t n = encoder.EncodeRaw(MessageType::kLog, 0, payload.data(), payload.size(),
                                     out.data(), out.size());
  ASSERT_GT(n, 0u);
  EXPECT_LE(n, kMaxWireFrameBytes);
  StreamDecoder decoder;
  CapturingSink sink;
  decoder.Push(out.data(), n, &sink);
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0].payload, payload);
}

}  // namespace
}  // namespace trainscope::wire
