// SPDX-License-Identifier: Apache-2.0
#include "serial/link/command_ledger.h"

namespace trainscope {

namespace {
int64_t ElapsedMs(CommandLedger::Clock::time_point from, CommandLedger::Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}
}  // namespace

void CommandLedger::Sent(uint16_t id, wire::MessageType type, const uint8_t* frame, size_t size,
                         Clock::time_point now) {
  pending_[id] = Pending{type, now, now, 1, std::vector<uint8_t>(frame, frame + size)};
}

CommandLedger::Settled CommandLedger::Acknowledge(const wire::AckMessage& ack,
                                                  Clock::time_point now) {
  Settled settled;
  const auto it = pending_.find(ack.command_id);
  if (it == pending_.end()) {
    ++unsolicited_acks_;
    return settled;
  }
  settled.was_pending = true;
  settled.type = it->second.type;
  settled.attempts = it->second.attempts;
  settled.latency_us =
      std::chrono::duration_cast<std::chrono::microseconds>(now - it->second.first_sent).count();
  pending_.erase(it);
  return settled;
}

Status CommandLedger::Resend(Clock::time_point now, Transport* link) {
  for (auto& [id, command] : pending_) {
    if (ElapsedMs(command.last_sent, now) < retry_ms_) continue;
    if (ElapsedMs(command.first_sent, now) >= give_up_ms_) continue;  // TakeExpired's to report
    TS_RETURN_IF_ERROR(link->Write(command.frame.data(), command.frame.size()));
    command.last_sent = now;
    ++command.attempts;
    ++resent_;
  }
  return Status::Ok();
}

std::vector<CommandLedger::Expired> CommandLedger::TakeExpired(Clock::time_point now) {
  std::vector<Expired> expired;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (ElapsedMs(it->second.first_sent, now) < give_up_ms_) {
      ++it;
      continue;
    }
    expired.push_back(Expired{it->first, it->second.type, it->second.attempts});
    it = pending_.erase(it);
  }
  return expired;
}

std::vector<CommandLedger::Expired> CommandLedger::AbandonAll() {
  std::vector<Expired> abandoned;
  for (const auto& [id, command] : pending_) {
    abandoned.push_back(Expired{id, command.type, command.attempts});
  }
  pending_.clear();
  return abandoned;
}

}  // namespace trainscope
