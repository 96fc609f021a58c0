// SPDX-License-Identifier: Apache-2.0
//
// Endpoints: the text a user types to name a board connection, mapped to the transport that can
// actually open it.
//
//   tcp://HOST:PORT             TCP client (ser2net, QEMU -serial tcp::PORT,server, simulator)
//   tcp-listen://[HOST]:PORT    TCP server (the simulator's side); HOST defaults to 127.0.0.1,
//                               PORT 0 lets the system pick
//   /dev/pts/N                  termios (pseudo-terminal)
//   /dev/ttyACM0, COM3, ...     libserialport (real ports)
//   any other path              resolved with realpath(): links such as /dev/serial/by-id/...
//                               or socat's link= names end up at the real device, and anything
//                               that is not a /dev/tty* device is opened with termios
//   tty:PATH / serial:NAME      force termios / libserialport
// Serial and terminal endpoints take an optional baud suffix: "/dev/ttyACM0@921600".
//
//   std::unique_ptr<Transport> link;
//   Status s = OpenEndpoint("tcp://localhost:5555", &link);
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "serial/transport/transport.h"

namespace trainscope {

enum class EndpointKind : uint8_t { kSerialPort, kTerminal, kTcpClient, kTcpServer };
const char* EndpointKindName(EndpointKind kind);  // "serial", "terminal", "tcp", "tcp-listen"

struct Endpoint {
  EndpointKind kind = EndpointKind::kSerialPort;
  std::string path;  // device path or port name (serial, terminal)
  std::string host;  // tcp
  uint16_t port = 0;
  uint32_t baud_rate = kDefaultBaudRate;
};

// Reads the text; only looks at the filesystem to follow links of device paths.
Status ParseEndpoint(const std::string& text, Endpoint* out);

// The transport for an endpoint, not yet opened.
std::unique_ptr<Transport> CreateTransport(const Endpoint& endpoint);

// ParseEndpoint + CreateTransport + Open. On failure *out is left empty.
Status OpenEndpoint(const std::string& text, std::unique_ptr<Transport>* out);

}  // namespace trainscope
