// SPDX-License-Identifier: Apache-2.0
//
// The app's live device reader against a hostile board: a TCP peer that streams, as fast as the
// socket takes them, frames with valid CRCs whose contents are crafted or random - model
// announcements claiming 2^32-1 ops, names for every id with the longest text, pauses naming
// tensor 2^31-1, runs of random payloads of every board type. The reader must keep running and
// the whole process must stay under 200 MB.
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/messages.h"
#include "serial/protocol/wire_format.h"
#include "ui/session/session_snapshot.h"
#include "ui/session/sources/device_event_source.h"

namespace trainscope {
namespace {

constexpr int kStreamMs = 4000;
constexpr long kMaxResidentKiB = 200 * 1024;

long PeakResidentKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;  // KiB on Linux
}

// Frames a hostile board sends: every other one crafted to claim too much, the rest random.
class HostileFrames {
 public:
  explicit HostileFrames(uint32_t seed) : random_(seed) {}

  size_t Next(uint8_t* out, size_t capacity) {
    ++count_;
    switch (count_ % 8) {
      case 0: {
        wire::ModelAnnounceMessage announce;
        announce.model_hash = random_();
        announce.op_count = 0xFFFFFFFFu;
        announce.tensor_count = 0xFFFFFFFFu;
        announce.first_op = static_cast<uint32_t>(random_() % 4) * wire::kMaxOpsPerAnnounce;
        announce.entry_count = wire::kMaxOpsPerAnnounce;
        return encoder_.Encode(announce, out, capacity);
      }
      case 2: {
        wire::InternNameMessage name;
        name.kind = (random_() & 1) != 0 ? wire::NameKind::kTensor : wire::NameKind::kOperator;
        name.id = static_cast<uint32_t>(random_());
        const std::string text(wire::kMaxInternedNameBytes, static_cast<char>('a' + count_ % 26));
        name.name.Assign(text.c_str());
        return encoder_.Encode(name, out, capacity);
      }
      case 4: {
        wire::RunStateMessage state;
        state.state = wire::RunStateKind::kPaused;
        state.reason = (random_() & 1) != 0 ? wire::PauseReason::kNanInfBreakpoint
                                            : wire::PauseReason::kGradientBreakpoint;
        state.tensor = 0x7FFFFFFF;
        state.op_index = 0xFFFFFFFFu;
        state.transition = static_cast<uint32_t>(count_);
        return encoder_.Encode(state, out, capacity);
      }
      case 6: {
        wire::LogMessage log;
        log.level = wire::LogLevel::kError;
        const std::string text(wire::kMaxLogTextBytes, '!');
        log.text.Assign(text.c_str());
        return encoder_.Encode(log, out, capacity);
      }
      default: {
        static const wire::MessageType kTypes[] = {
            wire::MessageType::kHello,         wire::MessageType::kModelAnnounce,
            wire::MessageType::kInternName,    wire::MessageType::kHeartbeat,
            wire::MessageType::kAck,           wire::MessageType::kRunState,
            wire::MessageType::kSample,        wire::MessageType::kOptimizerStep,
            wire::MessageType::kForwardOp,     wire::MessageType::kBackwardStep,
            wire::MessageType::kMemory,        wire::MessageType::kMemorySummary,
            wire::MessageType::kGradientStats, wire::MessageType::kUpdateRatio,
            wire::MessageType::kLoss,          wire::MessageType::kMetric};
        const wire::MessageType type = kTypes[random_() % (sizeof kTypes / sizeof kTypes[0])];
        uint8_t payload[wire::kMaxPayloadBytes];
        const size_t size = random_() % (wire::MaxPayloadSize(type) + 1);
        for (size_t i = 0; i < size; ++i) payload[i] = static_cast<uint8_t>(random_());
        return encoder_.EncodeRaw(type, static_cast<uint8_t>(random_() & 1), payload, size, out,
                                  capacity);
      }
    }
  }

 private:
  std::mt19937 random_;
  wire::FrameEncoder encoder_;
  uint64_t count_ = 0;
};

// Listens on 127.0.0.1, accepts one desktop at a time, and streams hostile frames until stopped.
class HostileBoard {
 public:
  HostileBoard() {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(listener_, 1) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      return;
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~HostileBoard() {
    stop_ = true;
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    if (thread_.joinable()) thread_.join();
  }

  uint16_t port() const { return port_; }
  uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  void Serve() {
    HostileFrames frames(7);
    std::vector<uint8_t> chunk;
    while (!stop_) {
      const int peer = accept(listener_, nullptr, nullptr);
      if (peer < 0) return;
      timeval timeout{0, 100000};
      setsockopt(peer, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
      while (!stop_) {
        chunk.clear();
        uint8_t frame[wire::kMaxWireFrameBytes];
        while (chunk.size() < 16384) {
          const size_t n = frames.Next(frame, sizeof frame);
          chunk.insert(chunk.end(), frame, frame + n);
        }
        const ssize_t sent = send(peer, chunk.data(), chunk.size(), MSG_NOSIGNAL);
        if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) break;
        if (sent > 0) bytes_sent_ += static_cast<uint64_t>(sent);
      }
      close(peer);
    }
  }

  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> bytes_sent_{0};
  std::thread thread_;
};

}  // namespace

class HostileBoardTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void theLiveReaderStaysBoundedOnAHostileStream() {
    HostileBoard board;
    QVERIFY(board.port() != 0);
    auto store = std::make_shared<SessionStore>();
    DeviceEventSource source(store);
    const Status opened = source.open(QStringLiteral("tcp://127.0.0.1:%1").arg(board.port()));
    QVERIFY2(opened.ok(), opened.message());
    QElapsedTimer timer;
    timer.start();
    // At least kStreamMs, and on a loaded machine (sanitizers, an emulator beside it) longer,
    // until the stream is as hostile as required.
    constexpr uint64_t kHostileBytes = 10u * 1000u * 1000u;
    while (timer.elapsed() < kStreamMs ||
           (board.bytes_sent() <= kHostileBytes && timer.elapsed() < 6 * kStreamMs)) {
      QTest::qWait(50);
      const auto snapshot = store->snapshot();  // what the views read, as often as they do
      QVERIFY(snapshot != nullptr);
    }
    const LinkHealth health = source.health();
    source.close();
    const long peak = PeakResidentKiB();
    qInfo("hostile board: %.1f MB sent, %llu frames ok, %llu malformed; peak RSS %.1f MB",
          static_cast<double>(board.bytes_sent()) / 1e6,
          static_cast<unsigned long long>(health.frames_ok),
          static_cast<unsigned long long>(health.malformed), static_cast<double>(peak) / 1024.0);
    QVERIFY2(board.bytes_sent() > kHostileBytes, "the stream was not hostile enough");
    QVERIFY(health.frames_ok > 10000);
    QVERIFY2(peak < kMaxResidentKiB, qPrintable(QStringLiteral("peak RSS %1 KiB").arg(peak)));
  }
};

}  // namespace trainscope

QTEST_MAIN(trainscope::HostileBoardTest)
#include "hostile_board_test.moc"
