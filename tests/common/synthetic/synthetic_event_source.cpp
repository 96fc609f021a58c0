// SPDX-License-Identifier: Apache-2.0
#include "tests/common/synthetic/synthetic_event_source.h"

namespace trainscope {
namespace {
// A step command on a model whose trained range is empty would otherwise spin forever.
constexpr int kMaxUnitsPerCommand = 1 << 20;
}  // namespace

SyntheticEventSource::SyntheticEventSource(const Graph& graph, std::shared_ptr<SessionStore> store,
                                           const SyntheticOptions& options, QObject* parent)
    : EventSource(std::move(store), parent), graph_(graph), options_(options) {
  timer_.setInterval(30);
  connect(&timer_, &QTimer::timeout, this, &SyntheticEventSource::onTick);
}

SyntheticEventSource::~SyntheticEventSource() = default;

QString SyntheticEventSource::description() const {
  return QStringLiteral("synthetic stream");
}

bool SyntheticEventSource::ensureStream() {
  if (stream_) return true;
  if (graph_.subgraphs.empty() || graph_.main().operators.empty()) {
    Q_EMIT errorOccurred(tr("The model has no operators, so there is nothing to train."));
    return false;
  }
  stream_ = std::make_unique<SyntheticStream>(graph_.main(), options_);
  stream_->setTrainability(trainability_);
  return true;
}

void SyntheticEventSource::start() {
  if (state() == State::kRunning) return;
  if (state() == State::kStopped) {
    stream_.reset();
    store()->clear();
  }
  if (!ensureStream()) return;
  timer_.start();
  setState(State::kRunning);
}

void SyntheticEventSource::pause() {
  if (state() != State::kRunning) return;
  timer_.stop();
  setState(State::kPaused);
}

void SyntheticEventSource::resume() {
  if (state() == State::kStopped) {
    start();
    return;
  }
  if (!ensureStream()) return;
  timer_.start();
  setState(State::kRunning);
}

void SyntheticEventSource::stop() {
  timer_.stop();
  setState(State::kStopped);
}

void SyntheticEventSource::stepBackwardOp() {
  runUntil(SyntheticStream::Unit::kBackwardStep);
}
void SyntheticEventSource::stepSample() {
  runUntil(SyntheticStream::Unit::kSampleEnd);
}
void SyntheticEventSource::stepBatch() {
  runUntil(SyntheticStream::Unit::kOptimizerStep);
}

void SyntheticEventSource::setTrainability(uint32_t last_n,
                                           const std::map<uint16_t, TrainRank>& ranks) {
  trainability_.num_train_layers = last_n;
  trainability_.op_ranks = ranks;
  if (stream_) stream_->setTrainability(trainability_);
}

void SyntheticEventSource::runUntil(SyntheticStream::Unit target) {
  if (state() == State::kStopped) {
    stream_.reset();
    store()->clear();
  }
  if (!ensureStream()) return;
  timer_.stop();
  EventBatch batch;
  for (int i = 0; i < kMaxUnitsPerCommand; ++i) {
    if (stream_->next(&batch) == target) break;
  }
  publish(batch);
  setState(State::kPaused);
}

void SyntheticEventSource::onTick() {
  if (!stream_) return;
  EventBatch batch;
  for (int i = 0; i < units_per_tick_; ++i) stream_->next(&batch);
  publish(batch);
}

}  // namespace trainscope
