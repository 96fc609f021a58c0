// SPDX-License-Identifier: Apache-2.0
#include "ui/session/event_source.h"

#include <utility>

namespace trainscope {

EventSource::EventSource(std::shared_ptr<TraceStore> store, QObject* parent)
    : QObject(parent), store_(store ? std::move(store) : std::make_shared<TraceStore>()) {}

EventSource::~EventSource() = default;

void EventSource::setState(State state) {
  if (state_.exchange(state, std::memory_order_acq_rel) == state) return;
  Q_EMIT stateChanged(state);
}

void EventSource::publish(const EventBatch& batch) {
  if (batch.empty()) return;
  store_->append(batch);
  Q_EMIT dataReady();
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
