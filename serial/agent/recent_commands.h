// SPDX-License-Identifier: Apache-2.0
//
// RecentCommands: the last few commands the agent answered, so a command the desktop sends again
// (its ACK was lost on the way back) is answered again with the same result instead of being
// applied twice. STEP_BACKWARD_OP is not idempotent: a repeated step would run one op too many.
//
// A command counts as a repeat when its id and type match one of the last kCapacity answered;
// id 0 means "no id" and is never a repeat. REQUEST_HELLO is never a repeat either (answering it
// twice only sends HELLO twice). Every desktop starts with REQUEST_HELLO and numbers its commands
// from where it likes, so a new one may reuse the last one's ids: a REQUEST_HELLO whose id does
// not continue the remembered sequence (newest + 1 .. newest + kContinuation) starts a new
// desktop, and the agent forgets the rest. One that continues it is the same desktop asking for
// a lost announcement: its resent commands must still count as repeats. Fixed size, no heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "serial/protocol/messages.h"

namespace trainscope {

class RecentCommands {
 public:
  // Commands a desktop sends within its give-up time (3 s): a script's PAUSE, STEPs and RESUME,
  // a burst of SET_BREAKPOINTs. A repeat older than this many newer commands would apply again.
  static constexpr size_t kCapacity = 16;
  static constexpr uint16_t kContinuation = 64;

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

  // A REQUEST_HELLO was applied under `command_id`: a new desktop, unless it continues the ids.
  // A resent REQUEST_HELLO (its ACK was lost) carries an id seen before: the same desktop too.
  void OnRequestHello(uint16_t command_id) {
    bool seen = false;
    for (uint16_t hello : hellos_) seen = seen || (hello != 0 && hello == command_id);
    hellos_[next_hello_] = command_id;
    next_hello_ = (next_hello_ + 1) % kHellos;
    const uint16_t ahead = static_cast<uint16_t>(command_id - newest_);
    if (seen || (count_ > 0 && ahead >= 1 && ahead <= kContinuation)) return;
    Clear();
  }

  // REQUEST_HELLO is not kept: it is never a repeat, and a desktop asking again for a lost
  // announcement must not push out the commands whose repeats still have to be recognised.
  void Remember(uint16_t command_id, wire::MessageType type, wire::AckResult result) {
    if (command_id == 0 || type == wire::MessageType::kRequestHello) return;
    newest_ = command_id;
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
  uint16_t newest_ = 0;
  static constexpr size_t kHellos = 8;
  uint16_t hellos_[kHellos] = {};  // the last REQUEST_HELLO ids
  size_t next_hello_ = 0;
};

}  // namespace trainscope
