// SPDX-License-Identifier: Apache-2.0
#include "serial/transport/terminal_transport.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <utility>

#include "serial/transport/posix_io.h"

namespace trainscope {
namespace {

bool BaudConstant(uint32_t baud, speed_t* out) {
  struct Entry {
    uint32_t baud;
    speed_t constant;
  };
  static const Entry kRates[] = {
      {1200, B1200},       {2400, B2400},       {4800, B4800},       {9600, B9600},
      {19200, B19200},     {38400, B38400},     {57600, B57600},     {115200, B115200},
      {230400, B230400},   {460800, B460800},   {500000, B500000},   {576000, B576000},
      {921600, B921600},   {1000000, B1000000}, {1500000, B1500000}, {2000000, B2000000},
      {3000000, B3000000}, {4000000, B4000000},
  };
  for (const Entry& entry : kRates) {
    if (entry.baud == baud) {
      *out = entry.constant;
      return true;
    }
  }
  return false;
}

}  // namespace

TerminalTransport::TerminalTransport(std::string path, uint32_t baud_rate)
    : path_(std::move(path)), resolved_path_(path_), baud_rate_(baud_rate) {}

TerminalTransport::~TerminalTransport() {
  Close();
}

Status TerminalTransport::Open() {
  Close();
  speed_t speed = B115200;
  if (!BaudConstant(baud_rate_, &speed)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "%s: %u baud is not a standard rate (try 115200, 460800 or 921600)",
                         path_.c_str(), baud_rate_);
  }
  char resolved[PATH_MAX];
  if (::realpath(path_.c_str(), resolved) == nullptr) {
    return posix_io::ErrnoStatus(errno, "open", path_);
  }
  resolved_path_ = resolved;

  int fd = ::open(resolved, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return posix_io::ErrnoStatus(errno, "open", resolved_path_);
  termios tio{};
  if (!::isatty(fd) || ::tcgetattr(fd, &tio) != 0) {
    posix_io::CloseFd(&fd);
    return posix_io::ErrnoStatus(ENOTTY, "open", resolved_path_);
  }
  ::cfmakeraw(&tio);
  tio.c_cflag |= CLOCAL | CREAD;
  tio.c_cflag &= ~static_cast<tcflag_t>(CSTOPB | CRTSCTS | PARENB);
  tio.c_iflag &= ~static_cast<tcflag_t>(IXON | IXOFF | IXANY);
  tio.c_cc[VMIN] = 0;
  tio.c_cc[VTIME] = 0;
  ::cfsetispeed(&tio, speed);
  ::cfsetospeed(&tio, speed);
  if (::tcsetattr(fd, TCSANOW, &tio) != 0) {
    const int error = errno;
    posix_io::CloseFd(&fd);
    return posix_io::ErrnoStatus(error, "configure", resolved_path_);
  }
  ::ioctl(fd, TIOCEXCL);  // keep other programs off the port; harmless where unsupported
  fd_ = fd;
  return Status::Ok();
}

void TerminalTransport::Close() {
  if (fd_ >= 0) ::ioctl(fd_, TIOCNXCL);
  posix_io::CloseFd(&fd_);
}

Status TerminalTransport::Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) {
  return posix_io::ReadSome(fd_, data, capacity, timeout_ms, resolved_path_, received);
}

Status TerminalTransport::Write(const uint8_t* data, size_t size) {
  return posix_io::WriteAll(fd_, data, size, kTransportWriteTimeoutMs, false, resolved_path_);
}

std::string TerminalTransport::Describe() const {
  std::string text = "terminal " + resolved_path_;
  if (resolved_path_ != path_) text += " (" + path_ + ")";
  return text + " at " + std::to_string(baud_rate_) + " baud";
}

}  // namespace trainscope
