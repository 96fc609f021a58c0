// SPDX-License-Identifier: Apache-2.0
#include "serial/transport/endpoint.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include "serial/transport/serial_port_transport.h"
#include "serial/transport/tcp_transport.h"
#include "serial/transport/terminal_transport.h"

namespace trainscope {
namespace {

bool StartsWith(const std::string& text, const char* prefix) {
  return text.rfind(prefix, 0) == 0;
}

bool ParseNumber(const std::string& text, uint64_t max, uint64_t* out) {
  if (text.empty() || text.size() > 10) return false;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (value > max) return false;
  *out = value;
  return true;
}

// "host:port", "[v6]:port" or, for servers, ":port".
Status ParseHostPort(const std::string& text, const std::string& rest, bool server, Endpoint* out) {
  std::string host;
  std::string port_text;
  if (StartsWith(rest, "[")) {
    const size_t close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      return Status::Error(StatusCode::kInvalidArgument, "'%s': expected [IPv6 address]:PORT",
                           text.c_str());
    }
    host = rest.substr(1, close - 1);
    port_text = rest.substr(close + 2);
  } else {
    const size_t colon = rest.rfind(':');
    if (colon == std::string::npos) {
      return Status::Error(StatusCode::kInvalidArgument, "'%s': missing :PORT (e.g. %s:5555)",
                           text.c_str(), text.c_str());
    }
    host = rest.substr(0, colon);
    port_text = rest.substr(colon + 1);
  }
  uint64_t port = 0;
  if (!ParseNumber(port_text, 65535, &port) || (port == 0 && !server)) {
    return Status::Error(StatusCode::kInvalidArgument, "'%s': port must be 1..65535%s",
                         text.c_str(), server ? " (or 0 to let the system pick)" : "");
  }
  if (host.empty() && !server) {
    return Status::Error(StatusCode::kInvalidArgument, "'%s': missing host", text.c_str());
  }
  out->host = host.empty() ? "127.0.0.1" : host;
  out->port = static_cast<uint16_t>(port);
  return Status::Ok();
}

bool LooksLikeWindowsPort(const std::string& name) {
  std::string bare = StartsWith(name, "\\\\.\\") ? name.substr(4) : name;
  if (bare.size() < 4 || bare.compare(0, 3, "COM") != 0) return false;
  for (size_t i = 3; i < bare.size(); ++i) {
    if (bare[i] < '0' || bare[i] > '9') return false;
  }
  return true;
}

// Follows links so libserialport sees the real device name (it rejects link names).
std::string Resolve(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

}  // namespace

const char* EndpointKindName(EndpointKind kind) {
  switch (kind) {
    case EndpointKind::kSerialPort:
      return "serial";
    case EndpointKind::kTerminal:
      return "terminal";
    case EndpointKind::kTcpClient:
      return "tcp";
    case EndpointKind::kTcpServer:
      return "tcp-listen";
  }
  return "unknown";
}

Status ParseEndpoint(const std::string& text, Endpoint* out) {
  *out = Endpoint();
  if (text.empty()) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "empty endpoint; give a port (/dev/ttyACM0, COM3) or tcp://HOST:PORT");
  }
  if (StartsWith(text, "tcp://")) {
    out->kind = EndpointKind::kTcpClient;
    return ParseHostPort(text, text.substr(6), false, out);
  }
  if (StartsWith(text, "tcp-listen://")) {
    out->kind = EndpointKind::kTcpServer;
    return ParseHostPort(text, text.substr(13), true, out);
  }

  std::string name = text;
  const size_t at = name.rfind('@');
  if (at != std::string::npos) {
    uint64_t baud = 0;
    if (!ParseNumber(name.substr(at + 1), 20000000, &baud) || baud == 0) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "'%s': the baud rate after '@' must be a number such as 921600",
                           text.c_str());
    }
    out->baud_rate = static_cast<uint32_t>(baud);
    name.resize(at);
  }
  bool forced = false;
  if (StartsWith(name, "tty:")) {
    out->kind = EndpointKind::kTerminal;
    name = name.substr(4);
    forced = true;
  } else if (StartsWith(name, "serial:")) {
    out->kind = EndpointKind::kSerialPort;
    name = name.substr(7);
    forced = true;
  }
  if (name.empty()) {
    return Status::Error(StatusCode::kInvalidArgument, "'%s': missing device name", text.c_str());
  }
  if (!LooksLikeWindowsPort(name)) name = Resolve(name);
  out->path = name;
  if (forced) return Status::Ok();

  if (LooksLikeWindowsPort(name)) {
    out->kind = EndpointKind::kSerialPort;
  } else if (StartsWith(name, "/dev/pts/") || name == "/dev/ptmx") {
    out->kind = EndpointKind::kTerminal;
  } else if (StartsWith(name, "/dev/tty") || StartsWith(name, "/dev/cu.")) {
    out->kind = EndpointKind::kSerialPort;
  } else {
    out->kind = EndpointKind::kTerminal;  // an emulator's console, a FIFO-backed tty, ...
  }
  return Status::Ok();
}

std::unique_ptr<Transport> CreateTransport(const Endpoint& endpoint) {
  switch (endpoint.kind) {
    case EndpointKind::kSerialPort:
      return std::make_unique<SerialPortTransport>(endpoint.path, endpoint.baud_rate);
    case EndpointKind::kTerminal:
      return std::make_unique<TerminalTransport>(endpoint.path, endpoint.baud_rate);
    case EndpointKind::kTcpClient:
      return std::make_unique<TcpClientTransport>(endpoint.host, endpoint.port);
    case EndpointKind::kTcpServer:
      return std::make_unique<TcpServerTransport>(endpoint.host, endpoint.port);
  }
  return nullptr;
}

Status OpenEndpoint(const std::string& text, std::unique_ptr<Transport>* out) {
  out->reset();
  Endpoint endpoint;
  TS_RETURN_IF_ERROR(ParseEndpoint(text, &endpoint));
  std::unique_ptr<Transport> transport = CreateTransport(endpoint);
  TS_RETURN_IF_ERROR(transport->Open());
  *out = std::move(transport);
  return Status::Ok();
}

}  // namespace trainscope
