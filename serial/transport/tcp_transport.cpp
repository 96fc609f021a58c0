// SPDX-License-Identifier: Apache-2.0
#include "serial/transport/tcp_transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "serial/transport/posix_io.h"

namespace trainscope {
namespace {

std::string Url(const std::string& host, uint16_t port) {
  const bool ipv6 = host.find(':') != std::string::npos;
  return "tcp://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// Resolves host:port; the caller frees the list with freeaddrinfo.
Status Resolve(const std::string& host, uint16_t port, bool passive, addrinfo** out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (passive) hints.ai_flags = AI_PASSIVE;
  const std::string service = std::to_string(port);
  const int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, out);
  if (rc != 0) {
    return Status::Error(StatusCode::kIoError, "%s: cannot resolve host: %s",
                         Url(host, port).c_str(), ::gai_strerror(rc));
  }
  return Status::Ok();
}

void SetNoDelay(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // frames are small: no batching
}

// Connects a non-blocking socket within the timeout; returns 0 or an errno value.
int ConnectWithTimeout(int fd, const sockaddr* address, socklen_t length, int timeout_ms) {
  if (::connect(fd, address, length) == 0) return 0;
  if (errno != EINPROGRESS) return errno;
  pollfd p{fd, POLLOUT, 0};
  const int ready = ::poll(&p, 1, timeout_ms);
  if (ready == 0) return ETIMEDOUT;
  if (ready < 0) return errno;
  int error = 0;
  socklen_t size = sizeof error;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0) return errno;
  return error;
}

}  // namespace

TcpClientTransport::TcpClientTransport(std::string host, uint16_t port)
    : host_(std::move(host)), port_(port) {}

TcpClientTransport::~TcpClientTransport() {
  Close();
}

Status TcpClientTransport::Open() {
  Close();
  addrinfo* list = nullptr;
  TS_RETURN_IF_ERROR(Resolve(host_, port_, false, &list));
  int last_error = ECONNREFUSED;
  for (addrinfo* a = list; a != nullptr && fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_error = errno;
      continue;
    }
    last_error = ConnectWithTimeout(fd, a->ai_addr, a->ai_addrlen, kConnectTimeoutMs);
    if (last_error == 0) {
      SetNoDelay(fd);
      fd_ = fd;
    } else {
      posix_io::CloseFd(&fd);
    }
  }
  ::freeaddrinfo(list);
  if (fd_ < 0) return posix_io::ErrnoStatus(last_error, "connect to", Url(host_, port_));
  return Status::Ok();
}

void TcpClientTransport::Close() {
  posix_io::CloseFd(&fd_);
}

Status TcpClientTransport::Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) {
  return posix_io::ReadSome(fd_, data, capacity, timeout_ms, Url(host_, port_), received);
}

Status TcpClientTransport::Write(const uint8_t* data, size_t size) {
  return posix_io::WriteAll(fd_, data, size, kTransportWriteTimeoutMs, true, Url(host_, port_));
}

std::string TcpClientTransport::Describe() const {
  return Url(host_, port_);
}

TcpServerTransport::TcpServerTransport(std::string host, uint16_t port)
    : host_(std::move(host)), port_(port) {}

TcpServerTransport::~TcpServerTransport() {
  Close();
}

Status TcpServerTransport::Open() {
  Close();
  addrinfo* list = nullptr;
  TS_RETURN_IF_ERROR(Resolve(host_, port_, true, &list));
  int last_error = EADDRNOTAVAIL;
  for (addrinfo* a = list; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_error = errno;
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 1) == 0) {
      listen_fd_ = fd;
    } else {
      last_error = errno;
      posix_io::CloseFd(&fd);
    }
  }
  ::freeaddrinfo(list);
  if (listen_fd_ < 0) return posix_io::ErrnoStatus(last_error, "listen on", Url(host_, port_));
  sockaddr_storage bound{};
  socklen_t size = sizeof bound;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &size);
  bound_port_ =
      ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return Status::Ok();
}

void TcpServerTransport::Close() {
  posix_io::CloseFd(&client_fd_);
  posix_io::CloseFd(&listen_fd_);
}

void TcpServerTransport::DisconnectClient() {
  posix_io::CloseFd(&client_fd_);
}

Status TcpServerTransport::AcceptClient(int timeout_ms) {
  if (listen_fd_ < 0) {
    return Status::Error(StatusCode::kIoError, "%s: not listening", Describe().c_str());
  }
  if (client_fd_ >= 0) return Status::Ok();
  pollfd p{listen_fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, timeout_ms < 0 ? 0 : timeout_ms);
  if (ready <= 0) return Status::Ok();
  const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return Status::Ok();
    return posix_io::ErrnoStatus(errno, "accept on", Describe());
  }
  SetNoDelay(fd);
  client_fd_ = fd;
  return Status::Ok();
}

Status TcpServerTransport::Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) {
  *received = 0;
  if (client_fd_ < 0) {
    TS_RETURN_IF_ERROR(AcceptClient(timeout_ms));
    if (client_fd_ < 0) return Status::Ok();
    timeout_ms = 0;  // the wait was spent on the client; just look for data
  }
  Status status = posix_io::ReadSome(client_fd_, data, capacity, timeout_ms, Describe(), received);
  if (!status.ok()) {
    posix_io::CloseFd(&client_fd_);  // the cable was pulled; the next client may plug in
    *received = 0;
  }
  return Status::Ok();
}

Status TcpServerTransport::Write(const uint8_t* data, size_t size) {
  if (client_fd_ < 0) return Status::Ok();
  Status status =
      posix_io::WriteAll(client_fd_, data, size, kTransportWriteTimeoutMs, true, Describe());
  if (!status.ok()) posix_io::CloseFd(&client_fd_);
  return Status::Ok();
}

std::string TcpServerTransport::Describe() const {
  return "listening on " + Url(host_, bound_port_ ? bound_port_ : port_);
}

}  // namespace trainscope
