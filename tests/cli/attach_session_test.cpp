// SPDX-License-Identifier: Apache-2.0
//
// AttachSession against a scripted board: which ACKs end a session (a refusal of a command it
// waits for) and which are only counted (an answer nothing waits for), and the board's repeated
// RUN_STATE reports counting once per transition.
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "app/cli/attach_session.h"
#include "tests/serial/frame_test_util.h"

namespace trainscope::cli {
namespace {

class ScriptedBoard : public Transport {
 public:
  Status Open() override { return Status::Ok(); }
  void Close() override {}
  bool is_open() const override { return true; }
  Status Read(uint8_t* data, size_t capacity, int, size_t* received) override {
    *received = 0;
    if (incoming.empty()) return Status::Ok();
    *received = std::min(capacity, incoming.size());
    std::copy(incoming.begin(), incoming.begin() + static_cast<std::ptrdiff_t>(*received), data);
    incoming.erase(incoming.begin(), incoming.begin() + static_cast<std::ptrdiff_t>(*received));
    return Status::Ok();
  }
  Status Write(const uint8_t* data, size_t size) override {
    written.insert(written.end(), data, data + size);
    return Status::Ok();
  }
  std::string Describe() const override { return "scripted board"; }

  void Say(const wire::Message& message) {
    const std::vector<uint8_t> frame = testing::EncodeFrame(message, &encoder);
    incoming.insert(incoming.end(), frame.begin(), frame.end());
  }
  // The id of the last command the desktop wrote.
  uint16_t LastCommandId() const {
    struct Commands : wire::LinkHandler {
      void OnCommand(const wire::BasicCommand& command) override { last = command.command_id; }
      uint16_t last = 0;
    } commands;
    wire::MessageRouter router(nullptr, &commands);
    wire::StreamDecoder decoder;
    decoder.Push(written.data(), written.size(), &router);
    return commands.last;
  }

  std::vector<uint8_t> incoming;
  std::vector<uint8_t> written;
  wire::FrameEncoder encoder;
};

wire::AckMessage Ack(uint16_t id, wire::MessageType type, wire::AckResult result) {
  wire::AckMessage ack;
  ack.command_id = id;
  ack.command = type;
  ack.result = result;
  return ack;
}

wire::RunStateMessage Paused(uint32_t transition) {
  wire::RunStateMessage state;
  state.state = wire::RunStateKind::kPaused;
  state.reason = wire::PauseReason::kStepDone;
  state.transition = transition;
  return state;
}

TEST(AttachSession, AnUnsolicitedRefusalIsCountedNotTakenAsOurs) {
  ScriptedBoard board;
  AttachSession session(&board, nullptr);
  ASSERT_TRUE(session.SendCommand(wire::MessageType::kPause).ok());
  const uint16_t pause = board.LastCommandId();
  ASSERT_NE(pause, 0);
  // Another desktop's command, or a resent one answered twice: nothing here waits for it.
  board.Say(Ack(static_cast<uint16_t>(pause + 100), wire::MessageType::kStepBatch,
                wire::AckResult::kUnsupported));
  ASSERT_TRUE(session.Pump(0).ok());
  EXPECT_EQ(session.stats().refused_commands, 0u);
  EXPECT_EQ(session.commands().unsolicited_acks(), 1u);
  EXPECT_TRUE(session.commands().awaiting(wire::MessageType::kPause));

  board.Say(Ack(pause, wire::MessageType::kPause, wire::AckResult::kUnsupported));
  ASSERT_TRUE(session.Pump(0).ok());
  EXPECT_EQ(session.stats().refused_commands, 1u);
  EXPECT_EQ(session.stats().last_refusal, "PAUSE: not supported by this firmware");
  EXPECT_FALSE(session.commands().awaiting(wire::MessageType::kPause));
  // The same refusal again (the board answered a repeat) is not a second refusal.
  board.Say(Ack(pause, wire::MessageType::kPause, wire::AckResult::kUnsupported));
  ASSERT_TRUE(session.Pump(0).ok());
  EXPECT_EQ(session.stats().refused_commands, 1u);
  EXPECT_EQ(session.commands().unsolicited_acks(), 2u);
}

TEST(AttachSession, ARunStateRepeatedByHeartbeatsCountsOnce) {
  ScriptedBoard board;
  AttachSession session(&board, nullptr);
  board.Say(Paused(4));
  board.Say(Paused(4));
  board.Say(Paused(4));
  ASSERT_TRUE(session.Pump(0).ok());
  EXPECT_EQ(session.stats().paused_reports, 1u);
  EXPECT_EQ(session.stats().step_done_reports, 1u);
  // The running report (5) was lost; the next pause still counts.
  board.Say(Paused(6));
  ASSERT_TRUE(session.Pump(0).ok());
  EXPECT_EQ(session.stats().paused_reports, 2u);
  EXPECT_EQ(session.stats().last_transition, 6u);
}

TEST(AttachSession, AnOlderBoardsUnnumberedReportsEachCount) {
  ScriptedBoard board;
  AttachSession session(&board, nullptr);
  board.Say(Paused(0));
  board.Say(Paused(0));
  ASSERT_TRUE(session.Pump(0).ok());
  EXPECT_EQ(session.stats().paused_reports, 2u);
}

}  // namespace
}  // namespace trainscope::cli
