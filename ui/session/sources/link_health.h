// SPDX-License-Identifier: Apache-2.0
//
// LinkHealth: the numbers that say whether a board link is healthy, as one copyable value.
// DeviceEventSource::health() returns a consistent snapshot of them from any thread; the link
// health panel shows them.
#pragma once

#include <QString>

#include <cstdint>

#include "serial/protocol/messages.h"

namespace trainscope {

struct LinkHealth {
  bool connected = false;       // the transport is open (false while reconnecting)
  bool reconnecting = false;    // the link was lost and is being retried
  QString endpoint;             // what the user asked for: "/dev/ttyACM0@115200", "tcp://..."
  QString transport;            // Transport::Describe() of the open link
  QString agent;                // HELLO agent_name
  uint32_t capabilities = 0;    // HELLO capability bits
  uint64_t bytes = 0;           // received since the session began
  double bytes_per_second = 0;  // over the last measuring window (~1 s)
  uint64_t frames_ok = 0;
  uint64_t frames_bad = 0;      // a bad first candidate after (re)connecting is excused
  uint64_t frames_dropped = 0;  // sequence gaps: frames the board dropped or the line lost
  uint64_t malformed = 0;       // good frames whose payload did not decode
  uint32_t agent_drops = 0;     // the board's own count of discarded frames (last HEARTBEAT)
  uint64_t heartbeats = 0;
  int64_t last_ack_latency_us = -1;  // command first sent -> its ACK decoded; -1 before one
  uint64_t commands_resent = 0;      // writes of a command again because no ACK came in time
  uint64_t unsolicited_acks = 0;     // ACKs for no pending command (e.g. a resent one's 2nd)
  uint64_t backward_steps = 0;       // BACKWARD_STEP end events handed to the store
  uint32_t reconnects = 0;
  int64_t ms_since_last_frame = -1;         // -1 before the first good frame
  bool has_device_memory = false;           // a DEVICE_MEMORY arrived in this session
  wire::DeviceMemoryMessage device_memory;  // the last one: the RAM the board really used
};

}  // namespace trainscope
