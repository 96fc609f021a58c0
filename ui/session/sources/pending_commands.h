// SPDX-License-Identifier: Apache-2.0
//
// PendingCommands: the desktop->board commands written to the link and not yet answered. It
// tracks, per command id, the command type, when it was sent and (for SET_BREAKPOINT) what it was
// for; an ACK settles its id, a command unanswered for `timeout_ms` expires, and a lost link
// abandons them all. It decides what each outcome is called in the messages shown to the user;
// sending, ACK results and RUN_STATE stay with the caller.
//
// Ownership/threads: a plain value owned by DeviceEventSource's reader thread, which alone
// touches it (not thread-safe). It lives as long as the reader and survives reconnections: link
// loss empties it through AbandonAll(). Times come from the caller, so it never reads a clock.
//
//   PendingCommands pending(DeviceEventSource::kCommandTimeoutMs);
//   pending.Sent(id, wire::MessageType::kPause, Clock::now());
//   PendingCommands::AckMatch match = pending.Acknowledge(ack, Clock::now());
//   for (const QString& text : pending.TakeExpired(Clock::now())) Refused(text);
#pragma once

#include <QString>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "serial/protocol/message_router.h"

namespace trainscope {

// The name a message gives a command type ("PAUSE"), or "command" for a type this build lacks.
QString CommandName(wire::MessageType type);

class PendingCommands {
 public:
  using Clock = std::chrono::steady_clock;

  explicit PendingCommands(int timeout_ms) : timeout_ms_(timeout_ms) {}

  // A command written to the link under `id`; `about` says what a SET_BREAKPOINT was for (empty
  // for other commands). A pending command with the same id is replaced: ids wrap after 65535.
  void Sent(uint16_t id, wire::MessageType type, Clock::time_point when,
            const QString& about = QString());

  struct AckMatch {
    QString command;          // what to call the acknowledged command in a message
    int64_t latency_us = -1;  // from sending to `now`; -1 when the id was not pending
  };
  // Settles the command the ACK's id names. An id that is not pending (expired, sent before a
  // reconnection, never sent) settles nothing and the ACK's own type names the command; so does
  // a pending id whose type differs from the ACK's, which still settles it.
  AckMatch Acknowledge(const wire::AckMessage& ack, Clock::time_point now);

  // Forgets the commands pending for timeout_ms or longer at `now`; one message per command, in
  // id order ("the board did not answer PAUSE within 3 s").
  std::vector<QString> TakeExpired(Clock::time_point now);

  // The link is gone: forgets every pending command. Returns one message for the lowest id
  // ("PAUSE got no answer: the link was lost"), or an empty string when nothing was pending.
  QString AbandonAll();

  size_t size() const { return pending_.size(); }
  bool empty() const { return pending_.empty(); }

 private:
  struct Pending {
    wire::MessageType type;
    Clock::time_point sent;
    QString about;
  };
  static QString Name(const Pending& pending);

  int timeout_ms_;
  std::map<uint16_t, Pending> pending_;
};

}  // namespace trainscope
