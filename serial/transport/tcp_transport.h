// SPDX-License-Identifier: Apache-2.0
//
// TCP transports. The client connects to tcp://host:port: ser2net exposing a board's UART, QEMU
// started with -serial tcp::PORT,server, or the board simulator. The server listens and serves
// one client at a time; it is the simulator's side of the same link.
//
// The server behaves like a UART with a cable that comes and goes: Read() accepts a waiting
// client first, a client that leaves is dropped quietly (Read returns Ok with 0 bytes and the
// next client may connect), and bytes written while nobody is connected are discarded.
//
//   TcpServerTransport server("127.0.0.1", 0);   // port 0: the system picks one
//   server.Open();
//   TcpClientTransport client("127.0.0.1", server.bound_port());
//   client.Open();
#pragma once

#include <cstdint>
#include <string>

#include "serial/transport/transport.h"

namespace trainscope {

class TcpClientTransport : public Transport {
 public:
  static constexpr int kConnectTimeoutMs = 3000;

  TcpClientTransport(std::string host, uint16_t port);
  ~TcpClientTransport() override;
  TcpClientTransport(const TcpClientTransport&) = delete;
  TcpClientTransport& operator=(const TcpClientTransport&) = delete;

  Status Open() override;
  void Close() override;
  bool is_open() const override { return fd_ >= 0; }
  Status Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) override;
  Status Write(const uint8_t* data, size_t size) override;
  std::string Describe() const override;

 private:
  std::string host_;
  uint16_t port_;
  int fd_ = -1;
};

class TcpServerTransport : public Transport {
 public:
  TcpServerTransport(std::string host, uint16_t port);
  ~TcpServerTransport() override;
  TcpServerTransport(const TcpServerTransport&) = delete;
  TcpServerTransport& operator=(const TcpServerTransport&) = delete;

  // Binds and listens; is_open() is true from here on, with or without a client.
  Status Open() override;
  void Close() override;
  bool is_open() const override { return listen_fd_ >= 0; }
  Status Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) override;
  Status Write(const uint8_t* data, size_t size) override;
  std::string Describe() const override;

  // Waits up to timeout_ms for a client; Ok with has_client() false means none came.
  Status AcceptClient(int timeout_ms);
  bool has_client() const { return client_fd_ >= 0; }
  // Drops the current client but keeps listening (the board simulator pulling its cable).
  void DisconnectClient();
  uint16_t bound_port() const { return bound_port_; }

 private:
  std::string host_;
  uint16_t port_;
  uint16_t bound_port_ = 0;
  int listen_fd_ = -1;
  int client_fd_ = -1;
};

}  // namespace trainscope
