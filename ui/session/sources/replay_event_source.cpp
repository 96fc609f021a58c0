// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/replay_event_source.h"

#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <utility>

namespace trainscope {

ReplayEventSource::ReplayEventSource(std::shared_ptr<SessionStore> store, QObject* parent)
    : EventSource(std::move(store), parent), timer_(new QTimer(this)) {
  timer_->setInterval(kTickMs);
  connect(timer_, &QTimer::timeout, this, &ReplayEventSource::onTick);
}

ReplayEventSource::~ReplayEventSource() = default;

Status ReplayEventSource::open(const QString& path) {
  auto index = std::make_unique<TraceIndex>();
  TS_RETURN_IF_ERROR(IndexTrace(path, index.get()));
  timer_->stop();
  reader_.reset();
  index_ = std::move(index);
  reader_ = std::make_unique<TraceEventReader>(*index_);
  cursor_ = 0;
  store()->clear();
  setState(State::kStopped);
  Q_EMIT dataReady();
  Q_EMIT positionChanged();
  return Status::Ok();
}

const ReplaySkips& ReplayEventSource::skips() const {
  static const ReplaySkips kNone;
  return index_ ? index_->skips : kNone;
}

QString ReplayEventSource::description() const {
  return index_ ? QStringLiteral("replay of %1").arg(QFileInfo(index_->path).fileName())
                : QStringLiteral("replay (no trace)");
}

size_t ReplayEventSource::position() const {
  if (!index_) return 0;
  const auto& ends = index_->backward_ends;
  return static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), cursor_) - ends.begin());
}

size_t ReplayEventSource::totalBackwardSteps() const {
  return index_ ? index_->backward_ends.size() : 0;
}

size_t ReplayEventSource::eventCount() const {
  return index_ ? index_->eventCount() : 0;
}

void ReplayEventSource::setSpeed(double factor) {
  speed_ = std::clamp(std::isfinite(factor) ? factor : 1.0, 0.05, 1000.0);
}

void ReplayEventSource::moveTo(size_t target) {
  if (!index_) return;
  target = std::min(target, eventCount());
  if (target == cursor_) return;
  if (target < cursor_) {
    store()->clear();
    reader_->Seek(0);
    cursor_ = 0;
    if (target == 0) Q_EMIT dataReady();  // an empty prefix publishes nothing
  }
  // In slices, so that a long prefix never sits decoded in memory all at once.
  constexpr size_t kSlice = size_t{1} << 16;
  while (cursor_ < target) {
    const EventBatch slice = reader_->Read(std::min(kSlice, target - cursor_));
    if (slice.order.empty()) break;
    cursor_ += slice.order.size();
    publish(slice);
  }
  Q_EMIT positionChanged();
}

void ReplayEventSource::seekToBackwardStep(size_t n) {
  if (!index_) return;
  const auto& ends = index_->backward_ends;
  seekToEvent(n == 0 ? 0 : n > ends.size() || ends.empty() ? eventCount() : ends[n - 1]);
}

void ReplayEventSource::seekToEvent(size_t target) {
  moveTo(target);
  if (atEnd() && state() == State::kRunning) stop();
}

size_t ReplayEventSource::nextBoundary(const std::vector<size_t>& boundaries) const {
  const auto next = std::upper_bound(boundaries.begin(), boundaries.end(), cursor_);
  return next == boundaries.end() ? eventCount() : *next;
}

void ReplayEventSource::stepTo(size_t target) {
  if (!index_) {
    Q_EMIT errorOccurred(QStringLiteral("no trace is open"));
    return;
  }
  timer_->stop();
  moveTo(target);
  setState(atEnd() ? State::kStopped : State::kPaused);
}

void ReplayEventSource::stepBackwardOp() {
  if (index_)
    stepTo(nextBoundary(index_->backward_ends));
  else
    stepTo(0);
}

void ReplayEventSource::stepSample() {
  if (index_)
    stepTo(nextBoundary(index_->sample_ends));
  else
    stepTo(0);
}

void ReplayEventSource::stepBatch() {
  if (index_)
    stepTo(nextBoundary(index_->optimizer_steps));
  else
    stepTo(0);
}

void ReplayEventSource::start() {
  if (!index_) {
    Q_EMIT errorOccurred(QStringLiteral("no trace is open"));
    return;
  }
  if (atEnd()) seekToEvent(0);
  step_budget_ = 0.0;
  since_tick_.start();
  timer_->start();
  setState(State::kRunning);
}

void ReplayEventSource::pause() {
  timer_->stop();
  if (state() == State::kRunning) setState(State::kPaused);
}

void ReplayEventSource::resume() {
  start();
}

void ReplayEventSource::stop() {
  timer_->stop();
  setState(State::kStopped);
}

void ReplayEventSource::setTrainability(uint32_t, const std::map<uint16_t, TrainRank>&) {
  Q_EMIT errorOccurred(QStringLiteral("a recorded session cannot change which layers train"));
}

void ReplayEventSource::onTick() {
  if (!index_) return stop();
  const double seconds = static_cast<double>(since_tick_.restart()) / 1000.0;
  step_budget_ += speed_ * kBaseStepsPerSecond * seconds;
  const double whole = std::floor(step_budget_);
  if (whole < 1.0) return;
  step_budget_ -= whole;
  const auto& ends = index_->backward_ends;
  const size_t first = position();
  const size_t steps = static_cast<size_t>(std::min(whole, 1e9));
  const size_t last = first + steps - 1;
  moveTo(last < ends.size() ? ends[last] : eventCount());
  if (atEnd()) stop();
}

}  // namespace trainscope
