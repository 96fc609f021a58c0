// SPDX-License-Identifier: Apache-2.0
//
// BoardPort: the board's end of the simulator's cable. It behaves like a UART rather than like a
// desktop Transport: writes never wait (they take what the line can carry now, possibly
// nothing), bytes sent while nobody listens are lost, and the cable can be pulled (Unplug) to
// emulate a board reset or a loose connector.
//
//   PtyPort   a pseudo-terminal pair; desktops open the slave path (/dev/pts/N). The simulator
//             keeps the slave open itself, so the path stays valid across desktop sessions.
//             A pty cannot tell who has it open, so it carries frames only once a desktop has
//             written something (desktops send REQUEST_HELLO when they attach); until then, and
//             after Unplug or abandonment, the bytes are lost as on an unconnected UART.
//   TcpPort   127.0.0.1:PORT through TcpServerTransport, one desktop at a time.
//
// Single-threaded: the simulator's training thread makes every call.
//
//   std::unique_ptr<BoardPort> port = CreatePtyPort();
//   Status s = port->Open();
//   std::printf("%s\n", port->Address().c_str());   // "pty: /dev/pts/7"
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/core/status.h"

namespace trainscope {

class BoardPort {
 public:
  virtual ~BoardPort() = default;

  virtual Status Open() = 0;
  // What the simulator announces as its first line: "pty: /dev/pts/7", "tcp: 127.0.0.1:5555".
  virtual std::string Address() const = 0;
  // Bytes from the desktop. Ok with *received == 0 when nothing came within timeout_ms.
  virtual Status Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) = 0;
  // Takes what the line can carry now without waiting (0 = busy, try again later). Bytes for a
  // desktop that is not there are taken and lost, as on a real UART.
  virtual size_t WriteSome(const uint8_t* data, size_t size) = 0;
  // Pulls the cable: the current desktop loses the link. The port keeps its address, and the
  // next desktop that talks to it (TCP: connects) plugs it back in.
  virtual void Unplug() = 0;
  // True once per desktop that (re)connected since the last call, so the board can greet it.
  virtual bool TakeNewPeer() = 0;
  // Whether a desktop is there: a TCP client is connected, or a desktop has written to the pty
  // since the start or the last Unplug (a pty cannot tell who has it open; desktops send
  // REQUEST_HELLO when they attach).
  virtual bool connected() const = 0;
};

// A pty whose writes are refused for this long is taken as abandoned (its desktop left or died):
// the stale bytes are flushed and the exclusive-open flag a killed desktop leaves behind is
// cleared, so the next desktop can open the path.
inline constexpr int kPtyAbandonedAfterMs = 2000;

std::unique_ptr<BoardPort> CreatePtyPort();
// Listens on 127.0.0.1; port 0 lets the system pick (Address() shows the real one).
std::unique_ptr<BoardPort> CreateTcpPort(uint16_t port);

}  // namespace trainscope
