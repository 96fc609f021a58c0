// SPDX-License-Identifier: Apache-2.0
//
// The board simulator's parts: the simulated line (rate, faults, frame integrity) against a fake
// port, trainability changes against the demo model, and a trainability change sent over the
// protocol to a running simulator.
#include <gtest/gtest.h>

#include <QElapsedTimer>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app/board-sim/firmware_source.h"
#include "app/board-sim/simulated_line.h"
#include "engine/model/model.h"
#include "serial/board/trainability_change.h"
#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/message_router.h"
#include "serial/transport/tcp_transport.h"
#include "tests/cli/board_sim_process.h"

namespace trainscope {
namespace {

// Takes at most `per_call` bytes per write; while unplugged it swallows everything.
class FakePort final : public BoardPort {
 public:
  Status Open() override { return Status::Ok(); }
  std::string Address() const override { return "fake"; }
  Status Read(uint8_t*, size_t, int, size_t* received) override {
    *received = 0;
    return Status::Ok();
  }
  size_t WriteSome(const uint8_t* data, size_t size) override {
    if (unplugged) return size;
    const size_t n = std::min(size, per_call);
    wire.insert(wire.end(), data, data + n);
    return n;
  }
  void Unplug() override {
    unplugged = true;
    ++unplug_count;
  }
  bool TakeNewPeer() override { return false; }
  bool connected() const override { return !unplugged; }

  std::vector<uint8_t> wire;
  size_t per_call = SIZE_MAX;
  bool unplugged = false;
  int unplug_count = 0;
};

// `count` LOSS frames of varying sizes; `ends` gets the index of each frame's delimiter.
std::vector<uint8_t> EncodeFrames(size_t count, std::vector<size_t>* ends = nullptr) {
  wire::FrameEncoder encoder;
  std::vector<uint8_t> stream;
  uint8_t bytes[wire::kMaxWireFrameBytes];
  for (size_t i = 0; i < count; ++i) {
    const LossEvent event{static_cast<uint32_t>(i * 7919), static_cast<uint32_t>(i % 300),
                          static_cast<float>(i) * 0.37f};
    const size_t n = encoder.Encode(event, bytes, sizeof bytes);
    stream.insert(stream.end(), bytes, bytes + n);
    if (ends) ends->push_back(stream.size() - 1);
  }
  return stream;
}

// Feeds `stream` the way the agent's TX ring drains: chunks, retried when the line is busy.
void Feed(SimulatedLine* line, const std::vector<uint8_t>& stream, size_t chunk) {
  size_t offset = 0;
  int64_t now = 0;
  while (offset < stream.size()) {
    const size_t n =
        line->Write(stream.data() + offset, std::min(chunk, stream.size() - offset), now);
    offset += n;
    if (n == 0) line->Pump();
    now += 1000;
  }
  for (int i = 0; i < 100000 && !line->idle(); ++i) line->Pump();
}

wire::LinkCounters Decode(const std::vector<uint8_t>& bytes) {
  wire::StreamDecoder decoder;
  decoder.Push(bytes.data(), bytes.size(), nullptr);
  return decoder.counters();
}

TEST(SimulatedLine, ACleanLinePassesTheStreamUnchangedEvenThroughABusyPort) {
  const std::vector<uint8_t> stream = EncodeFrames(300);
  FakePort port;
  port.per_call = 7;  // a port that takes a few bytes at a time never tears a frame
  SimulatedLine line(&port, 0, LineFaults{});
  Feed(&line, stream, 13);
  EXPECT_EQ(port.wire, stream);
  EXPECT_EQ(line.stats().frames_sent, 300u);
}

TEST(SimulatedLine, DroppedFramesVanishWholeAndShowAsSequenceGaps) {
  const std::vector<uint8_t> stream = EncodeFrames(2000);
  FakePort port;
  LineFaults faults;
  faults.drop_rate = 0.2;
  SimulatedLine line(&port, 0, faults);
  Feed(&line, stream, 64);
  const wire::LinkCounters counters = Decode(port.wire);
  const uint64_t dropped = line.stats().frames_dropped;
  EXPECT_EQ(counters.frames_bad, 0u);
  EXPECT_EQ(counters.frames_ok + dropped, 2000u);
  EXPECT_GT(dropped, 320u);  // 400 expected; bounds are over 4 standard deviations wide
  EXPECT_LT(dropped, 480u);
  // Only drops after the last delivered frame leave no gap behind them.
  EXPECT_LE(counters.frames_dropped, dropped);
  EXPECT_GE(counters.frames_dropped + 10, dropped);
}

TEST(SimulatedLine, CorruptionFlipsSingleBitsAndOnlyUntouchedFramesDecode) {
  std::vector<size_t> ends;
  const std::vector<uint8_t> stream = EncodeFrames(1000, &ends);
  FakePort port;
  LineFaults faults;
  faults.corrupt_rate = 0.004;
  faults.seed = 42;
  SimulatedLine line(&port, 0, faults);
  Feed(&line, stream, 100);
  ASSERT_EQ(port.wire.size(), stream.size());
  std::vector<bool> changed(stream.size());
  uint64_t changed_bytes = 0;
  for (size_t i = 0; i < stream.size(); ++i) {
    const uint8_t difference = static_cast<uint8_t>(stream[i] ^ port.wire[i]);
    changed[i] = difference != 0;
    if (!changed[i]) continue;
    ++changed_bytes;
    EXPECT_EQ(std::bitset<8>(difference).count(), 1u) << "byte " << i;
  }
  EXPECT_EQ(changed_bytes, line.stats().bytes_corrupted);
  EXPECT_GT(changed_bytes, 0u);
  // A frame survives when its own bytes and the delimiter before it are untouched.
  uint64_t intact = 0;
  size_t start = 0;
  for (size_t f = 0; f < ends.size(); ++f) {
    bool ok = f == 0 || !changed[ends[f - 1]];
    for (size_t i = start; i <= ends[f] && ok; ++i) ok = !changed[i];
    intact += ok ? 1 : 0;
    start = ends[f] + 1;
  }
  const wire::LinkCounters counters = Decode(port.wire);
  EXPECT_EQ(counters.frames_ok, intact);
  EXPECT_GT(counters.frames_bad, 0u);
}

TEST(SimulatedLine, DisconnectAfterPullsTheCableOnceAfterThatManyFrames) {
  const std::vector<uint8_t> stream = EncodeFrames(20);
  FakePort port;
  LineFaults faults;
  faults.disconnect_after = 5;
  SimulatedLine line(&port, 0, faults);
  Feed(&line, stream, 1000);
  EXPECT_EQ(port.unplug_count, 1);
  EXPECT_EQ(Decode(port.wire).frames_ok, 5u);
  port.unplugged = false;  // a desktop plugged in again: the line stays up now
  port.wire.clear();
  Feed(&line, EncodeFrames(30), 1000);
  EXPECT_EQ(port.unplug_count, 1);
  EXPECT_EQ(Decode(port.wire).frames_ok, 30u);
}

TEST(SimulatedLine, TheLineRateIsTenBitsPerByte) {
  ByteRate rate(115200);
  size_t total = 0;
  for (int64_t ms = 0; ms <= 2000; ++ms) total += rate.Take(1000, ms * 1000000);
  // 2 s at 11520 bytes/s, plus at most the 50 ms burst the bucket starts with.
  EXPECT_GE(total, 23040u - 2);
  EXPECT_LE(total, 23040u + 576 + 2);
  ByteRate unlimited(0);
  EXPECT_EQ(unlimited.Take(123456, 0), 123456u);
}

class DemoTrainability : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ReadModelFile(testing::DemoFile("demo.circle").toStdString(), &model_).ok());
  }
  const Subgraph& main() const { return model_.graph().main(); }
  Model model_;
};

TrainabilityChange Change(wire::TrainabilityMode mode, uint32_t value,
                          TrainRank rank = TrainRank::kAll) {
  TrainabilityChange change;
  change.mode = mode;
  change.value = value;
  change.rank = rank;
  return change;
}

// The demo: 0 CONV_2D, 1 MAX_POOL_2D, 2 RESHAPE, 3 FULLY_CONNECTED, 4 FULLY_CONNECTED, 5 SOFTMAX.
TEST_F(DemoTrainability, LastLayersWithRankAllIsOnertMicrosNumOfTrainLayers) {
  TrainabilityConfig config;
  ASSERT_TRUE(
      ApplyTrainabilityChange(main(), Change(wire::TrainabilityMode::kLastLayers, 2), &config)
          .ok());
  EXPECT_EQ(config.num_train_layers, 2u);
  EXPECT_TRUE(config.op_ranks.empty());
  EXPECT_EQ(SelectBackwardRange(main(), config).first_op, 4u);
}

TEST_F(DemoTrainability, SingleOpEditsKeepTheRestOfTheTrainedSet) {
  TrainabilityConfig config;  // all ops: the weighted ones are 0, 3 and 4
  ASSERT_TRUE(ApplyTrainabilityChange(
                  main(), Change(wire::TrainabilityMode::kSetOp, 3, TrainRank::kOnlyBias), &config)
                  .ok());
  const std::map<uint16_t, TrainRank> expected{
      {0, TrainRank::kAll}, {3, TrainRank::kOnlyBias}, {4, TrainRank::kAll}};
  EXPECT_EQ(config.op_ranks, expected);
  ASSERT_TRUE(
      ApplyTrainabilityChange(main(), Change(wire::TrainabilityMode::kClearOp, 0), &config).ok());
  EXPECT_EQ(config.op_ranks.count(0), 0u);
  EXPECT_EQ(SelectBackwardRange(main(), config).first_op, 3u);  // nothing below op 3 trains now
}

TEST_F(DemoTrainability, LastLayersWithARankListsEachOfThoseOps) {
  TrainabilityConfig config;
  ASSERT_TRUE(
      ApplyTrainabilityChange(
          main(), Change(wire::TrainabilityMode::kLastLayers, 2, TrainRank::kUpperHalf), &config)
          .ok());
  const std::map<uint16_t, TrainRank> expected{{4, TrainRank::kUpperHalf},
                                               {5, TrainRank::kUpperHalf}};
  EXPECT_EQ(config.op_ranks, expected);
}

TEST_F(DemoTrainability, ImpossibleChangesAreRefusedAndLeaveTheConfigAlone) {
  TrainabilityConfig config;
  config.op_ranks = {{4, TrainRank::kAll}};
  const TrainabilityConfig before = config;
  Status status =
      ApplyTrainabilityChange(main(), Change(wire::TrainabilityMode::kClearOp, 4), &config);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("at least one"), std::string::npos)
      << status.message();
  status = ApplyTrainabilityChange(main(), Change(wire::TrainabilityMode::kSetOp, 6), &config);
  EXPECT_NE(std::string(status.message()).find("operator 6"), std::string::npos)
      << status.message();
  EXPECT_FALSE(
      ApplyTrainabilityChange(main(), Change(wire::TrainabilityMode::kLastLayers, 7), &config)
          .ok());
  EXPECT_EQ(config.op_ranks, before.op_ranks);
  EXPECT_EQ(config.num_train_layers, before.num_train_layers);
}

// Watches a live link for the effects of one SET_TRAINABILITY command.
class TrainabilityWatcher final : public TrainingObserver, public wire::LinkHandler {
 public:
  void OnBackwardStep(const BackwardStepEvent& event) override {
    if (event.begin) return;
    (announced_again ? ops_after : ops_before).push_back(event.op_index);
  }
  void OnAck(const wire::AckMessage& ack) override {
    if (ack.command == wire::MessageType::kSetTrainability)
      acked = ack.result == wire::AckResult::kOk ? 1 : -1;
  }
  void OnLog(const wire::LogMessage& log) override {
    if (std::string(log.text.c_str()).find("trainability") != std::string::npos) logged = true;
  }
  void OnModelAnnounce(const wire::ModelAnnounceMessage& announce) override {
    if (acked == 0) return;
    announced_again = true;
    announce_ = announce;
  }

  int acked = 0;
  bool logged = false;
  bool announced_again = false;
  wire::ModelAnnounceMessage announce_;
  std::vector<uint32_t> ops_before, ops_after;
};

TEST(BoardSimProtocol, ATrainabilityChangeIsAppliedAtTheNextOptimizerStep) {
  testing::BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  const uint16_t port =
      static_cast<uint16_t>(sim.endpoint().section(QLatin1Char(':'), -1).toUInt());
  TcpClientTransport link("127.0.0.1", port);
  ASSERT_TRUE(link.Open().ok());
  TrainabilityWatcher watcher;
  wire::MessageRouter router(&watcher, &watcher);
  wire::StreamDecoder decoder;
  wire::FrameEncoder encoder;
  uint8_t buffer[4096];
  QElapsedTimer timer;
  timer.start();
  const auto pump = [&] {
    size_t n = 0;
    ASSERT_TRUE(link.Read(buffer, sizeof buffer, 50, &n).ok());
    decoder.Push(buffer, n, &router);
  };
  while (watcher.ops_before.size() < 20 && timer.elapsed() < 10000) pump();
  EXPECT_NE(std::find(watcher.ops_before.begin(), watcher.ops_before.end(), 0u),
            watcher.ops_before.end());

  wire::SetTrainabilityCommand command;
  command.command_id = 9;
  command.mode = wire::TrainabilityMode::kLastLayers;
  command.value = 2;
  const size_t size = encoder.Encode(command, buffer, sizeof buffer);
  ASSERT_TRUE(link.Write(buffer, size).ok());
  while (watcher.ops_after.size() < 30 && timer.elapsed() < 15000) pump();

  EXPECT_EQ(watcher.acked, 1);
  EXPECT_TRUE(watcher.logged);
  ASSERT_TRUE(watcher.announced_again);
  ASSERT_EQ(watcher.announce_.entry_count, 6);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(watcher.announce_.ops[k].trainable, k == 4) << "op " << k;
  ASSERT_GE(watcher.ops_after.size(), 30u);
  for (uint32_t op : watcher.ops_after) EXPECT_GE(op, 4u);  // only the last two ops run backward
}

}  // namespace
}  // namespace trainscope

namespace trainscope {
namespace {

// The floats of `const float NAME[] = { ... };` in a generated source, read back with strtof.
std::vector<float> FloatsOf(const std::string& source, const std::string& name) {
  std::vector<float> values;
  const size_t start = source.find("const float " + name + "[] = {");
  if (start == std::string::npos) return values;
  const size_t open = source.find('{', start);
  const size_t close = source.find("};", open);
  const char* at = source.c_str() + open + 1;
  const char* end = source.c_str() + close;
  while (at < end) {
    char* next = nullptr;
    const float value = std::strtof(at, &next);
    if (next == at) {
      ++at;
      continue;
    }
    values.push_back(value);
    at = next + 1;  // the 'f' suffix
  }
  return values;
}

TEST(FirmwareSource, FloatsComeBackBitForBitAndAFileNameCannotBreakTheSource) {
  Model model;
  ASSERT_TRUE(ReadModelFile(testing::DemoFile("demo.circle").toStdString(), &model).ok());
  DataSet data;
  data.sample_count = 2;
  data.inputs = {{1.0f / 3.0f, -0.0f, 1e-40f, 3.4028235e38f, 7.0f, -2.5e-7f}};
  data.targets = {0.0f, 1.0f};
  TrainingSetup setup;
  setup.options.learning_rate = 0.1f;
  setup.trainability.op_ranks = {{3, TrainRank::kOnlyBias}};
  const std::string source =
      FirmwareSourceText(QStringLiteral("evil\n#error \"x\".circle"), model, setup, data);
  for (const auto& [name, want] : {std::pair{std::string("kInput0"), data.inputs[0]},
                                   std::pair{std::string("kTargets"), data.targets}}) {
    const std::vector<float> got = FloatsOf(source, name);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0) << name << " " << i;
    }
  }
  // A name with a newline or quotes stays inside its comment and its string literal.
  EXPECT_EQ(source.find("\n#error"), std::string::npos);
  EXPECT_NE(source.find("\"evil?#error \\\"x\\\".circle, 2 samples"), std::string::npos);
  EXPECT_NE(source.find("{3, static_cast<TrainRank>(1)}"), std::string::npos);
  EXPECT_NE(source.find("const uint32_t kInputElements[] = {3u, };"), std::string::npos);
  char first_bytes[64];
  std::snprintf(first_bytes, sizeof first_bytes, " 0x%02x, 0x%02x, 0x%02x, 0x%02x,",
                model.bytes()[0], model.bytes()[1], model.bytes()[2], model.bytes()[3]);
  EXPECT_NE(source.find(first_bytes), std::string::npos);
}

}  // namespace
}  // namespace trainscope
