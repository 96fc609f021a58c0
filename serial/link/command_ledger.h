// SPDX-License-Identifier: Apache-2.0
//
// CommandLedger: the desktop's commands on their way to a board, each kept with its encoded frame
// until an ACK names its id. A lossy link loses commands and ACKs alike, so a command unanswered
// for `retry_ms` is written again under the same id, until `give_up_ms` passed since it was
// first sent. The board answers a repeated id again without applying it twice (see
// serial/agent/recent_commands.h), which makes resending safe even for STEP_BACKWARD_OP.
//
// An ACK whose id is not pending (a repeat's second answer, a command from before a
// reconnection, a board talking to someone else) settles nothing and is only counted.
//
// Ownership/threads: a plain value owned by one thread. Times come from the caller, so it never
// reads a clock. Host only (std::map, std::vector); free of Qt like the rest of serial/.
//
//   CommandLedger ledger;
//   ledger.Sent(id, wire::MessageType::kPause, bytes, size, now);
//   TS_RETURN_IF_ERROR(ledger.Resend(now, link));  // each pump
//   CommandLedger::Settled settled = ledger.Acknowledge(ack, now);
//   for (const CommandLedger::Expired& lost : ledger.TakeExpired(now)) Report(lost);
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "engine/core/status.h"
#include "serial/protocol/message_router.h"
#include "serial/transport/transport.h"

namespace trainscope {

class CommandLedger {
 public:
  using Clock = std::chrono::steady_clock;

  static constexpr int kDefaultRetryMs = 250;
  static constexpr int kDefaultGiveUpMs = 3000;

  explicit CommandLedger(int retry_ms = kDefaultRetryMs, int give_up_ms = kDefaultGiveUpMs)
      : retry_ms_(retry_ms), give_up_ms_(give_up_ms) {}

  // A command written to the link under `id` (its whole frame, delimiter included). A pending
  // command with the same id is replaced: ids wrap after 65535.
  void Sent(uint16_t id, wire::MessageType type, const uint8_t* frame, size_t size,
            Clock::time_point now);

  struct Settled {
    bool was_pending = false;
    wire::MessageType type = wire::MessageType::kPing;  // the pending command's type
    int64_t latency_us = -1;  // from the first sending to the ACK; -1 when not pending
    uint32_t attempts = 0;    // how often it was written
  };
  // Settles the command the ACK's id names; anything else counts as unsolicited.
  Settled Acknowledge(const wire::AckMessage& ack, Clock::time_point now);

  // Writes again every command due for another try at `now`. An error is the link's.
  Status Resend(Clock::time_point now, Transport* link);

  struct Expired {
    uint16_t id = 0;
    wire::MessageType type = wire::MessageType::kPing;
    uint32_t attempts = 0;
  };
  // Forgets, in id order, the commands sent `give_up_ms` or longer before `now` and unanswered.
  std::vector<Expired> TakeExpired(Clock::time_point now);
  // The link is gone: forgets every pending command and returns them, lowest id first.
  std::vector<Expired> AbandonAll();

  bool pending(uint16_t id) const { return pending_.count(id) != 0; }
  // Whether a command of this type still waits for its ACK.
  bool awaiting(wire::MessageType type) const {
    for (const auto& [id, command] : pending_) {
      if (command.type == type) return true;
    }
    return false;
  }
  size_t size() const { return pending_.size(); }
  bool empty() const { return pending_.empty(); }
  uint64_t resent() const { return resent_; }
  uint64_t unsolicited_acks() const { return unsolicited_acks_; }
  int give_up_ms() const { return give_up_ms_; }

 private:
  struct Pending {
    wire::MessageType type;
    Clock::time_point first_sent;
    Clock::time_point last_sent;
    uint32_t attempts;
    std::vector<uint8_t> frame;
  };

  int retry_ms_;
  int give_up_ms_;
  std::map<uint16_t, Pending> pending_;
  uint64_t resent_ = 0;
  uint64_t unsolicited_acks_ = 0;
};

}  // namespace trainscope
