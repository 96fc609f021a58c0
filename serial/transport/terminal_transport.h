// SPDX-License-Identifier: Apache-2.0
//
// TerminalTransport opens any terminal device with plain POSIX termios: pseudo-terminals from
// openpty() or socat, emulator consoles, and real ports too. libserialport refuses ptys (no sysfs
// entry, no modem lines), so this is the transport for tests, simulators and emulators.
//
// The path is resolved with realpath() first, so links such as socat's link= names or
// /dev/serial/by-id/... work; Describe() shows both names. The line is set raw, 8N1, no flow
// control, at the requested baud rate (which a pty accepts and ignores).
//
//   TerminalTransport tty("/tmp/ttyA", 115200);
//   Status s = tty.Open();
#pragma once

#include <cstdint>
#include <string>

#include "serial/transport/transport.h"

namespace trainscope {

class TerminalTransport : public Transport {
 public:
  TerminalTransport(std::string path, uint32_t baud_rate = kDefaultBaudRate);
  ~TerminalTransport() override;
  TerminalTransport(const TerminalTransport&) = delete;
  TerminalTransport& operator=(const TerminalTransport&) = delete;

  Status Open() override;
  void Close() override;
  bool is_open() const override { return fd_ >= 0; }
  Status Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) override;
  Status Write(const uint8_t* data, size_t size) override;
  std::string Describe() const override;

  const std::string& resolved_path() const { return resolved_path_; }

 private:
  std::string path_;
  std::string resolved_path_;
  uint32_t baud_rate_;
  int fd_ = -1;
};

}  // namespace trainscope
