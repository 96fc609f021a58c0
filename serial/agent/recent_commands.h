// SPDX-License-Identifier: Apache-2.0
//
// RecentCommands: the last few commands the agent answered, so a command the desktop sends again
// (its ACK was lost on the way back) is answered again with the same result instead of being
// applied twice. STEP_BACKWARD_OP is not idempotent: a repeated step would run one op too many.
//
// A command counts as a repeat when its id and type match one of the last kCapacity answered;
// id 0 means "no id" and is never a repeat. A desktop numbers its commands from where it likes
// (a new one may reuse the ids of the last), and every desktop starts with REQUEST_HELLO: that
// command is never a repeat (answering it twice only sends HELLO twice) and makes the agent
// forget the rest. Fixed size, no heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "serial/protocol/messages.h"

namespace trainscope {

class RecentCommands {
 public:
  static constexpr size_t kCapacity = 8;

  // The result first given to this command, or nullptr when it was not answered recently.
  const wire::AckResult* Find(uint16_t command_id, wire::MessageType type) const {
    if (command_id == 0 || type == wire::MessageType::kRequestHello) return nullptr;
    for (size_t i = 0; i < count_; ++i) {
      if (entries_[i].command_id == command_id && entries_[i].type == type) {
        return &entries_[i].result;
      }
    }
    return nullptr;
  }

  void Remember(uint16_t command_id, wire::MessageType type, wire::AckResult result) {
    if (command_id == 0) return;
    entries_[next_] = Entry{command_id, type, result};
    next_ = (next_ + 1) % kCapacity;
    if (count_ < kCapacity) ++count_;
  }

  void Clear() {
    count_ = 0;
    next_ = 0;
  }

 private:
  struct Entry {
    uint16_t command_id;
    wire::MessageType type;
    wire::AckResult result;
  };
  Entry entries_[kCapacity] = {};
  size_t count_ = 0;
  size_t next_ = 0;
};

}  // namespace trainscope
