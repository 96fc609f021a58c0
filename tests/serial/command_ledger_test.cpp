// SPDX-License-Identifier: Apache-2.0
//
// CommandLedger without a board: when a command is written again (and with which bytes), when it
// is given up, how many times it went out, and which ACKs settle nothing. Times are fabricated.
#include <gtest/gtest.h>

#include <vector>

#include "serial/link/announcement_requests.h"
#include "serial/link/command_ledger.h"

namespace trainscope {
namespace {

using Clock = CommandLedger::Clock;
using std::chrono::milliseconds;

class WriteLog : public Transport {
 public:
  Status Open() override { return Status::Ok(); }
  void Close() override {}
  bool is_open() const override { return true; }
  Status Read(uint8_t*, size_t, int, size_t* received) override {
    *received = 0;
    return Status::Ok();
  }
  Status Write(const uint8_t* data, size_t size) override {
    if (broken) return Status::Error(StatusCode::kIoError, "peer closed");
    writes.emplace_back(data, data + size);
    return Status::Ok();
  }
  std::string Describe() const override { return "log"; }

  std::vector<std::vector<uint8_t>> writes;
  bool broken = false;
};

wire::AckMessage Ack(uint16_t id, wire::MessageType type) {
  wire::AckMessage ack;
  ack.command_id = id;
  ack.command = type;
  return ack;
}

const std::vector<uint8_t> kPauseFrame = {0x00, 0x03, 0x44, 0x07, 0x00};
const std::vector<uint8_t> kStepFrame = {0x03, 0x45, 0x08, 0x00};

TEST(CommandLedger, AnUnansweredCommandIsWrittenAgainEveryRetryPeriodWithTheSameBytes) {
  CommandLedger ledger(250, 3000);
  WriteLog link;
  const Clock::time_point t0 = Clock::now();
  ledger.Sent(7, wire::MessageType::kPause, kPauseFrame.data(), kPauseFrame.size(), t0);
  ASSERT_TRUE(ledger.Resend(t0 + milliseconds(249), &link).ok());
  EXPECT_TRUE(link.writes.empty());
  ASSERT_TRUE(ledger.Resend(t0 + milliseconds(250), &link).ok());
  ASSERT_EQ(link.writes.size(), 1u);
  EXPECT_EQ(link.writes[0], kPauseFrame);
  // The period counts from the last writing, not the first.
  ASSERT_TRUE(ledger.Resend(t0 + milliseconds(400), &link).ok());
  EXPECT_EQ(link.writes.size(), 1u);
  ASSERT_TRUE(ledger.Resend(t0 + milliseconds(500), &link).ok());
  EXPECT_EQ(link.writes.size(), 2u);
  EXPECT_EQ(ledger.resent(), 2u);

  const CommandLedger::Settled settled =
      ledger.Acknowledge(Ack(7, wire::MessageType::kPause), t0 + milliseconds(520));
  EXPECT_TRUE(settled.was_pending);
  EXPECT_EQ(settled.attempts, 3u);
  EXPECT_EQ(settled.latency_us, 520000);  // from the first writing
  ASSERT_TRUE(ledger.Resend(t0 + milliseconds(2000), &link).ok());
  EXPECT_EQ(link.writes.size(), 2u);  // settled: never again
}

TEST(CommandLedger, TheSecondAnswerToARepeatIsUnsolicitedAndSettlesNothing) {
  CommandLedger ledger(250, 3000);
  const Clock::time_point t0 = Clock::now();
  ledger.Sent(7, wire::MessageType::kPause, kPauseFrame.data(), kPauseFrame.size(), t0);
  ledger.Sent(8, wire::MessageType::kStepBackwardOp, kStepFrame.data(), kStepFrame.size(), t0);
  EXPECT_TRUE(ledger.Acknowledge(Ack(7, wire::MessageType::kPause), t0).was_pending);
  EXPECT_FALSE(ledger.Acknowledge(Ack(7, wire::MessageType::kPause), t0).was_pending);
  EXPECT_FALSE(ledger.Acknowledge(Ack(99, wire::MessageType::kPing), t0).was_pending);
  EXPECT_EQ(ledger.unsolicited_acks(), 2u);
  EXPECT_TRUE(ledger.pending(8));
  EXPECT_EQ(ledger.size(), 1u);
}

TEST(CommandLedger, ACommandIsGivenUpAtTheDeadlineWithHowOftenItWent) {
  CommandLedger ledger(250, 1000);
  WriteLog link;
  const Clock::time_point t0 = Clock::now();
  ledger.Sent(8, wire::MessageType::kStepBackwardOp, kStepFrame.data(), kStepFrame.size(), t0);
  ledger.Sent(3, wire::MessageType::kPause, kPauseFrame.data(), kPauseFrame.size(),
              t0 + milliseconds(500));
  for (int ms = 0; ms <= 1000; ms += 10) {
    ASSERT_TRUE(ledger.Resend(t0 + milliseconds(ms), &link).ok());
  }
  EXPECT_TRUE(ledger.TakeExpired(t0 + milliseconds(999)).empty());
  const std::vector<CommandLedger::Expired> expired = ledger.TakeExpired(t0 + milliseconds(1000));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].id, 8);
  EXPECT_EQ(expired[0].type, wire::MessageType::kStepBackwardOp);
  EXPECT_EQ(expired[0].attempts, 4u);  // at 0, 250, 500 and 750 ms; not at the deadline
  EXPECT_TRUE(ledger.pending(3));
  const std::vector<CommandLedger::Expired> abandoned = ledger.AbandonAll();
  ASSERT_EQ(abandoned.size(), 1u);
  EXPECT_EQ(abandoned[0].id, 3);
  EXPECT_TRUE(ledger.empty());
}

TEST(CommandLedger, AWriteErrorIsTheLinks) {
  CommandLedger ledger(250, 3000);
  WriteLog link;
  link.broken = true;
  const Clock::time_point t0 = Clock::now();
  ledger.Sent(1, wire::MessageType::kPause, kPauseFrame.data(), kPauseFrame.size(), t0);
  const Status status = ledger.Resend(t0 + milliseconds(300), &link);
  EXPECT_FALSE(status.ok());
  EXPECT_STREQ(status.message(), "peer closed");
}

TEST(CommandLedger, AwaitingNamesTheTypesStillUnanswered) {
  CommandLedger ledger;
  const Clock::time_point t0 = Clock::now();
  EXPECT_FALSE(ledger.awaiting(wire::MessageType::kPause));
  ledger.Sent(7, wire::MessageType::kPause, kPauseFrame.data(), kPauseFrame.size(), t0);
  EXPECT_TRUE(ledger.awaiting(wire::MessageType::kPause));
  EXPECT_FALSE(ledger.awaiting(wire::MessageType::kStepBackwardOp));
  ledger.Acknowledge(Ack(7, wire::MessageType::kPause), t0);
  EXPECT_FALSE(ledger.awaiting(wire::MessageType::kPause));
}

TEST(AnnouncementRequests, AskAgainEverySecondWhileIncompleteAtMostFiveTimes) {
  AnnouncementRequests requests;
  const Clock::time_point t0 = Clock::now();
  requests.Sent(t0);
  EXPECT_FALSE(requests.Due(t0 + milliseconds(999), false, true, false));
  EXPECT_FALSE(requests.Due(t0 + milliseconds(1000), true, true, false));    // model complete
  EXPECT_FALSE(requests.Due(t0 + milliseconds(1000), false, false, false));  // no board heard
  EXPECT_FALSE(requests.Due(t0 + milliseconds(1000), false, true, true));    // still unanswered
  Clock::time_point t = t0;
  int sent = 1;
  for (int second = 1; second < 20; ++second) {
    t = t0 + milliseconds(1000 * second);
    if (requests.Due(t, false, true, false)) {
      requests.Sent(t);
      ++sent;
    }
  }
  EXPECT_EQ(sent, AnnouncementRequests::kMaxPerConnection);
  requests.Reset();  // a new connection
  EXPECT_TRUE(requests.Due(t + milliseconds(1000), false, true, false));
}

}  // namespace
}  // namespace trainscope
