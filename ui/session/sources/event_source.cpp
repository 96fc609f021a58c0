// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/event_source.h"

#include <utility>

namespace trainscope {

EventSource::EventSource(std::shared_ptr<SessionStore> store, QObject* parent)
    : QObject(parent), store_(store ? std::move(store) : std::make_shared<SessionStore>()) {
  // Sources answer tensor requests from their own threads: the snapshot crosses as a queued
  // signal argument.
  qRegisterMetaType<TensorValuesPtr>();
}

EventSource::~EventSource() = default;

void EventSource::setState(State state) {
  if (state_.exchange(state, std::memory_order_acq_rel) == state) return;
  Q_EMIT stateChanged(state);
}

void EventSource::setRecorder(std::shared_ptr<BatchRecorder> recorder) {
  std::lock_guard<std::mutex> lock(recorder_mutex_);
  recorder_ = std::move(recorder);
}

std::shared_ptr<BatchRecorder> EventSource::recorder() const {
  std::lock_guard<std::mutex> lock(recorder_mutex_);
  return recorder_;
}

void EventSource::publish(const EventBatch& batch) {
  if (batch.empty()) return;
  if (const std::shared_ptr<BatchRecorder> recording = recorder()) recording->record(batch);
  store_->append(batch);
  Q_EMIT dataReady();
}

bool EventSource::setBreakpoints(const BreakpointSet&) {
  Q_EMIT errorOccurred(
      QStringLiteral("breakpoints are not supported by this source (%1)").arg(description()));
  return false;
}

Status EventSource::restart() {
  const QString message =
      QStringLiteral("restarting is not supported by this source (%1)").arg(description());
  Q_EMIT errorOccurred(message);
  return Status::Error(StatusCode::kUnsupported, "%s", qPrintable(message));
}

void EventSource::requestTensorValues(const TensorRequest& request) {
  auto answer = std::make_shared<TensorValues>();
  answer->request = request;
  answer->unavailable = tensorValuesUnavailable();
  Q_EMIT tensorValuesReady(answer);
}

QString EventSource::tensorValuesUnavailable() const {
  return QStringLiteral("%1 sends no tensor values").arg(description());
}

QString EventSource::stateText() const {
  return StateName(state());
}

QString StateName(EventSource::State state) {
  switch (state) {
    case EventSource::State::kStopped:
      return QStringLiteral("stopped");
    case EventSource::State::kRunning:
      return QStringLiteral("running");
    case EventSource::State::kPaused:
      return QStringLiteral("paused");
  }
  return QStringLiteral("unknown");
}

}  // namespace trainscope
