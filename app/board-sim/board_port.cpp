// SPDX-License-Identifier: Apache-2.0
#include "app/board-sim/board_port.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>

#include "serial/transport/posix_io.h"
#include "serial/transport/tcp_transport.h"

namespace trainscope {
namespace {

using Clock = std::chrono::steady_clock;

class PtyPort final : public BoardPort {
 public:
  ~PtyPort() override {
    posix_io::CloseFd(&slave_);
    posix_io::CloseFd(&master_);
  }

  Status Open() override {
    master_ = ::posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (master_ < 0) return posix_io::ErrnoStatus(errno, "create", "a pseudo-terminal");
    char name[PATH_MAX] = {};
    if (::grantpt(master_) != 0 || ::unlockpt(master_) != 0 ||
        ::ptsname_r(master_, name, sizeof name) != 0) {
      return posix_io::ErrnoStatus(errno, "set up", "the pseudo-terminal");
    }
    path_ = name;
    // Holding the slave open keeps the path alive between desktops, and gives a handle to undo
    // what a desktop that died left on the terminal (see kPtyAbandonedAfterMs).
    slave_ = ::open(name, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (slave_ < 0) return posix_io::ErrnoStatus(errno, "open", path_);
    termios tio{};
    if (::tcgetattr(slave_, &tio) != 0) return posix_io::ErrnoStatus(errno, "configure", path_);
    ::cfmakeraw(&tio);  // no echo: the board must never read its own frames back
    if (::tcsetattr(slave_, TCSANOW, &tio) != 0) {
      return posix_io::ErrnoStatus(errno, "configure", path_);
    }
    return Status::Ok();
  }

  std::string Address() const override { return "pty: " + path_; }

  Status Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) override {
    TS_RETURN_IF_ERROR(posix_io::ReadSome(master_, data, capacity, timeout_ms, path_, received));
    if (*received > 0 && !peer_) {
      // A pty cannot tell whether anyone has it open; a desktop that talks certainly has.
      peer_ = true;
      new_peer_ = true;
    }
    return Status::Ok();
  }

  size_t WriteSome(const uint8_t* data, size_t size) override {
    if (!peer_ || size == 0) return size;  // nobody listens: the bytes are lost, as on a UART
    const ssize_t n = ::write(master_, data, size);
    if (n > 0) {
      stalled_ = false;
      return static_cast<size_t>(n);
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return size;
    const Clock::time_point now = Clock::now();
    if (!stalled_) {
      stalled_ = true;
      stalled_since_ = now;
      return 0;
    }
    if (now - stalled_since_ < std::chrono::milliseconds(kPtyAbandonedAfterMs)) return 0;
    // Nobody has read for a long time: the desktop is gone. Drop what is queued, together with
    // these bytes, so the next desktop starts at a frame boundary.
    ::tcflush(slave_, TCIFLUSH);
    ::ioctl(slave_, TIOCNXCL);
    stalled_ = false;
    peer_ = false;
    return size;
  }

  void Unplug() override { peer_ = false; }  // what already went out still arrives

  bool TakeNewPeer() override {
    const bool fresh = new_peer_;
    new_peer_ = false;
    return fresh;
  }

  bool connected() const override { return peer_; }

 private:
  int master_ = -1;
  int slave_ = -1;
  std::string path_;
  bool peer_ = false;  // a desktop talked since the start, the last Unplug or abandonment
  bool new_peer_ = false;
  bool stalled_ = false;
  Clock::time_point stalled_since_;
};

class TcpPort final : public BoardPort {
 public:
  explicit TcpPort(uint16_t port) : server_("127.0.0.1", port) {}

  Status Open() override { return server_.Open(); }

  std::string Address() const override {
    return "tcp: 127.0.0.1:" + std::to_string(server_.bound_port());
  }

  Status Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) override {
    const bool had_client = server_.has_client();
    TS_RETURN_IF_ERROR(server_.Read(data, capacity, timeout_ms, received));
    if (!had_client && server_.has_client()) new_peer_ = true;
    return Status::Ok();
  }

  size_t WriteSome(const uint8_t* data, size_t size) override {
    // Whole or nothing: the server drops a client whose socket stays full (it stopped reading).
    if (server_.has_client()) static_cast<void>(server_.Write(data, size));
    return size;
  }

  void Unplug() override { server_.DisconnectClient(); }

  bool TakeNewPeer() override {
    const bool fresh = new_peer_;
    new_peer_ = false;
    return fresh;
  }

  bool connected() const override { return server_.has_client(); }

 private:
  TcpServerTransport server_;
  bool new_peer_ = false;
};

}  // namespace

std::unique_ptr<BoardPort> CreatePtyPort() {
  return std::make_unique<PtyPort>();
}

std::unique_ptr<BoardPort> CreateTcpPort(uint16_t port) {
  return std::make_unique<TcpPort>(port);
}

}  // namespace trainscope
