// SPDX-License-Identifier: Apache-2.0
// LinkStream, the desktop end of a link shared by the GUI and `trainscope-cli attach`: the
// excused first candidate of a mid-stream join, command ids and delimiters, recording policies.
#include "serial/link/link_stream.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "serial/protocol/messages.h"
#include "tests/serial/frame_test_util.h"

namespace trainscope {
namespace {

using testing::Append;

class CountingHandler : public wire::LinkHandler {
 public:
  void OnHeartbeat(const wire::HeartbeatMessage& heartbeat) override {
    uptimes.push_back(heartbeat.uptime_ms);
  }
  void OnCommand(const wire::BasicCommand& command) override { commands.push_back(command); }
  std::vector<uint32_t> uptimes;
  std::vector<wire::BasicCommand> commands;
};

// Hands out queued chunks, one per Read; then nothing, or an error once `broken` is set.
class ScriptedTransport : public Transport {
 public:
  Status Open() override { return Status::Ok(); }
  void Close() override {}
  bool is_open() const override { return true; }
  Status Read(uint8_t* data, size_t capacity, int, size_t* received) override {
    *received = 0;
    if (chunks.empty()) {
      return broken ? Status::Error(StatusCode::kIoError, "peer closed") : Status::Ok();
    }
    const std::vector<uint8_t> chunk = chunks.front();
    chunks.pop_front();
    EXPECT_LE(chunk.size(), capacity);
    for (size_t i = 0; i < chunk.size(); ++i) data[i] = chunk[i];
    *received = chunk.size();
    return Status::Ok();
  }
  Status Write(const uint8_t* data, size_t size) override {
    written.insert(written.end(), data, data + size);
    return Status::Ok();
  }
  std::string Describe() const override { return "scripted"; }

  std::deque<std::vector<uint8_t>> chunks;
  std::vector<uint8_t> written;
  bool broken = false;
};

std::vector<uint8_t> Heartbeat(wire::FrameEncoder* encoder, uint32_t uptime_ms) {
  wire::HeartbeatMessage heartbeat;
  heartbeat.uptime_ms = uptime_ms;
  return testing::EncodeFrame(heartbeat, encoder);
}

// A frame whose CRC no longer matches: one payload-side byte changed, never to a delimiter.
std::vector<uint8_t> Corrupted(std::vector<uint8_t> frame) {
  const size_t middle = frame.size() / 2;
  frame[middle] = static_cast<uint8_t>(frame[middle] == 0x55 ? 0x56 : 0x55);
  return frame;
}

TEST(LinkStreamTest, ExcusesTheTornTailOfAFrameSentBeforeJoining) {
  CountingHandler handler;
  LinkStream stream(nullptr, &handler);
  wire::FrameEncoder board;
  const std::vector<uint8_t> before = Heartbeat(&board, 1);
  std::vector<uint8_t> bytes(before.begin() + 3, before.end());  // joined three bytes late
  Append(&bytes, Heartbeat(&board, 2));
  Append(&bytes, Heartbeat(&board, 3));

  stream.Decode(bytes.data(), bytes.size());

  EXPECT_EQ(stream.counters().frames_bad, 1u);  // the decoder saw the torn candidate ...
  EXPECT_EQ(stream.frames_bad(), 0u);           // ... and the link does not blame the line
  EXPECT_EQ(stream.counters().frames_ok, 2u);
  EXPECT_EQ(handler.uptimes, (std::vector<uint32_t>{2, 3}));
}

TEST(LinkStreamTest, CountsBadFramesAfterTheFirstDelimiter) {
  LinkStream stream(nullptr, nullptr);
  wire::FrameEncoder board;
  std::vector<uint8_t> bytes = Heartbeat(&board, 1);
  Append(&bytes, Corrupted(Heartbeat(&board, 2)));
  // Split mid-frame: the excuse is about the first candidate, not the first read.
  stream.Decode(bytes.data(), 5);
  stream.Decode(bytes.data() + 5, bytes.size() - 5);
  EXPECT_EQ(stream.counters().frames_ok, 1u);
  EXPECT_EQ(stream.frames_bad(), 1u);
}

TEST(LinkStreamTest, RestartExcusesTheNextConnectionsFirstCandidateAndKeepsCounters) {
  CountingHandler handler;
  LinkStream stream(nullptr, &handler);
  wire::FrameEncoder board;
  std::vector<uint8_t> first = Heartbeat(&board, 1);
  Append(&first, Corrupted(Heartbeat(&board, 2)));
  stream.Decode(first.data(), first.size());
  ASSERT_EQ(stream.frames_bad(), 1u);

  stream.Restart();
  const std::vector<uint8_t> torn = Heartbeat(&board, 3);
  std::vector<uint8_t> second(torn.begin() + 2, torn.end());
  Append(&second, Heartbeat(&board, 4));
  stream.Decode(second.data(), second.size());

  EXPECT_EQ(stream.counters().frames_bad, 2u);  // the corrupted frame and the torn one
  EXPECT_EQ(stream.frames_bad(), 1u);
  EXPECT_EQ(stream.counters().frames_ok, 2u);
  EXPECT_EQ(handler.uptimes, (std::vector<uint32_t>{1, 4}));
}

TEST(LinkStreamTest, LastFrameTimeMovesOnlyWithGoodFrames) {
  LinkStream stream(nullptr, nullptr);
  const LinkStream::Clock::time_point start = stream.last_frame_time();
  wire::FrameEncoder board;
  std::vector<uint8_t> bytes = Heartbeat(&board, 1);
  stream.Decode(bytes.data(), bytes.size());
  const LinkStream::Clock::time_point after_good = stream.last_frame_time();
  EXPECT_GT(after_good, start);

  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const std::vector<uint8_t> bad = Corrupted(Heartbeat(&board, 2));
  stream.Decode(bad.data(), bad.size());
  EXPECT_EQ(stream.last_frame_time(), after_good);
}

uint16_t NextId(uint16_t id) {
  return id == 0xFFFF ? 1 : static_cast<uint16_t>(id + 1);
}

TEST(LinkStreamTest, CommandsGetIncreasingIdsAndOneLeadingDelimiterPerConnection) {
  LinkStream stream(nullptr, nullptr);
  uint8_t out[LinkStream::kMaxCommandBytes];
  uint16_t id = 0;
  std::vector<uint8_t> wire_bytes;

  size_t n = stream.EncodeCommand(wire::BasicCommand{wire::MessageType::kPause, 0}, out, &id);
  ASSERT_GT(n, 1u);
  EXPECT_EQ(out[0], 0);  // ends any noise before our first frame
  ASSERT_NE(id, 0);
  const uint16_t first = id;
  wire_bytes.insert(wire_bytes.end(), out, out + n);

  n = stream.EncodeCommand(wire::BasicCommand{wire::MessageType::kResume, 0}, out, &id);
  ASSERT_GT(n, 0u);
  EXPECT_NE(out[0], 0);
  EXPECT_EQ(id, NextId(first));
  wire_bytes.insert(wire_bytes.end(), out, out + n);

  stream.Restart();
  n = stream.EncodeCommand(wire::BasicCommand{wire::MessageType::kRequestHello, 0}, out, &id);
  ASSERT_GT(n, 0u);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(id, NextId(NextId(first)));  // ids continue: late ACKs of the old link stay clear
  wire_bytes.insert(wire_bytes.end(), out, out + n);

  // What the board decodes.
  CountingHandler board;
  wire::MessageRouter router(nullptr, &board);
  wire::StreamDecoder decoder;
  decoder.Push(wire_bytes.data(), wire_bytes.size(), &router);
  ASSERT_EQ(board.commands.size(), 3u);
  EXPECT_EQ(board.commands[0].type, wire::MessageType::kPause);
  EXPECT_EQ(board.commands[0].command_id, first);
  EXPECT_EQ(board.commands[1].type, wire::MessageType::kResume);
  EXPECT_EQ(board.commands[1].command_id, NextId(first));
  EXPECT_EQ(board.commands[2].type, wire::MessageType::kRequestHello);
  EXPECT_EQ(board.commands[2].command_id, NextId(NextId(first)));
  EXPECT_EQ(decoder.counters().frames_bad, 0u);
}

TEST(LinkStreamTest, CommandIdsSkipZeroWhenTheyWrap) {
  LinkStream stream(nullptr, nullptr);
  uint8_t out[LinkStream::kMaxCommandBytes];
  uint16_t id = 0;
  ASSERT_GT(stream.EncodeCommand(wire::BasicCommand{wire::MessageType::kPing, 0}, out, &id), 0u);
  const uint16_t first = id;
  std::vector<bool> seen(0x10000, false);
  seen[id] = true;
  for (uint32_t i = 1; i < 0xFFFF; ++i) {
    const uint16_t previous = id;
    ASSERT_GT(stream.EncodeCommand(wire::BasicCommand{wire::MessageType::kPing, 0}, out, &id), 0u);
    ASSERT_EQ(id, NextId(previous));
    ASSERT_FALSE(seen[id]);
    seen[id] = true;
  }
  EXPECT_FALSE(seen[0]);  // every id but 0 once, then the first again
  ASSERT_GT(stream.EncodeCommand(wire::BasicCommand{wire::MessageType::kPing, 0}, out, &id), 0u);
  EXPECT_EQ(id, first);
}

TEST(LinkStreamTest, TwoStreamsStartFromDifferentIds) {
  // A board remembers the last desktop's ids to spot repeats; a new desktop must not reuse them.
  // Two random starts collide with probability 1/65535 per pair: ten pairs all equal cannot
  // happen by chance.
  int same = 0;
  for (int i = 0; i < 10; ++i) {
    LinkStream a(nullptr, nullptr);
    LinkStream b(nullptr, nullptr);
    uint8_t out[LinkStream::kMaxCommandBytes];
    uint16_t id_a = 0;
    uint16_t id_b = 0;
    a.EncodeCommand(wire::BasicCommand{wire::MessageType::kPing, 0}, out, &id_a);
    b.EncodeCommand(wire::BasicCommand{wire::MessageType::kPing, 0}, out, &id_b);
    same += id_a == id_b ? 1 : 0;
  }
  EXPECT_LT(same, 10);
}

class LinkStreamPumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    wire::FrameEncoder board;
    frames_ = Heartbeat(&board, 7);
    Append(&frames_, Heartbeat(&board, 8));
    link_.chunks.push_back(frames_);
  }
  std::vector<uint8_t> frames_;
  ScriptedTransport link_;
  CountingHandler handler_;
};

TEST_F(LinkStreamPumpTest, RecordsExactlyTheBytesItDecodes) {
  const std::string path = ::testing::TempDir() + "link_stream_test.tstrace";
  TraceWriter writer;
  ASSERT_TRUE(writer.Create(path, 0).ok());
  LinkStream stream(nullptr, &handler_);
  ASSERT_TRUE(stream.Pump(&link_, 0, &writer, LinkStream::RecordingFailure::kEndPump).ok());
  ASSERT_TRUE(stream.Pump(&link_, 0, &writer, LinkStream::RecordingFailure::kEndPump).ok());
  writer.Close();

  EXPECT_EQ(handler_.uptimes, (std::vector<uint32_t>{7, 8}));
  EXPECT_EQ(stream.counters().bytes, frames_.size());
  std::FILE* file = std::fopen(path.c_str(), "rb");
  ASSERT_NE(file, nullptr);
  std::vector<uint8_t> content(kTraceHeaderBytes + frames_.size() + 1);
  const size_t read = std::fread(content.data(), 1, content.size(), file);
  std::fclose(file);
  std::remove(path.c_str());
  ASSERT_EQ(read, kTraceHeaderBytes + frames_.size());
  EXPECT_EQ(std::vector<uint8_t>(content.begin() + kTraceHeaderBytes, content.begin() + read),
            frames_);
  EXPECT_FALSE(stream.recording_failed());
}

TEST_F(LinkStreamPumpTest, EndPumpReturnsTheRecordingErrorWithoutDecoding) {
  TraceWriter never_opened;  // every Append fails
  LinkStream stream(nullptr, &handler_);
  const Status status =
      stream.Pump(&link_, 0, &never_opened, LinkStream::RecordingFailure::kEndPump);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(std::string(status.message()).rfind("recording", 0), 0u) << status.message();
  EXPECT_TRUE(stream.recording_failed());
  EXPECT_FALSE(stream.recording_error().empty());
  EXPECT_TRUE(handler_.uptimes.empty());
  EXPECT_EQ(stream.counters().bytes, 0u);
}

TEST_F(LinkStreamPumpTest, KeepDecodingStopsRecordingButNotTheLink) {
  TraceWriter never_opened;
  LinkStream stream(nullptr, &handler_);
  ASSERT_TRUE(
      stream.Pump(&link_, 0, &never_opened, LinkStream::RecordingFailure::kKeepDecoding).ok());
  EXPECT_TRUE(stream.recording_failed());
  EXPECT_NE(stream.recording_error().find("not open"), std::string::npos)
      << stream.recording_error();
  EXPECT_EQ(handler_.uptimes, (std::vector<uint32_t>{7, 8}));

  wire::FrameEncoder board;
  board.set_next_sequence(2);
  link_.chunks.push_back(Heartbeat(&board, 9));
  // Even kEndPump no longer fails: the recording stopped for good and is not retried.
  ASSERT_TRUE(stream.Pump(&link_, 0, &never_opened, LinkStream::RecordingFailure::kEndPump).ok());
  EXPECT_EQ(handler_.uptimes, (std::vector<uint32_t>{7, 8, 9}));
  EXPECT_EQ(stream.counters().frames_dropped, 0u);
}

TEST_F(LinkStreamPumpTest, ReturnsTheLinksErrorAndReadsNothingWhenSilent) {
  LinkStream stream(nullptr, &handler_);
  link_.chunks.clear();
  ASSERT_TRUE(stream.Pump(&link_, 0, nullptr, LinkStream::RecordingFailure::kEndPump).ok());
  EXPECT_EQ(stream.counters().bytes, 0u);
  link_.broken = true;
  const Status status = stream.Pump(&link_, 0, nullptr, LinkStream::RecordingFailure::kEndPump);
  EXPECT_FALSE(status.ok());
  EXPECT_FALSE(stream.recording_failed());
}

}  // namespace
}  // namespace trainscope
