// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/device_event_source.h"

#include <utility>

#include "serial/trace/trace_file.h"
#include "serial/transport/endpoint.h"
#include "ui/session/sources/device_breakpoints.h"
#include "ui/session/sources/device_link_reader.h"

namespace trainscope {

DeviceEventSource::DeviceEventSource(std::shared_ptr<SessionStore> store, QObject* parent)
    : EventSource(std::move(store), parent) {}

DeviceEventSource::~DeviceEventSource() {
  close();
}

Status DeviceEventSource::open(const QString& endpoint_text, const QString& record_path) {
  close();
  Endpoint endpoint;
  TS_RETURN_IF_ERROR(ParseEndpoint(endpoint_text.toStdString(), &endpoint));
  if (endpoint.kind == EndpointKind::kTcpServer) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "'%s' listens; a board is reached with tcp://HOST:PORT",
                         qPrintable(endpoint_text));
  }
  std::unique_ptr<Transport> link = CreateTransport(endpoint);
  TS_RETURN_IF_ERROR(link->Open());
  std::unique_ptr<TraceWriter> record;
  if (!record_path.isEmpty()) {
    record = std::make_unique<TraceWriter>();
    Status status = record->Create(record_path.toStdString(), 0);
    if (!status.ok()) return status.Prepend("recording");
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = false;
    reconnect_now_ = false;
    endpoint_ = endpoint_text;
    queue_.clear();
    health_ = LinkHealth{};
    health_.endpoint = endpoint_text;
    health_.connected = true;
    health_.transport = QString::fromStdString(link->Describe());
    has_model_ = false;
    model_ = AnnouncedModel{};
  }
  reader_ = std::make_unique<Reader>(this, std::move(link), std::move(record));
  thread_ = std::thread([reader = reader_.get()] { reader->Run(); });
  Q_EMIT connectionChanged(true);
  return Status::Ok();
}

void DeviceEventSource::close() {
  if (!reader_) {
    setState(State::kStopped);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  reader_.reset();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    health_.connected = false;
    health_.reconnecting = false;
    activity_ = wire::BoardActivity::kUnknown;
    activity_text_.clear();
    queue_.clear();
  }
  setState(State::kStopped);
  Q_EMIT connectionChanged(false);
}

void DeviceEventSource::setEndpoint(const QString& endpoint) {
  std::lock_guard<std::mutex> lock(mutex_);
  endpoint_ = endpoint;
  health_.endpoint = endpoint;
}

QString DeviceEventSource::endpoint() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return endpoint_;
}

void DeviceEventSource::reconnect() {
  if (!reader_) {
    start();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    reconnect_now_ = true;
  }
  wake_.notify_all();
}

LinkHealth DeviceEventSource::health() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return health_;
}

bool DeviceEventSource::hasModel() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return has_model_;
}

AnnouncedModel DeviceEventSource::announcedModel() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return model_;
}

QString DeviceEventSource::stateText() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (activity_text_.isEmpty() || activity_ == wire::BoardActivity::kTraining) {
    return StateName(state());
  }
  return activity_text_;
}

QString DeviceEventSource::commandsUnavailable() const {
  std::lock_guard<std::mutex> lock(mutex_);
  switch (activity_) {
    case wire::BoardActivity::kFinished:
      return QStringLiteral(
          "The board finished its schedule and takes no run commands; reset it "
          "(or start the simulator with --loop) to train again");
    case wire::BoardActivity::kHalted:
      return QStringLiteral(
          "The board halted (its log in Messages says why) and takes no run "
          "commands until it is reset");
    case wire::BoardActivity::kWaiting:
      return QStringLiteral(
          "The board waits for a desktop before it trains; it takes run "
          "commands once it started");
    case wire::BoardActivity::kTraining:
    case wire::BoardActivity::kUnknown:
      break;
  }
  return QString();
}

QString DeviceEventSource::description() const {
  return QStringLiteral("board on %1").arg(endpoint());
}

void DeviceEventSource::report(const QString& message) {
  EventBatch batch;
  batch.add(StatusMessage{MessageLevel::kError, message});
  publish(batch);
  Q_EMIT errorOccurred(message);
}

bool DeviceEventSource::enqueue(const QueuedCommand& command) {
  if (!reader_) {
    report(QStringLiteral("not connected to a board: use Device > Connect"));
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (health_.connected) {
      queue_.push_back(command);
      return true;
    }
  }
  report(QStringLiteral("the link to the board is down (reconnecting); %1 was not sent")
             .arg(QString::fromLatin1(wire::MessageTypeName(command.type))));
  return false;
}

void DeviceEventSource::sendCommand(wire::MessageType type) {
  QueuedCommand command;
  command.type = type;
  enqueue(command);
}

void DeviceEventSource::start() {
  if (!reader_) {
    const QString target = endpoint();
    if (target.isEmpty()) {
      report(QStringLiteral("no board endpoint: use Device > Connect"));
      return;
    }
    // Reconnecting after stop(): a recording is not restarted, it would truncate the old one.
    if (Status status = open(target); !status.ok()) report(QString::fromUtf8(status.message()));
    return;
  }
  if (state() == State::kPaused) sendCommand(wire::MessageType::kResume);
}

void DeviceEventSource::pause() {
  sendCommand(wire::MessageType::kPause);
}

void DeviceEventSource::resume() {
  sendCommand(wire::MessageType::kResume);
}

void DeviceEventSource::stepBackwardOp() {
  sendCommand(wire::MessageType::kStepBackwardOp);
}

void DeviceEventSource::stepSample() {
  sendCommand(wire::MessageType::kStepSample);
}

void DeviceEventSource::stepBatch() {
  sendCommand(wire::MessageType::kStepBatch);
}

void DeviceEventSource::stop() {
  close();
}

void DeviceEventSource::setTrainability(uint32_t last_n,
                                        const std::map<uint16_t, TrainRank>& ranks) {
  if (!hasModel()) {
    report(QStringLiteral("the board has not announced its model yet; trainability unchanged"));
    return;
  }
  const std::vector<wire::SetTrainabilityCommand> commands =
      PlanTrainabilityCommands(announcedModel().trainedOps(), last_n, ranks);
  for (const wire::SetTrainabilityCommand& change : commands) {
    QueuedCommand command;
    command.type = wire::MessageType::kSetTrainability;
    command.trainability = change;
    if (!enqueue(command)) return;
  }
}

BreakpointSet DeviceEventSource::breakpoints() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return breakpoints_;
}

bool DeviceEventSource::setBreakpoints(const BreakpointSet& breakpoints) {
  const LinkHealth link = health();
  // An agent name means HELLO arrived, so its capability bits are known.
  if (!link.agent.isEmpty() && (link.capabilities & wire::capability::kBreakpoints) == 0) {
    report(QStringLiteral("breakpoints are not supported by board '%1' (it does not advertise the "
                          "BREAKPOINTS capability)")
               .arg(link.agent));
    return false;
  }
  BreakpointPlan plan = PlanBreakpointCommands(breakpoints);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    breakpoints_ = breakpoints;
    breakpoint_commands_ = std::move(plan.commands);
    breakpoints_unsent_ = true;
  }
  wake_.notify_all();
  for (const QString& reason : plan.not_expressible) report(reason);
  return true;
}

}  // namespace trainscope
