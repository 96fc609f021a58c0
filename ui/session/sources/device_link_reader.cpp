// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/device_link_reader.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "serial/transport/endpoint.h"

namespace trainscope {
namespace {

constexpr int kReadTimeoutMs = 10;  // also how quickly queued commands and quit are noticed
constexpr int kRateWindowMs = 1000;

int64_t ElapsedMs(std::chrono::steady_clock::time_point from,
                  std::chrono::steady_clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

}  // namespace

DeviceEventSource::Reader::Reader(DeviceEventSource* owner, std::unique_ptr<Transport> link,
                                  std::unique_ptr<TraceWriter> record)
    : owner_(owner), link_(std::move(link)), record_(std::move(record)), stream_(this, this) {}

DeviceEventSource::Reader::~Reader() {
  if (link_) link_->Close();
  if (record_) record_->Close();
}

void DeviceEventSource::Reader::Run() {
  const Clock::time_point start = Clock::now();
  last_publish_ = rate_window_start_ = start;
  Status status = Send({wire::MessageType::kRequestHello, {}});
  if (!status.ok()) LinkLost(status.message());
  ResendBreakpointsLater();
  for (;;) {
    bool reconnect_requested = false;
    {
      std::lock_guard<std::mutex> lock(owner_->mutex_);
      if (owner_->quit_) break;
      reconnect_requested = owner_->reconnect_now_ && link_ != nullptr;
      if (reconnect_requested) owner_->reconnect_now_ = false;
    }
    if (reconnect_requested) {
      LinkLost("reconnect requested");
      retry_ms_ = 0;
    }
    if (!link_) {
      Reconnect();
      continue;
    }
    status = SendQueued();
    if (status.ok()) status = pending_.Resend(Clock::now(), link_.get());
    if (status.ok()) status = RequestAnnouncementAgain(Clock::now());
    if (status.ok()) status = ReadOnce();
    const Clock::time_point now = Clock::now();
    if (!status.ok()) {
      LinkLost(status.message());
    } else if (ElapsedMs(stream_.last_frame_time(), now) > DeviceEventSource::kSilenceLimitMs) {
      LinkLost("no frame from the board for " +
               std::to_string(DeviceEventSource::kSilenceLimitMs / 1000) + " s");
    }
    CheckTimeouts(now);
    if (ElapsedMs(last_publish_, now) >= DeviceEventSource::kPublishIntervalMs) Publish();
    UpdateHealth(now);
  }
  Publish();
}

Status DeviceEventSource::Reader::ReadOnce() {
  // The live view matters more than the file: keep decoding when recording fails, say so once.
  const bool was_recording = !stream_.recording_failed();
  TS_RETURN_IF_ERROR(stream_.Pump(link_.get(), kReadTimeoutMs, record_.get(),
                                  LinkStream::RecordingFailure::kKeepDecoding));
  if (was_recording && stream_.recording_failed()) {
    Message(MessageLevel::kError, QStringLiteral("recording stopped: %1")
                                      .arg(QString::fromStdString(stream_.recording_error())));
  }
  return Status::Ok();
}

Status DeviceEventSource::Reader::SendQueued() {
  std::vector<DeviceEventSource::QueuedCommand> commands;
  std::vector<wire::SetBreakpointCommand> breakpoints;
  uint32_t capabilities = 0;
  QString agent;
  {
    // Taken together so a breakpoint change is never overtaken by a RESUME queued after it.
    std::lock_guard<std::mutex> lock(owner_->mutex_);
    commands.assign(owner_->queue_.begin(), owner_->queue_.end());
    owner_->queue_.clear();
    if (owner_->breakpoints_unsent_) breakpoints = owner_->breakpoint_commands_;
    owner_->breakpoints_unsent_ = false;
    capabilities = owner_->health_.capabilities;
    agent = owner_->health_.agent;
  }
  // An agent name means HELLO arrived, so its capability bits are known.
  if (!breakpoints.empty() && !agent.isEmpty() &&
      (capabilities & wire::capability::kBreakpoints) == 0) {
    Refused(QStringLiteral("breakpoints were not sent: board '%1' does not advertise the "
                           "BREAKPOINTS capability")
                .arg(agent));
    breakpoints.clear();
  }
  TS_RETURN_IF_ERROR(SendBreakpoints(breakpoints));
  for (size_t i = 0; i < commands.size(); ++i) {
    Status status = Send(commands[i]);
    if (!status.ok()) {
      Refused(QStringLiteral("%1 was not sent: %2")
                  .arg(CommandName(commands[i].type), QString::fromUtf8(status.message())));
      return status;
    }
  }
  return Status::Ok();
}

Status DeviceEventSource::Reader::Send(const DeviceEventSource::QueuedCommand& command) {
  uint8_t bytes[LinkStream::kMaxCommandBytes];
  uint16_t id = 0;
  const size_t size = command.type == wire::MessageType::kSetTrainability
                          ? stream_.EncodeCommand(command.trainability, bytes, &id)
                          : stream_.EncodeCommand(wire::BasicCommand{command.type, 0}, bytes, &id);
  if (size == 0) {
    Refused(QStringLiteral("%1 cannot be encoded").arg(CommandName(command.type)));
    return Status::Ok();
  }
  TS_RETURN_IF_ERROR(link_->Write(bytes, size));
  const Clock::time_point now = Clock::now();
  pending_.Sent(id, command.type, bytes, size, now);
  if (command.type == wire::MessageType::kRequestHello) announcement_.Sent(now);
  return Status::Ok();
}

Status DeviceEventSource::Reader::SendBreakpoints(
    const std::vector<wire::SetBreakpointCommand>& commands) {
  for (const wire::SetBreakpointCommand& command : commands) {
    uint8_t bytes[LinkStream::kMaxCommandBytes];
    uint16_t id = 0;
    const size_t size = stream_.EncodeCommand(command, bytes, &id);
    if (size == 0) {
      Refused(QStringLiteral("SET_BREAKPOINT (%1) cannot be encoded")
                  .arg(DescribeBreakpointCommand(command)));
      continue;
    }
    TS_RETURN_IF_ERROR(link_->Write(bytes, size));
    pending_.Sent(id, wire::MessageType::kSetBreakpoint, bytes, size, Clock::now(),
                  DescribeBreakpointCommand(command));
  }
  return Status::Ok();
}

void DeviceEventSource::Reader::ResendBreakpointsLater() {
  std::lock_guard<std::mutex> lock(owner_->mutex_);
  if (!owner_->breakpoint_commands_.empty()) owner_->breakpoints_unsent_ = true;
}

void DeviceEventSource::Reader::LinkLost(const std::string& reason) {
  if (link_) link_->Close();
  link_.reset();
  const QString unanswered = pending_.AbandonAll();
  if (!unanswered.isEmpty()) Refused(unanswered);
  Message(MessageLevel::kWarning,
          QStringLiteral("link lost (%1), reconnecting").arg(QString::fromStdString(reason)));
  Publish();
  retry_ms_ = DeviceEventSource::kFirstRetryMs;
  last_retry_error_.clear();
  UpdateHealth(Clock::now());
  Q_EMIT owner_->connectionChanged(false);
}

void DeviceEventSource::Reader::Reconnect() {
  QString endpoint;
  {
    std::unique_lock<std::mutex> lock(owner_->mutex_);
    owner_->wake_.wait_for(lock, std::chrono::milliseconds(retry_ms_),
                           [this] { return owner_->quit_ || owner_->reconnect_now_; });
    if (owner_->quit_) return;
    owner_->reconnect_now_ = false;
    endpoint = owner_->endpoint_;
  }
  std::unique_ptr<Transport> link;
  Status status = OpenEndpoint(endpoint.toStdString(), &link);
  if (!status.ok()) {
    retry_ms_ = std::min(std::max(retry_ms_, DeviceEventSource::kFirstRetryMs) * 2,
                         DeviceEventSource::kMaxRetryMs);
    if (status.message() != last_retry_error_) {
      last_retry_error_ = status.message();
      Message(MessageLevel::kInfo,
              QStringLiteral("still reconnecting: %1").arg(QString::fromUtf8(status.message())));
      Publish();
    }
    return;
  }
  link_ = std::move(link);
  stream_.Restart();
  recent_ = RecentBreakpointEvents{};         // a restarted board's next pause refers to new events
  last_transition_ = 0;                       // the board's next repeat tells us its state
  activity_ = wire::BoardActivity::kUnknown;  // and its activity
  {
    std::lock_guard<std::mutex> lock(owner_->mutex_);
    owner_->activity_ = wire::BoardActivity::kUnknown;
    owner_->activity_text_.clear();
  }
  announcement_.Reset();
  ++reconnects_;
  if (record_ && !stream_.recording_failed()) {
    // A delimiter between the two connections: replaying the trace drops the torn frame the
    // lost link left behind, as the live decoder just did, instead of gluing it to the next.
    const uint8_t delimiter = 0;
    static_cast<void>(record_->Append(&delimiter, 1));
  }
  Message(MessageLevel::kInfo,
          QStringLiteral("reconnected to %1").arg(QString::fromStdString(link_->Describe())));
  Publish();
  UpdateHealth(Clock::now());
  Q_EMIT owner_->connectionChanged(true);
  status = Send({wire::MessageType::kRequestHello, {}});
  if (!status.ok()) LinkLost(status.message());
  ResendBreakpointsLater();
}

void DeviceEventSource::Reader::CheckTimeouts(Clock::time_point now) {
  for (const QString& text : pending_.TakeExpired(now)) Refused(text);
}

Status DeviceEventSource::Reader::RequestAnnouncementAgain(Clock::time_point now) {
  if (!announcement_.Due(now, model_.complete(), stream_.counters().frames_ok > 0,
                         pending_.awaiting(wire::MessageType::kRequestHello))) {
    return Status::Ok();
  }
  return Send({wire::MessageType::kRequestHello, {}});
}

void DeviceEventSource::Reader::UpdateHealth(Clock::time_point now) {
  const int64_t window = ElapsedMs(rate_window_start_, now);
  if (window >= kRateWindowMs) {
    const uint64_t bytes = stream_.counters().bytes;
    bytes_per_second_ = static_cast<double>(bytes - rate_window_start_bytes_) * 1000.0 /
                        static_cast<double>(window);
    rate_window_start_bytes_ = bytes;
    rate_window_start_ = now;
  }
  const wire::LinkCounters& counters = stream_.counters();
  std::lock_guard<std::mutex> lock(owner_->mutex_);
  LinkHealth& health = owner_->health_;
  health.connected = link_ != nullptr;
  health.reconnecting = link_ == nullptr;
  if (link_) health.transport = QString::fromStdString(link_->Describe());
  health.bytes = counters.bytes;
  health.bytes_per_second = bytes_per_second_;
  health.frames_ok = counters.frames_ok;
  health.frames_bad = stream_.frames_bad();
  health.frames_dropped = counters.frames_dropped;
  health.malformed = stream_.malformed();
  health.agent_drops = agent_drops_;
  health.heartbeats = heartbeats_;
  health.has_device_memory = has_device_memory_;
  health.device_memory = device_memory_;
  health.last_ack_latency_us = last_ack_latency_us_;
  health.commands_resent = pending_.resent();
  health.unsolicited_acks = pending_.unsolicited_acks();
  health.reconnects = reconnects_;
  health.ms_since_last_frame =
      counters.frames_ok > 0 ? ElapsedMs(stream_.last_frame_time(), now) : -1;
}

void DeviceEventSource::Reader::Publish() {
  last_publish_ = Clock::now();
  if (empty()) return;
  EventBatch batch = take();
  const bool training = batch.size() > batch.messages.size();
  owner_->publish(batch);
  published_backward_steps_ += backward_ends_;
  backward_ends_ = 0;
  {
    std::lock_guard<std::mutex> lock(owner_->mutex_);
    owner_->health_.backward_steps = published_backward_steps_;
  }
  // A board that streams events is running, whether or not a RUN_STATE said so yet.
  if (training && owner_->state() == State::kStopped) owner_->setState(State::kRunning);
}

void DeviceEventSource::Reader::Message(MessageLevel level, const QString& text) {
  addMessage(level, text);
}

void DeviceEventSource::Reader::Refused(const QString& text) {
  Message(MessageLevel::kError, text);
  Q_EMIT owner_->errorOccurred(text);
}

void DeviceEventSource::Reader::OnBackwardStep(const BackwardStepEvent& event) {
  if (event.begin) {
    recent_.backward_begin = event;
  } else {
    ++backward_ends_;
  }
  EventCollector::OnBackwardStep(event);
}

void DeviceEventSource::Reader::OnGradientStats(const GradientStatsEvent& event) {
  recent_.gradient = event;
  EventCollector::OnGradientStats(event);
}

void DeviceEventSource::Reader::OnMemorySummary(const MemorySummaryEvent& event) {
  recent_.summary = event;
  EventCollector::OnMemorySummary(event);
}

void DeviceEventSource::Reader::OnHello(const wire::HelloMessage& hello) {
  const QString agent = QString::fromUtf8(hello.agent_name.c_str(), hello.agent_name.size);
  {
    std::lock_guard<std::mutex> lock(owner_->mutex_);
    owner_->health_.agent = agent;
    owner_->health_.capabilities = hello.capabilities;
  }
  Message(MessageLevel::kInfo,
          QStringLiteral("board '%1' (protocol %2)").arg(agent).arg(hello.protocol_version));
  if (hello.protocol_version > wire::kProtocolVersion) {
    Message(MessageLevel::kWarning,
            QStringLiteral("the board speaks protocol %1, newer than %2: what this version does "
                           "not know is skipped")
                .arg(hello.protocol_version)
                .arg(wire::kProtocolVersion));
  }
}

void DeviceEventSource::Reader::OnModelAnnounce(const wire::ModelAnnounceMessage& announce) {
  if (!model_.Add(announce)) {
    Message(MessageLevel::kWarning,
            QStringLiteral("ignored a MODEL_ANNOUNCE whose ops lie past its op count"));
    return;
  }
  if (!model_.complete()) return;
  const AnnouncedModel& model = model_.model();
  {
    std::lock_guard<std::mutex> lock(owner_->mutex_);
    owner_->model_ = model;
    owner_->has_model_ = true;
  }
  if (record_ && record_->is_open()) {
    static_cast<void>(record_->SetModelHash(model.hash));  // the header is a hint only
  }
  Message(MessageLevel::kInfo, QStringLiteral("model %1: %2 ops, %3 trained")
                                   .arg(model.hash, 16, 16, QLatin1Char('0'))
                                   .arg(model.op_count)
                                   .arg(model.trainedOps().size()));
  Publish();
  Q_EMIT owner_->modelAnnounced();
}

void DeviceEventSource::Reader::OnInternName(const wire::InternNameMessage& name) {
  model_.AddName(name);
  if (!model_.complete()) return;
  std::lock_guard<std::mutex> lock(owner_->mutex_);
  owner_->model_.op_names = model_.model().op_names;
  owner_->model_.tensor_names = model_.model().tensor_names;
}

void DeviceEventSource::Reader::OnLog(const wire::LogMessage& log) {
  const MessageLevel level = log.level == wire::LogLevel::kError     ? MessageLevel::kError
                             : log.level == wire::LogLevel::kWarning ? MessageLevel::kWarning
                                                                     : MessageLevel::kInfo;
  Message(level,
          QStringLiteral("board: %1").arg(QString::fromUtf8(log.text.c_str(), log.text.size)));
}

void DeviceEventSource::Reader::OnHeartbeat(const wire::HeartbeatMessage& heartbeat) {
  agent_drops_ = heartbeat.dropped_frames;
  ++heartbeats_;
}

void DeviceEventSource::Reader::OnDeviceMemory(const wire::DeviceMemoryMessage& memory) {
  has_device_memory_ = true;
  device_memory_ = memory;
}

void DeviceEventSource::Reader::OnAck(const wire::AckMessage& ack) {
  const PendingCommands::AckMatch match = pending_.Acknowledge(ack, Clock::now());
  if (match.latency_us >= 0) last_ack_latency_us_ = match.latency_us;
  if (match.attempts == 0) {
    // Nothing waits for it: a resent command's second answer, or one after its command expired.
    // Counted in the link health; a refusal is worth a note, not an error dialog.
    if (ack.result != wire::AckResult::kOk) {
      Message(MessageLevel::kWarning,
              QStringLiteral("a late answer from the board: it refused %1: %2")
                  .arg(match.command, QString::fromLatin1(wire::AckResultName(ack.result))));
    }
    return;
  }
  if (ack.result != wire::AckResult::kOk) {
    Refused(QStringLiteral("the board refused %1: %2")
                .arg(match.command, QString::fromLatin1(wire::AckResultName(ack.result))));
  } else if (ack.command == wire::MessageType::kSetTrainability) {
    Message(MessageLevel::kInfo,
            QStringLiteral("the board accepted a trainability change; it applies at the next "
                           "optimizer step"));
  }
}

void DeviceEventSource::Reader::OnRunState(const wire::RunStateMessage& state) {
  // The board repeats its state with every heartbeat: act once per transition.
  if (state.transition != 0 && state.transition == last_transition_) return;
  last_transition_ = state.transition;
  Publish();  // the store holds every event before the state change when the GUI hears of it
  if (state.activity != activity_) {
    activity_ = state.activity;
    ReportActivity(state);
  }
  if (state.activity == wire::BoardActivity::kFinished ||
      state.activity == wire::BoardActivity::kHalted ||
      state.activity == wire::BoardActivity::kWaiting) {
    owner_->setState(State::kStopped);  // nothing to pause or step until it trains again
    return;
  }
  if (state.state != wire::RunStateKind::kPaused) {
    owner_->setState(State::kRunning);
    return;
  }
  BreakpointPause(state);
}

void DeviceEventSource::Reader::OnLoss(const LossEvent& event) {
  last_loss_ = event.value;
  has_loss_ = true;
  EventCollector::OnLoss(event);
}

void DeviceEventSource::Reader::ReportActivity(const wire::RunStateMessage& state) {
  QString text;
  switch (state.activity) {
    case wire::BoardActivity::kFinished:
      text =
          QStringLiteral("board finished training: %1 optimizer steps").arg(state.optimizer_step);
      if (has_loss_) text += QStringLiteral(", last loss %1").arg(static_cast<double>(last_loss_));
      Message(MessageLevel::kInfo, text);
      break;
    case wire::BoardActivity::kHalted:
      text = QStringLiteral("board stopped at optimizer step %1 (its log says why)")
                 .arg(state.optimizer_step);
      Message(MessageLevel::kError, text);
      break;
    case wire::BoardActivity::kWaiting:
      text = QStringLiteral("board idle: it starts training once connected");
      Message(MessageLevel::kInfo, text);
      break;
    case wire::BoardActivity::kTraining:
      text = QStringLiteral("board training");
      break;
    case wire::BoardActivity::kUnknown:
      break;
  }
  // Before the state change is signalled: the window reads it when it hears of the change.
  std::lock_guard<std::mutex> lock(owner_->mutex_);
  owner_->activity_ = state.activity;
  owner_->activity_text_ = text;
}

void DeviceEventSource::Reader::BreakpointPause(const wire::RunStateMessage& state) {
  BreakpointSet asked;
  bool has_model = false;
  AnnouncedModel model;
  {
    std::lock_guard<std::mutex> lock(owner_->mutex_);
    asked = owner_->breakpoints_;
    has_model = owner_->has_model_;
    if (has_model) model = owner_->model_;
  }
  const std::optional<BreakpointHit> hit =
      HitFromRunState(state, asked, recent_, has_model ? model.op_count : 0);
  if (!hit) {
    owner_->setState(State::kPaused);
    return;
  }
  const QString reason = DescribeDeviceHit(*hit, has_model ? &model : nullptr);
  Message(MessageLevel::kWarning, reason);
  Publish();
  owner_->setState(State::kPaused);
  Q_EMIT owner_->breakpointHit(reason, hit->op_index);
}

}  // namespace trainscope
