// SPDX-License-Identifier: Apache-2.0
//
// DeviceEventSource: a board (or the board simulator) behind a serial port, a pty or TCP as an
// EventSource. A reader thread owns the transport: it records every received byte to a trace
// file (when asked), decodes frames into training events, and hands them to the SessionStore at
// most every kPublishIntervalMs, always before a state change so a paused view is complete.
//
// Commands are requests to the board. pause/resume/step*/setTrainability are queued, sent by the
// reader thread, and the state changes only when the board says so (RUN_STATE); a command the
// board refuses (ACK other than OK) or leaves unanswered for kCommandTimeoutMs becomes
// errorOccurred() with the reason. setTrainability is sent as the SET_TRAINABILITY commands that
// turn the announced trained set into the requested one; the board applies them at its next
// optimizer step and announces the model again, which modelAnnounced() reports.
//
// An unplugged link (transport error, EOF, or kSilenceLimitMs without a good frame) is retried
// with a growing backoff; "link lost ... reconnecting" and "reconnected ..." arrive as status
// messages in the store, the board is asked for HELLO and its model again, and decoding resumes.
// setEndpoint() redirects the retries (a pty that came back under a new path). stop() ends the
// session: the board keeps training, as boards do.
//
// Breakpoints (setBreakpoints) become SET_BREAKPOINT commands (device_breakpoints.h: clear every
// op breakpoint, set each watched op, then enable or disable each other kind), sent by the reader
// thread before any queued command and sent again after every (re)connection, so a board that
// restarted gets them back. Each is confirmed by its ACK; a refusal (e.g. NO_ROOM past the
// board's op breakpoints, INVALID_ARGUMENT for an op past the model) becomes errorOccurred()
// naming the breakpoint, and the other commands still apply. Kinds the wire cannot express (a
// gradient threshold on the L2 norm: boards compare max |g|; a budget above 4 GiB - 1) are
// reported at once and left disabled on the board. A board without the BREAKPOINTS capability
// gets nothing and setBreakpoints() returns false. When the board pauses for a breakpoint, its
// RUN_STATE carries the reason, op, tensor, max |g| and bytes; the other details DescribeHit()
// shows are taken from the events that preceded it (see HitFromRunState). The reason text goes
// to the store as a warning, the state becomes paused, then breakpointHit(reason, op) is emitted,
// as the local source does.
//
// Lives on the GUI thread; health() and announcedModel() may be called from any thread.
//
//   auto source = new DeviceEventSource(store, this);
//   if (Status s = source->open("tcp://127.0.0.1:5555", "run.tstrace"); !s.ok()) Show(s);
//   window.setEventSource(source);
#pragma once

#include <QString>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/status.h"
#include "serial/protocol/messages.h"
#include "ui/session/announced_model.h"
#include "ui/session/sources/event_source.h"
#include "ui/session/sources/link_health.h"

namespace trainscope {

class Transport;
class TraceWriter;

class DeviceEventSource : public EventSource {
  Q_OBJECT

 public:
  static constexpr int kPublishIntervalMs = 30;
  static constexpr int kCommandTimeoutMs = 3000;
  static constexpr int kSilenceLimitMs =
      static_cast<int>(wire::kHeartbeatPeriodMs * wire::kHeartbeatMissesBeforeSilent);
  static constexpr int kFirstRetryMs = 100;
  static constexpr int kMaxRetryMs = 2000;

  explicit DeviceEventSource(std::shared_ptr<SessionStore> store, QObject* parent = nullptr);
  ~DeviceEventSource() override;

  // Opens the endpoint (endpoint.h syntax, e.g. "/dev/ttyACM0@921600", "tcp://host:port") and
  // starts reading. With `record_path`, every received byte goes to that trace file. Fails, and
  // leaves the source closed, when the port or the file cannot be opened; the message says why.
  Status open(const QString& endpoint, const QString& record_path = QString());
  // Stops reading and closes the link and the recording; the state becomes stopped.
  void close();
  bool isOpen() const { return reader_ != nullptr; }

  // Where retries connect; takes effect at the next (re)connection.
  void setEndpoint(const QString& endpoint);
  QString endpoint() const;
  // Drops the link and connects again now (Device > Reconnect).
  void reconnect();

  // The set last given to setBreakpoints(), as the app holds it (before translation).
  BreakpointSet breakpoints() const;

  LinkHealth health() const;
  bool hasModel() const;
  AnnouncedModel announcedModel() const;
  QString description() const override;
  QString tensorValuesUnavailable() const override {
    return QStringLiteral(
        "the board agent sends no tensor values; open the same model in the embedded engine to "
        "inspect them");
  }
  // From the board's reported activity: "board finished training: …", "board idle: …", "board
  // halted …"; while it finished, halted or waits for a desktop it takes no run command.
  QString stateText() const override;
  QString commandsUnavailable() const override;

 public Q_SLOTS:
  void start() override;
  void pause() override;
  void resume() override;
  void stepBackwardOp() override;
  void stepSample() override;
  void stepBatch() override;
  void stop() override;
  void setTrainability(uint32_t last_n, const std::map<uint16_t, TrainRank>& ranks) override;
  // True when the board takes breakpoints (or has not said yet): the set is kept and sent, now
  // or at the next connection; what it cannot express was reported through errorOccurred().
  bool setBreakpoints(const trainscope::BreakpointSet& breakpoints) override;

 Q_SIGNALS:
  // The board announced (again) a complete model; announcedModel() has it.
  void modelAnnounced();
  void connectionChanged(bool connected);

 private:
  class Reader;  // the reader thread's side (device_link_reader.cpp)
  friend class Reader;

  struct QueuedCommand {
    wire::MessageType type = wire::MessageType::kPing;
    wire::SetTrainabilityCommand trainability;  // for kSetTrainability
  };

  void sendCommand(wire::MessageType type);
  bool enqueue(const QueuedCommand& command);
  void report(const QString& message);  // errorOccurred + a status message in the store

  std::unique_ptr<Reader> reader_;
  std::thread thread_;

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable wake_;
  bool quit_ = false;
  bool reconnect_now_ = false;
  QString endpoint_;
  std::deque<QueuedCommand> queue_;
  BreakpointSet breakpoints_;
  std::vector<wire::SetBreakpointCommand> breakpoint_commands_;  // what the board should hold
  bool breakpoints_unsent_ = false;  // the reader sends breakpoint_commands_ and clears it
  LinkHealth health_;
  bool has_model_ = false;
  AnnouncedModel model_;
  wire::BoardActivity activity_ = wire::BoardActivity::kUnknown;
  QString activity_text_;  // what the board's activity means, for the status bar
};

}  // namespace trainscope
