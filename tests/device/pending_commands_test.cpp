// SPDX-License-Identifier: Apache-2.0
//
// PendingCommands without a board: ACKs matched by id in any order, ACKs for ids nobody waits
// for, the timeout boundary, and what a lost link reports. Times are fabricated, so nothing
// sleeps.
#include <QtTest>

#include "ui/session/sources/pending_commands.h"

namespace trainscope {
namespace {

using Clock = PendingCommands::Clock;
using std::chrono::milliseconds;

constexpr int kTimeoutMs = 3000;
constexpr uint8_t kFrame[] = {0x00, 0x02, 0x41, 0x00};  // what was written does not matter here

wire::AckMessage Ack(uint16_t id, wire::MessageType type,
                     wire::AckResult result = wire::AckResult::kOk) {
  wire::AckMessage ack;
  ack.command_id = id;
  ack.command = type;
  ack.result = result;
  return ack;
}

}  // namespace

class PendingCommandsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void ackOfAPendingIdSettlesItAndMeasuresLatency() {
    PendingCommands pending(kTimeoutMs);
    const Clock::time_point sent = Clock::now();
    pending.Sent(7, wire::MessageType::kPause, kFrame, sizeof kFrame, sent);
    const PendingCommands::AckMatch match =
        pending.Acknowledge(Ack(7, wire::MessageType::kPause), sent + milliseconds(12));
    QCOMPARE(match.command, QStringLiteral("PAUSE"));
    QCOMPARE(match.latency_us, int64_t{12000});
    QVERIFY(pending.empty());
    QVERIFY(pending.TakeExpired(sent + milliseconds(10 * kTimeoutMs)).empty());
  }

  void breakpointAckIsNamedWithWhatItWasFor() {
    PendingCommands pending(kTimeoutMs);
    const Clock::time_point sent = Clock::now();
    pending.Sent(3, wire::MessageType::kSetBreakpoint, kFrame, sizeof kFrame, sent,
                 QStringLiteral("op 4 NaN"));
    const PendingCommands::AckMatch match =
        pending.Acknowledge(Ack(3, wire::MessageType::kSetBreakpoint), sent);
    QCOMPARE(match.command, QStringLiteral("SET_BREAKPOINT (op 4 NaN)"));
    QCOMPARE(match.latency_us, int64_t{0});
  }

  void ackForAnUnknownIdSettlesNothing() {
    PendingCommands pending(kTimeoutMs);
    const Clock::time_point sent = Clock::now();
    pending.Sent(1, wire::MessageType::kResume, kFrame, sizeof kFrame, sent);
    const PendingCommands::AckMatch match =
        pending.Acknowledge(Ack(2, wire::MessageType::kStepSample), sent);
    QCOMPARE(match.command, QStringLiteral("STEP_SAMPLE"));
    QCOMPARE(match.latency_us, int64_t{-1});
    QCOMPARE(pending.size(), size_t{1});
  }

  void ackWhoseTypeDiffersStillSettlesButIsNamedByTheAck() {
    PendingCommands pending(kTimeoutMs);
    const Clock::time_point sent = Clock::now();
    pending.Sent(5, wire::MessageType::kSetBreakpoint, kFrame, sizeof kFrame, sent,
                 QStringLiteral("op 1"));
    const PendingCommands::AckMatch match =
        pending.Acknowledge(Ack(5, wire::MessageType::kPause), sent + milliseconds(1));
    QCOMPARE(match.command, QStringLiteral("PAUSE"));
    QCOMPARE(match.latency_us, int64_t{1000});
    QVERIFY(pending.empty());
  }

  void acksMatchOutOfOrder() {
    PendingCommands pending(kTimeoutMs);
    const Clock::time_point sent = Clock::now();
    pending.Sent(10, wire::MessageType::kPause, kFrame, sizeof kFrame, sent);
    pending.Sent(11, wire::MessageType::kStepBatch, kFrame, sizeof kFrame, sent + milliseconds(5));
    pending.Sent(12, wire::MessageType::kResume, kFrame, sizeof kFrame, sent + milliseconds(10));
    QCOMPARE(pending.Acknowledge(Ack(12, wire::MessageType::kResume), sent + milliseconds(20))
                 .latency_us,
             int64_t{10000});
    QCOMPARE(
        pending.Acknowledge(Ack(10, wire::MessageType::kPause), sent + milliseconds(30)).latency_us,
        int64_t{30000});
    const std::vector<QString> expired = pending.TakeExpired(sent + milliseconds(5 + kTimeoutMs));
    QCOMPARE(expired.size(), size_t{1});
    QCOMPARE(expired[0], QStringLiteral("the board did not answer STEP_BATCH within 3 s"));
    QVERIFY(pending.empty());
  }

  void commandsExpireExactlyAtTheTimeoutInIdOrder() {
    PendingCommands pending(kTimeoutMs);
    const Clock::time_point sent = Clock::now();
    pending.Sent(9, wire::MessageType::kResume, kFrame, sizeof kFrame, sent);
    pending.Sent(2, wire::MessageType::kSetBreakpoint, kFrame, sizeof kFrame, sent,
                 QStringLiteral("op 0"));
    pending.Sent(4, wire::MessageType::kPause, kFrame, sizeof kFrame, sent + milliseconds(100));
    QVERIFY(pending.TakeExpired(sent + milliseconds(kTimeoutMs - 1)).empty());
    QCOMPARE(pending.size(), size_t{3});
    const std::vector<QString> expired = pending.TakeExpired(sent + milliseconds(kTimeoutMs));
    QCOMPARE(expired.size(), size_t{2});
    QCOMPARE(expired[0],
             QStringLiteral("the board did not answer SET_BREAKPOINT (op 0) within 3 s"));
    QCOMPARE(expired[1], QStringLiteral("the board did not answer RESUME within 3 s"));
    QCOMPARE(pending.size(), size_t{1});
    // An ACK that arrives after its command expired is for an id nobody waits for any more.
    QCOMPARE(
        pending.Acknowledge(Ack(9, wire::MessageType::kResume), sent + milliseconds(kTimeoutMs))
            .latency_us,
        int64_t{-1});
  }

  void lostLinkNamesTheLowestIdAndForgetsAll() {
    PendingCommands pending(kTimeoutMs);
    QVERIFY(pending.AbandonAll().isEmpty());
    const Clock::time_point sent = Clock::now();
    pending.Sent(8, wire::MessageType::kPause, kFrame, sizeof kFrame, sent);
    pending.Sent(6, wire::MessageType::kStepBackwardOp, kFrame, sizeof kFrame,
                 sent + milliseconds(1));
    QCOMPARE(pending.AbandonAll(),
             QStringLiteral("STEP_BACKWARD_OP got no answer: the link was lost"));
    QVERIFY(pending.empty());
    QVERIFY(pending.TakeExpired(sent + milliseconds(10 * kTimeoutMs)).empty());
  }

  void reusedIdReplacesTheOlderCommand() {
    PendingCommands pending(kTimeoutMs);
    const Clock::time_point sent = Clock::now();
    pending.Sent(1, wire::MessageType::kPause, kFrame, sizeof kFrame, sent);
    pending.Sent(1, wire::MessageType::kResume, kFrame, sizeof kFrame,
                 sent + milliseconds(kTimeoutMs));
    QCOMPARE(pending.size(), size_t{1});
    QVERIFY(pending.TakeExpired(sent + milliseconds(kTimeoutMs)).empty());
    QCOMPARE(
        pending.Acknowledge(Ack(1, wire::MessageType::kResume), sent + milliseconds(kTimeoutMs))
            .command,
        QStringLiteral("RESUME"));
  }

  void aResentCommandSaysHowOftenItWentWhenItExpires() {
    PendingCommands pending(kTimeoutMs, 1000);
    struct Log : Transport {
      Status Open() override { return Status::Ok(); }
      void Close() override {}
      bool is_open() const override { return true; }
      Status Read(uint8_t*, size_t, int, size_t* received) override {
        *received = 0;
        return Status::Ok();
      }
      Status Write(const uint8_t*, size_t) override {
        ++writes;
        return Status::Ok();
      }
      std::string Describe() const override { return "log"; }
      int writes = 0;
    } link;
    const Clock::time_point sent = Clock::now();
    pending.Sent(4, wire::MessageType::kStepBackwardOp, kFrame, sizeof kFrame, sent);
    for (int ms = 0; ms < kTimeoutMs; ms += 100) {
      QVERIFY(pending.Resend(sent + milliseconds(ms), &link).ok());
    }
    QCOMPARE(link.writes, 2);  // at 1 s and 2 s
    QCOMPARE(pending.resent(), uint64_t{2});
    const std::vector<QString> expired = pending.TakeExpired(sent + milliseconds(kTimeoutMs));
    QCOMPARE(expired.size(), size_t{1});
    QCOMPARE(expired[0],
             QStringLiteral("the board did not answer STEP_BACKWARD_OP within 3 s (sent 3 times)"));
    QCOMPARE(pending
                 .Acknowledge(Ack(4, wire::MessageType::kStepBackwardOp),
                              sent + milliseconds(kTimeoutMs))
                 .attempts,
             uint32_t{0});
    QCOMPARE(pending.unsolicited_acks(), uint64_t{1});
  }

  void unknownTypeIsCalledCommand() {
    QCOMPARE(CommandName(static_cast<wire::MessageType>(0xEE)), QStringLiteral("command"));
    QCOMPARE(CommandName(wire::MessageType::kSetTrainability), QStringLiteral("SET_TRAINABILITY"));
  }
};

}  // namespace trainscope

QTEST_MAIN(trainscope::PendingCommandsTest)
#include "pending_commands_test.moc"
