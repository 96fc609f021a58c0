// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/pending_commands.h"

namespace trainscope {

QString CommandName(wire::MessageType type) {
  const char* name = wire::MessageTypeName(type);
  return name != nullptr ? QString::fromLatin1(name) : QStringLiteral("command");
}

void PendingCommands::Sent(uint16_t id, wire::MessageType type, Clock::time_point when,
                           const QString& about) {
  pending_[id] = Pending{type, when, about};
}

PendingCommands::AckMatch PendingCommands::Acknowledge(const wire::AckMessage& ack,
                                                       Clock::time_point now) {
  AckMatch match;
  match.command = CommandName(ack.command);
  const auto it = pending_.find(ack.command_id);
  if (it == pending_.end()) return match;
  match.latency_us =
      std::chrono::duration_cast<std::chrono::microseconds>(now - it->second.sent).count();
  if (it->second.type == ack.command) match.command = Name(it->second);
  pending_.erase(it);
  return match;
}

std::vector<QString> PendingCommands::TakeExpired(Clock::time_point now) {
  std::vector<QString> messages;
  for (auto it = pending_.begin(); it != pending_.end();) {
    const int64_t waited_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - it->second.sent).count();
    if (waited_ms < timeout_ms_) {
      ++it;
      continue;
    }
    messages.push_back(QStringLiteral("the board did not answer %1 within %2 s")
                           .arg(Name(it->second))
                           .arg(timeout_ms_ / 1000));
    it = pending_.erase(it);
  }
  return messages;
}

QString PendingCommands::AbandonAll() {
  if (pending_.empty()) return QString();
  const QString message =
      QStringLiteral("%1 got no answer: the link was lost").arg(Name(pending_.begin()->second));
  pending_.clear();
  return message;
}

QString PendingCommands::Name(const Pending& pending) {
  if (pending.about.isEmpty()) return CommandName(pending.type);
  return QStringLiteral("%1 (%2)").arg(CommandName(pending.type), pending.about);
}

}  // namespace trainscope
