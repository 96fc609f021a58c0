// SPDX-License-Identifier: Apache-2.0
//
// PendingCommands: the desktop->board commands written to the link and not yet answered, with
// the names the user reads. The retrying itself is CommandLedger's (serial/link): a command is
// written again under its id until an ACK settles it or `timeout_ms` passed since it was first
// sent; a lost link abandons them all. This adds what each outcome is called in the messages
// shown to the user and, for SET_BREAKPOINT, what it was for; ACK results and RUN_STATE stay
// with the caller.
//
// Ownership/threads: a plain value owned by DeviceEventSource's reader thread, which alone
// touches it (not thread-safe). It lives as long as the reader and survives reconnections: link
// loss empties it through AbandonAll(). Times come from the caller, so it never reads a clock.
//
//   PendingCommands pending(DeviceEventSource::kCommandTimeoutMs);
//   pending.Sent(id, wire::MessageType::kPause, frame, size, Clock::now());
//   TS_RETURN_IF_ERROR(pending.Resend(Clock::now(), link));
//   PendingCommands::AckMatch match = pending.Acknowledge(ack, Clock::now());
//   for (const QString& text : pending.TakeExpired(Clock::now())) Refused(text);
#pragma once

#include <QString>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "serial/link/command_ledger.h"
#include "serial/protocol/message_router.h"

namespace trainscope {

// The name a message gives a command type ("PAUSE"), or "command" for a type this build lacks.
QString CommandName(wire::MessageType type);

class PendingCommands {
 public:
  using Clock = CommandLedger::Clock;

  explicit PendingCommands(int timeout_ms, int retry_ms = CommandLedger::kDefaultRetryMs)
      : timeout_ms_(timeout_ms), ledger_(retry_ms, timeout_ms) {}

  // A command written to the link under `id` as `frame`; `about` says what a SET_BREAKPOINT was
  // for (empty for other commands). A pending command with the same id is replaced: ids wrap.
  void Sent(uint16_t id, wire::MessageType type, const uint8_t* frame, size_t size,
            Clock::time_point when, const QString& about = QString());
  // Writes again the commands due for another try. An error is the link's.
  Status Resend(Clock::time_point now, Transport* link) { return ledger_.Resend(now, link); }

  struct AckMatch {
    QString command;          // what to call the acknowledged command in a message
    int64_t latency_us = -1;  // from first sending to `now`; -1 when the id was not pending
    uint32_t attempts = 0;    // how often it was written; 0 when the id was not pending
  };
  // Settles the command the ACK's id names. An id that is not pending (expired, answered
  // before, sent before a reconnection, never sent) settles nothing, is counted as unsolicited,
  // and the ACK's own type names the command; so does a pending id whose type differs from the
  // ACK's, which still settles it.
  AckMatch Acknowledge(const wire::AckMessage& ack, Clock::time_point now);

  // Forgets the commands pending for timeout_ms or longer at `now`; one message per command, in
  // id order ("the board did not answer PAUSE within 3 s (sent 12 times)").
  std::vector<QString> TakeExpired(Clock::time_point now);

  // The link is gone: forgets every pending command. Returns one message for the lowest id
  // ("PAUSE got no answer: the link was lost"), or an empty string when nothing was pending.
  QString AbandonAll();

  size_t size() const { return ledger_.size(); }
  bool empty() const { return ledger_.empty(); }
  uint64_t resent() const { return ledger_.resent(); }
  uint64_t unsolicited_acks() const { return ledger_.unsolicited_acks(); }
  bool awaiting(wire::MessageType type) const { return ledger_.awaiting(type); }

 private:
  QString Name(uint16_t id, wire::MessageType type) const;

  int timeout_ms_;
  CommandLedger ledger_;
  std::map<uint16_t, QString> about_;  // SET_BREAKPOINT ids only
};

}  // namespace trainscope
