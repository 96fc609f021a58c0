// SPDX-License-Identifier: Apache-2.0
#include "serial/transport/posix_io.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace trainscope::posix_io {
namespace {

const char* Hint(int error) {
  switch (error) {
    case EACCES:
    case EPERM:
      return ": add your user to the dialout group (sudo usermod -aG dialout $USER), then log out "
             "and back in";
    case ENOENT:
      return ": no such device; is the board connected, and is the name right?";
    case EBUSY:
      return ": the port is in use by another program (serial monitor, ModemManager?)";
    case ENXIO:
    case ENODEV:
      return ": the device is gone; was the board unplugged or reset?";
    case EIO:
      return ": the other end was closed or the device disappeared";
    case ECONNREFUSED:
      return ": nothing is listening there; start ser2net, QEMU (-serial tcp::PORT,server) or the "
             "board simulator first";
    case ETIMEDOUT:
    case EHOSTUNREACH:
    case ENETUNREACH:
      return ": the host cannot be reached; check the address and the network";
    case EADDRINUSE:
      return ": the port is taken; pick another one or stop the other server";
    case ENOTTY:
      return ": not a terminal device";
    default:
      return "";
  }
}

}  // namespace

Status ErrnoStatus(int error, const std::string& action, const std::string& target) {
  return Status::Error(StatusCode::kIoError, "%s %s: %s%s", action.c_str(), target.c_str(),
                       std::strerror(error), Hint(error));
}

Status ReadSome(int fd, uint8_t* data, size_t capacity, int timeout_ms, const std::string& target,
                size_t* received) {
  *received = 0;
  if (fd < 0) return Status::Error(StatusCode::kIoError, "read %s: not open", target.c_str());
  if (capacity == 0) return Status::Ok();
  pollfd p{fd, POLLIN, 0};
  const int ready = ::poll(&p, 1, timeout_ms < 0 ? 0 : timeout_ms);
  if (ready < 0) return errno == EINTR ? Status::Ok() : ErrnoStatus(errno, "poll", target);
  if (ready == 0) return Status::Ok();
  const ssize_t n = ::read(fd, data, capacity);
  if (n > 0) {
    *received = static_cast<size_t>(n);
    return Status::Ok();
  }
  if (n == 0) {
    return Status::Error(StatusCode::kIoError, "read %s: the other end closed the connection",
                         target.c_str());
  }
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return Status::Ok();
  return ErrnoStatus(errno, "read", target);
}

Status WriteAll(int fd, const uint8_t* data, size_t size, int timeout_ms, bool is_socket,
                const std::string& target) {
  if (fd < 0) return Status::Error(StatusCode::kIoError, "write %s: not open", target.c_str());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = is_socket ? ::send(fd, data + done, size - done, MSG_NOSIGNAL)
                                : ::write(fd, data + done, size - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
      return ErrnoStatus(errno, "write", target);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return Status::Error(StatusCode::kIoError,
                           "write %s: timed out after %d ms with %zu of %zu bytes written; is the "
                           "other side reading?",
                           target.c_str(), timeout_ms, done, size);
    }
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) < 0 && errno != EINTR) {
      return ErrnoStatus(errno, "poll", target);
    }
  }
  return Status::Ok();
}

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

}  // namespace trainscope::posix_io
