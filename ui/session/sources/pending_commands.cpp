// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/pending_commands.h"

namespace trainscope {

QString CommandName(wire::MessageType type) {
  const char* name = wire::MessageTypeName(type);
  return name != nullptr ? QString::fromLatin1(name) : QStringLiteral("command");
}

void PendingCommands::Sent(uint16_t id, wire::MessageType type, const uint8_t* frame, size_t size,
                           Clock::time_point when, const QString& about) {
  ledger_.Sent(id, type, frame, size, when);
  if (about.isEmpty()) {
    about_.erase(id);
  } else {
    about_[id] = about;
  }
}

PendingCommands::AckMatch PendingCommands::Acknowledge(const wire::AckMessage& ack,
                                                       Clock::time_point now) {
  AckMatch match;
  match.command = CommandName(ack.command);
  const CommandLedger::Settled settled = ledger_.Acknowledge(ack, now);
  if (!settled.was_pending) return match;
  match.latency_us = settled.latency_us;
  match.attempts = settled.attempts;
  if (settled.type == ack.command) match.command = Name(ack.command_id, settled.type);
  about_.erase(ack.command_id);
  return match;
}

std::vector<QString> PendingCommands::TakeExpired(Clock::time_point now) {
  std::vector<QString> messages;
  for (const CommandLedger::Expired& lost : ledger_.TakeExpired(now)) {
    QString text = QStringLiteral("the board did not answer %1 within %2 s")
                       .arg(Name(lost.id, lost.type))
                       .arg(timeout_ms_ / 1000);
    if (lost.attempts > 1) text += QStringLiteral(" (sent %1 times)").arg(lost.attempts);
    messages.push_back(text);
    about_.erase(lost.id);
  }
  return messages;
}

QString PendingCommands::AbandonAll() {
  const std::vector<CommandLedger::Expired> abandoned = ledger_.AbandonAll();
  QString message;
  if (!abandoned.empty()) {
    message = QStringLiteral("%1 got no answer: the link was lost")
                  .arg(Name(abandoned.front().id, abandoned.front().type));
  }
  about_.clear();
  return message;
}

QString PendingCommands::Name(uint16_t id, wire::MessageType type) const {
  const auto about = about_.find(id);
  if (about == about_.end()) return CommandName(type);
  return QStringLiteral("%1 (%2)").arg(CommandName(type), about->second);
}

}  // namespace trainscope
