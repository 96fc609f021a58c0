// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/message.h"
#include "serial/trace/trace_file.h"
#include "tests/serial/frame_test_util.h"
#include "tests/serial/sample_messages.h"

namespace trainscope {
namespace {

using testing::CapturingSink;

std::string TempPath(const std::string& name) {
  const std::string path = ::testing::TempDir() + "/trainscope_" + name + ".tstrace";
  std::remove(path.c_str());
  return path;
}

// The sample messages as one wire stream.
std::vector<uint8_t> SampleStream(std::vector<wire::Message>* sent) {
  *sent = testing::OneOfEachMessage();
  wire::FrameEncoder encoder;
  std::vector<uint8_t> stream;
  for (const wire::Message& m : *sent) testing::Append(&stream, testing::EncodeFrame(m, &encoder));
  return stream;
}

void ExpectSameMessages(const std::vector<wire::Message>& sent, const CapturingSink& sink) {
  const std::vector<wire::Message> got = sink.Messages();
  ASSERT_EQ(got.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_TRUE(testing::SameMessage(sent[i], got[i])) << testing::Describe(sent[i]);
  }
}

std::vector<uint8_t> FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

TEST(TraceFile, RecordedStreamReplaysToTheSameMessages) {
  std::vector<wire::Message> sent;
  const std::vector<uint8_t> stream = SampleStream(&sent);
  const std::string path = TempPath("roundtrip");
  TraceWriter writer;
  ASSERT_TRUE(writer.Create(path, 0x1122334455667788ull).ok());
  std::mt19937 rng(3);
  for (size_t at = 0; at < stream.size();) {  // chunks as a transport delivers them
    const size_t n = std::min<size_t>(1 + rng() % 50, stream.size() - at);
    ASSERT_TRUE(writer.Append(stream.data() + at, n).ok());
    at += n;
  }
  EXPECT_EQ(writer.stream_bytes(), stream.size());
  writer.Close();

  const std::vector<uint8_t> file = FileBytes(path);
  ASSERT_EQ(file.size(), kTraceHeaderBytes + stream.size());
  EXPECT_EQ(std::string(file.begin(), file.begin() + 8), "TSTRACE1");
  EXPECT_TRUE(std::equal(stream.begin(), stream.end(), file.begin() + kTraceHeaderBytes));

  CapturingSink sink;
  TraceReplay replay;
  const Status status = ReplayTrace(path, &sink, &replay);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(replay.header.model_hash, 0x1122334455667788ull);
  EXPECT_EQ(replay.header.protocol_version, wire::kProtocolVersion);
  EXPECT_GT(replay.header.created_unix_ms, 1600000000000ull);
  EXPECT_EQ(replay.torn_tail_bytes, 0u);
  EXPECT_EQ(replay.counters.frames_bad, 0u);
  ExpectSameMessages(sent, sink);
}

TEST(TraceFile, ModelHashCanBeFilledInAfterRecordingStarted) {
  std::vector<wire::Message> sent;
  const std::vector<uint8_t> stream = SampleStream(&sent);
  const std::string path = TempPath("late_hash");
  TraceWriter writer;
  ASSERT_TRUE(writer.Create(path, 0).ok());
  ASSERT_TRUE(writer.Append(stream.data(), stream.size() / 2).ok());
  ASSERT_TRUE(writer.SetModelHash(0xCAFEF00Dull).ok());
  ASSERT_TRUE(
      writer.Append(stream.data() + stream.size() / 2, stream.size() - stream.size() / 2).ok());
  writer.Close();
  CapturingSink sink;
  TraceReplay replay;
  ASSERT_TRUE(ReplayTrace(path, &sink, &replay).ok());
  EXPECT_EQ(replay.header.model_hash, 0xCAFEF00Dull);
  ExpectSameMessages(sent, sink);  // the header update did not land in the stream
}

TEST(TraceFile, AppendedBytesAreReadableBeforeTheWriterCloses) {
  std::vector<wire::Message> sent;
  const std::vector<uint8_t> stream = SampleStream(&sent);
  const std::string path = TempPath("open_writer");
  TraceWriter writer;
  ASSERT_TRUE(writer.Create(path, 7).ok());
  ASSERT_TRUE(writer.Append(stream.data(), stream.size()).ok());
  // Still open: a second handle sees every byte.
  CapturingSink sink;
  TraceReplay replay;
  ASSERT_TRUE(ReplayTrace(path, &sink, &replay).ok());
  ExpectSameMessages(sent, sink);
  EXPECT_TRUE(writer.Sync().ok());
}

TEST(TraceFile, AKilledWriterLosesNothingItAppended) {
  std::vector<wire::Message> sent;
  const std::vector<uint8_t> stream = SampleStream(&sent);
  const std::string path = TempPath("killed_writer");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    TraceWriter writer;
    bool ok = writer.Create(path, 9).ok();
    for (size_t at = 0; ok && at < stream.size(); at += 17) {
      ok = writer.Append(stream.data() + at, std::min<size_t>(17, stream.size() - at)).ok();
    }
    const char done = ok ? 'y' : 'n';
    (void)!::write(ready[1], &done, 1);
    for (;;) ::pause();  // never closes: the parent kills it
  }
  char done = 0;
  ASSERT_EQ(::read(ready[0], &done, 1), 1);
  ::kill(child, SIGKILL);
  int wait_status = 0;
  ::waitpid(child, &wait_status, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_EQ(done, 'y');
  ASSERT_TRUE(WIFSIGNALED(wait_status));

  CapturingSink sink;
  TraceReplay replay;
  ASSERT_TRUE(ReplayTrace(path, &sink, &replay).ok());
  ExpectSameMessages(sent, sink);
  EXPECT_EQ(replay.torn_tail_bytes, 0u);
}

TEST(TraceFile, ATornLastFrameIsReportedNotFatal) {
  std::vector<wire::Message> sent;
  std::vector<uint8_t> stream = SampleStream(&sent);
  wire::FrameEncoder encoder(static_cast<uint16_t>(sent.size()));
  const std::vector<uint8_t> last = testing::EncodeFrame(LossEvent{9, 9, 9.0f}, &encoder);
  const size_t kept = last.size() / 2;
  stream.insert(stream.end(), last.begin(), last.begin() + static_cast<long>(kept));
  const std::string path = TempPath("torn");
  TraceWriter writer;
  ASSERT_TRUE(writer.Create(path, 1).ok());
  ASSERT_TRUE(writer.Append(stream.data(), stream.size()).ok());
  writer.Close();

  CapturingSink sink;
  TraceReplay replay;
  ASSERT_TRUE(ReplayTrace(path, &sink, &replay).ok());
  ExpectSameMessages(sent, sink);
  EXPECT_EQ(replay.torn_tail_bytes, kept);
  EXPECT_EQ(replay.counters.frames_bad, 0u);
}

TEST(TraceFile, ReaderFollowsAGrowingFileAcrossASplitFrame) {
  wire::FrameEncoder encoder;
  std::vector<uint8_t> stream;
  for (uint32_t i = 0; i < 4; ++i) {
    testing::Append(&stream, testing::EncodeFrame(LossEvent{i, 0, 1.0f}, &encoder));
  }
  const std::string path = TempPath("growing");
  TraceWriter writer;
  ASSERT_TRUE(writer.Create(path, 1).ok());
  const size_t split = stream.size() / 2 + 3;
  ASSERT_TRUE(writer.Append(stream.data(), split).ok());

  TraceReader reader;
  ASSERT_TRUE(reader.Open(path).ok());
  CapturingSink sink;
  size_t consumed = 0;
  ASSERT_TRUE(reader.Pump(&sink, SIZE_MAX, &consumed).ok());
  EXPECT_EQ(consumed, split);
  const size_t first_batch = sink.frames.size();
  EXPECT_LT(first_batch, 4u);

  ASSERT_TRUE(writer.Append(stream.data() + split, stream.size() - split).ok());
  ASSERT_TRUE(reader.Pump(&sink, SIZE_MAX, &consumed).ok());
  EXPECT_EQ(consumed, stream.size() - split);
  EXPECT_EQ(sink.frames.size(), 4u);
  EXPECT_EQ(reader.decoder().counters().frames_bad, 0u);
}

TEST(TraceFile, RejectsFilesThatAreNotTracesOrTooNew) {
  const std::string path = TempPath("bad_header");
  TraceReplay replay;
  WriteFile(path, {'n', 'o', 't', ' ', 'a', ' ', 't', 'r', 'a', 'c', 'e'});
  Status status = ReplayTrace(path, nullptr, &replay);
  EXPECT_EQ(status.code(), StatusCode::kInvalidFile);
  EXPECT_NE(std::string(status.message()).find("TSTRACE1"), std::string::npos);

  WriteFile(path, {'T', 'S', 'T', 'R', 'A', 'C', 'E', '1', 32, 0});
  status = ReplayTrace(path, nullptr, &replay);
  EXPECT_EQ(status.code(), StatusCode::kInvalidFile);
  EXPECT_NE(std::string(status.message()).find("cut short"), std::string::npos);

  TraceWriter writer;
  ASSERT_TRUE(writer.Create(path, 0).ok());
  writer.Close();
  std::vector<uint8_t> bytes = FileBytes(path);
  bytes[10] = static_cast<uint8_t>(wire::kProtocolVersion + 1);
  WriteFile(path, bytes);
  status = ReplayTrace(path, nullptr, &replay);
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(std::string(status.message()).find("update TrainScope"), std::string::npos);

  EXPECT_EQ(ReplayTrace(TempPath("missing"), nullptr, &replay).code(), StatusCode::kIoError);
}

TEST(TraceFile, ALongerHeaderFromANewerWriterIsSkipped) {
  std::vector<wire::Message> sent;
  const std::vector<uint8_t> stream = SampleStream(&sent);
  const std::string path = TempPath("long_header");
  TraceWriter writer;
  ASSERT_TRUE(writer.Create(path, 5).ok());
  writer.Close();
  std::vector<uint8_t> bytes = FileBytes(path);
  bytes[8] = 48;  // header grew by 16 bytes of fields this reader does not know
  bytes.insert(bytes.end(), 16, 0xEE);
  bytes.insert(bytes.end(), stream.begin(), stream.end());
  WriteFile(path, bytes);
  CapturingSink sink;
  TraceReplay replay;
  ASSERT_TRUE(ReplayTrace(path, &sink, &replay).ok());
  EXPECT_EQ(replay.header.model_hash, 5u);
  ExpectSameMessages(sent, sink);
  EXPECT_EQ(replay.counters.frames_bad, 0u);
}

}  // namespace
}  // namespace trainscope
