// SPDX-License-Identifier: Apache-2.0
//
// The reader thread of a DeviceEventSource (internal). It owns the transport, the trace writer
// and the protocol state; it shares only the source's mutex-guarded fields (command queue,
// endpoint, health, announced model). Everything here runs on that one thread, except the
// constructor, which the GUI thread calls before the thread starts. What the board still owes
// an answer for is kept by PendingCommands (pending_commands.h).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "serial/link/announcement_requests.h"
#include "serial/link/link_stream.h"
#include "serial/protocol/message_router.h"
#include "serial/trace/trace_file.h"
#include "serial/transport/transport.h"
#include "ui/session/announced_model.h"
#include "ui/session/event_collector.h"
#include "ui/session/sources/device_breakpoints.h"
#include "ui/session/sources/device_event_source.h"
#include "ui/session/sources/pending_commands.h"

namespace trainscope {

class DeviceEventSource::Reader final : public EventCollector, public wire::LinkHandler {
 public:
  using Clock = LinkStream::Clock;

  Reader(DeviceEventSource* owner, std::unique_ptr<Transport> link,
         std::unique_ptr<TraceWriter> record);
  ~Reader() override;

  // The thread's body: returns once the owner sets quit_.
  void Run();

  void OnBackwardStep(const BackwardStepEvent& event) override;
  void OnGradientStats(const GradientStatsEvent& event) override;
  void OnMemorySummary(const MemorySummaryEvent& event) override;
  void OnHello(const wire::HelloMessage& hello) override;
  void OnModelAnnounce(const wire::ModelAnnounceMessage& announce) override;
  void OnInternName(const wire::InternNameMessage& name) override;
  void OnLog(const wire::LogMessage& log) override;
  void OnHeartbeat(const wire::HeartbeatMessage& heartbeat) override;
  void OnDeviceMemory(const wire::DeviceMemoryMessage& memory) override;
  void OnLoss(const LossEvent& event) override;
  void OnAck(const wire::AckMessage& ack) override;
  void OnRunState(const wire::RunStateMessage& state) override;

 private:
  Status ReadOnce();
  Status SendQueued();
  Status Send(const DeviceEventSource::QueuedCommand& command);
  // SET_BREAKPOINT commands, each awaiting its ACK.
  Status SendBreakpoints(const std::vector<wire::SetBreakpointCommand>& commands);
  // After a (re)connection: the board may have restarted and forgotten them.
  void ResendBreakpointsLater();
  void BreakpointPause(const wire::RunStateMessage& state);
  void LinkLost(const std::string& reason);
  void Reconnect();
  void CheckTimeouts(Clock::time_point now);
  // Asks again for HELLO and MODEL_ANNOUNCE while the model is incomplete (a lost frame).
  Status RequestAnnouncementAgain(Clock::time_point now);
  void UpdateHealth(Clock::time_point now);
  void Publish();
  // A status message when the board's schedule changed stage (finished, halted, waiting).
  void ReportActivity(const wire::RunStateMessage& state);
  void Message(MessageLevel level, const QString& text);
  void Refused(const QString& text);

  DeviceEventSource* owner_;
  std::unique_ptr<Transport> link_;
  std::unique_ptr<TraceWriter> record_;
  LinkStream stream_;  // decodes into this collector and handler
  AnnouncedModelBuilder model_;
  RecentBreakpointEvents recent_;  // what a breakpoint pause refers to

  PendingCommands pending_{DeviceEventSource::kCommandTimeoutMs};
  uint64_t backward_ends_ = 0;  // in the collector, not yet published
  uint64_t published_backward_steps_ = 0;
  int64_t last_ack_latency_us_ = -1;
  uint32_t agent_drops_ = 0;
  uint64_t heartbeats_ = 0;
  bool has_device_memory_ = false;
  wire::BoardActivity activity_ = wire::BoardActivity::kUnknown;  // as last reported
  float last_loss_ = 0.0f;
  bool has_loss_ = false;
  wire::DeviceMemoryMessage device_memory_;
  uint32_t reconnects_ = 0;
  uint32_t last_transition_ = 0;  // of the last RUN_STATE acted on; 0 after (re)connecting
  AnnouncementRequests announcement_;
  int retry_ms_ = DeviceEventSource::kFirstRetryMs;
  std::string last_retry_error_;

  Clock::time_point last_publish_;
  Clock::time_point rate_window_start_;
  uint64_t rate_window_start_bytes_ = 0;  // counters().bytes when the window began
  double bytes_per_second_ = 0.0;
};

}  // namespace trainscope
