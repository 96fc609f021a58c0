// SPDX-License-Identifier: Apache-2.0
//
// AnnouncementRequests: when a desktop asks a board again for HELLO and MODEL_ANNOUNCE. A lost
// announcement frame leaves the model incomplete; the board answers REQUEST_HELLO within one
// heartbeat, so while the model is incomplete and the board is heard, the request goes out again
// every kRetryMs, at most kMaxPerConnection times per connection (a board without a model is
// not asked forever). Shared by the GUI's device reader and `trainscope-cli attach`.
#pragma once

#include <chrono>

namespace trainscope {

class AnnouncementRequests {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kRetryMs = 1000;
  static constexpr int kMaxPerConnection = 5;

  // A REQUEST_HELLO went out (the first of a connection included).
  void Sent(Clock::time_point now) {
    last_ = now;
    ++count_;
  }
  // A new connection: the board may be another one.
  void Reset() { count_ = 0; }

  // Whether to ask again now. `waiting` is true while the last request is still unacknowledged
  // (the command's own retries cover that case).
  bool Due(Clock::time_point now, bool model_complete, bool board_heard, bool waiting) const {
    return !model_complete && board_heard && !waiting && count_ < kMaxPerConnection &&
           now - last_ >= std::chrono::milliseconds(kRetryMs);
  }

 private:
  Clock::time_point last_;
  int count_ = 0;
};

}  // namespace trainscope
