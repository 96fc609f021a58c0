// SPDX-License-Identifier: Apache-2.0
//
// Transport: one byte pipe to a board, whatever carries it. Implementations:
//   SerialPortTransport  real UARTs and USB CDC ports, through libserialport
//   TerminalTransport    ptys and emulators (openpty, socat), through termios; libserialport
//                        cannot open those
//   TcpClientTransport   tcp://host:port, for ser2net and QEMU's -serial tcp:...
//   TcpServerTransport   the listening side, used by the board simulator
// ParseEndpoint()/OpenEndpoint() in endpoint.h pick the right one from a user's text.
//
// Contract: every call has exactly one outcome. Open() returns Ok or an error whose message says
// what to do ("permission denied on /dev/ttyACM0: add your user to the dialout group ...").
// Read() waits at most `timeout_ms` (0 = just look) and returns Ok with *received == 0 when
// nothing came; a peer that went away is an error. Write() writes everything or fails.
// Not thread-safe: one reader thread may own a transport; writes from another thread need a lock.
//
//   std::unique_ptr<Transport> link;
//   Status s = OpenEndpoint("/dev/ttyACM0@921600", &link);
//   if (!s.ok()) ShowError(s.message());
//   size_t n = 0;
//   s = link->Read(buffer, sizeof buffer, 50, &n);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/core/status.h"

namespace trainscope {

class Transport {
 public:
  virtual ~Transport() = default;

  virtual Status Open() = 0;
  virtual void Close() = 0;
  virtual bool is_open() const = 0;
  virtual Status Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) = 0;
  virtual Status Write(const uint8_t* data, size_t size) = 0;
  // For status bars and logs, e.g. "serial /dev/ttyACM0 at 115200 baud".
  virtual std::string Describe() const = 0;
};

// How long Write() waits for a full line or socket buffer before it gives up.
inline constexpr int kTransportWriteTimeoutMs = 2000;
inline constexpr uint32_t kDefaultBaudRate = 115200;

}  // namespace trainscope
