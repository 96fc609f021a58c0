// SPDX-License-Identifier: Apache-2.0
#include "ui/session/session_store.h"

#include <algorithm>
#include <cmath>

namespace trainscope {
namespace {

// Copy-on-write: a part still referenced by a snapshot is cloned before the store changes it.
// Only the store (under its lock) hands out new references, so use_count() == 1 is stable.
template <typename T>
T& Unshare(std::shared_ptr<T>& part) {
  if (part.use_count() > 1) part = std::make_shared<T>(*part);
  return *part;
}

}  // namespace

struct SessionStore::State {
  explicit State(const Limits& limits)
      : memory(std::make_shared<LiveMemoryTimeline>(limits.memory_events_per_step)),
        gradients(std::make_shared<GradientMatrix>(limits.gradient_columns)),
        loss(std::make_shared<DecimatedSeries>(limits.series_points, limits.non_finite_points)),
        messages(std::make_shared<std::vector<StatusMessage>>()) {}

  uint64_t events_total = 0;
  BackwardProgress progress;
  std::vector<OpActivity> ops;
  std::shared_ptr<LiveMemoryTimeline> memory;
  uint64_t previous_step_peak = 0;
  uint32_t previous_step_last_tick = 0;
  uint64_t run_peak = 0;
  // A sample or step began: its per-op picture replaces the last one with its first per-op
  // event, so a step reported without detail leaves the last detailed one on screen.
  bool sample_picture_pending = false;
  bool step_picture_pending = false;
  std::shared_ptr<GradientMatrix> gradients;
  std::map<int32_t, TensorGradient> tensors;
  uint32_t latest_gradient_step = 0;
  // The latest optimizer step that carried gradient statistics and has ended: a tensor without
  // statistics in it was not trained there. Not simply the latest step: a step reported without
  // its per-op detail carries none, for any tensor.
  uint32_t latest_step_with_stats = 0;
  uint64_t gradient_nan_total = 0;
  uint64_t gradient_inf_total = 0;
  std::shared_ptr<DecimatedSeries> loss;
  uint64_t loss_count = 0;
  std::map<uint8_t, std::shared_ptr<DecimatedSeries>> metrics;
  std::shared_ptr<std::vector<StatusMessage>> messages;
  uint64_t messages_dropped = 0;
};

SessionStore::SessionStore() : SessionStore(Limits()) {}

SessionStore::SessionStore(const Limits& limits)
    : limits_(limits), state_(std::make_unique<State>(limits)) {}

SessionStore::~SessionStore() = default;

void SessionStore::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = std::make_unique<State>(limits_);
  cached_.reset();
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

void SessionStore::append(const EventBatch& batch) {
  if (batch.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  // The cached snapshot is stale from here on; dropping it lets parts that no view holds any
  // more be changed in place instead of copied.
  cached_.reset();
  if (!batch.order.empty()) {
    for (const EventRef& ref : batch.order) apply(batch, ref);
  } else {
    // No recorded order: apply kind by kind, in EventKind order.
    auto apply_all = [&](EventKind kind, size_t count) {
      for (size_t i = 0; i < count; ++i) apply(batch, EventRef{kind, static_cast<uint32_t>(i)});
    };
    apply_all(EventKind::kSample, batch.samples.size());
    apply_all(EventKind::kOptimizerStep, batch.optimizer_steps.size());
    apply_all(EventKind::kForwardOp, batch.forward_ops.size());
    apply_all(EventKind::kBackwardStep, batch.backward_steps.size());
    apply_all(EventKind::kMemory, batch.memory.size());
    apply_all(EventKind::kMemorySummary, batch.memory_summaries.size());
    apply_all(EventKind::kGradientStats, batch.gradient_stats.size());
    apply_all(EventKind::kUpdateRatio, batch.update_ratios.size());
    apply_all(EventKind::kLoss, batch.losses.size());
    apply_all(EventKind::kMetric, batch.metrics.size());
    apply_all(EventKind::kStatus, batch.messages.size());
  }
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

void SessionStore::apply(const EventBatch& batch, const EventRef& ref) {
  const size_t i = ref.index;
  // An order entry pointing past its vector (a hand-built batch) is skipped, not trusted.
  auto valid = [i](const auto& vector) { return i < vector.size(); };
  ++state_->events_total;
  switch (ref.kind) {
    case EventKind::kSample:
      if (valid(batch.samples)) onSample(batch.samples[i]);
      break;
    case EventKind::kOptimizerStep:
      if (valid(batch.optimizer_steps)) onOptimizerStep(batch.optimizer_steps[i]);
      break;
    case EventKind::kForwardOp:
      if (valid(batch.forward_ops)) onForwardOp(batch.forward_ops[i]);
      break;
    case EventKind::kBackwardStep:
      if (valid(batch.backward_steps)) onBackwardStep(batch.backward_steps[i]);
      break;
    case EventKind::kMemory:
      if (valid(batch.memory)) onMemory(batch.memory[i]);
      break;
    case EventKind::kMemorySummary:
      if (valid(batch.memory_summaries)) onMemorySummary(batch.memory_summaries[i]);
      break;
    case EventKind::kGradientStats:
      if (valid(batch.gradient_stats)) onGradientStats(batch.gradient_stats[i]);
      break;
    case EventKind::kUpdateRatio:
      if (valid(batch.update_ratios)) onUpdateRatio(batch.update_ratios[i]);
      break;
    case EventKind::kLoss:
      if (valid(batch.losses)) onLoss(batch.losses[i]);
      break;
    case EventKind::kMetric:
      if (valid(batch.metrics)) onMetric(batch.metrics[i]);
      break;
    case EventKind::kStatus:
      if (valid(batch.messages)) onMessage(batch.messages[i]);
      break;
  }
}

OpActivity* SessionStore::opActivity(uint32_t op_index) {
  if (op_index >= limits_.max_ops) return nullptr;
  std::vector<OpActivity>& ops = state_->ops;
  if (op_index >= ops.size()) ops.resize(size_t{op_index} + 1);
  return &ops[op_index];
}

LiveMemoryTimeline& SessionStore::memory() {
  return Unshare(state_->memory);
}

void SessionStore::startNewTrainStep() {
  if (state_->memory->empty()) return;
  state_->previous_step_peak = state_->memory->peakBytes();
  state_->previous_step_last_tick = state_->memory->lastTick();
  state_->memory = std::make_shared<LiveMemoryTimeline>(limits_.memory_events_per_step);
}

void SessionStore::onSample(const SampleEvent& event) {
  BackwardProgress& progress = state_->progress;
  progress.epoch = event.epoch;
  progress.optimizer_step = event.optimizer_step;
  progress.sample = event.sample;
  progress.in_sample = event.begin;
  if (!event.begin) return;
  ++progress.samples_started;
  state_->sample_picture_pending = true;
  // The memory picture spans the optimizer step: a later sample adds to the first one's.
  if (event.sample == 0) state_->step_picture_pending = true;
}

void SessionStore::beginPendingPictures(bool memory_event) {
  if (state_->sample_picture_pending) {
    state_->sample_picture_pending = false;
    BackwardProgress& progress = state_->progress;
    progress.phase = Phase::kForward;
    progress.forward_ops_done = 0;
    progress.has_backward_step = false;
    progress.backward_step_running = false;
    progress.done_ops.clear();
  }
  // Op events alone (a step whose detail was turned on half way) leave the memory picture.
  if (memory_event && state_->step_picture_pending) {
    state_->step_picture_pending = false;
    startNewTrainStep();
  }
}

void SessionStore::onOptimizerStep(const OptimizerStepEvent& event) {
  BackwardProgress& progress = state_->progress;
  progress.phase = Phase::kOptimizer;
  progress.epoch = event.epoch;
  progress.last_optimizer_step = event.optimizer_step;
  if (state_->latest_gradient_step == event.optimizer_step) {
    state_->latest_step_with_stats = event.optimizer_step;
  }
}

void SessionStore::onForwardOp(const ForwardOpEvent& event) {
  beginPendingPictures(/*memory_event=*/false);
  BackwardProgress& progress = state_->progress;
  progress.phase = Phase::kForward;
  ++progress.forward_ops_done;
  if (OpActivity* op = opActivity(event.op_index)) {
    op->seen_forward = true;
    op->forward_ns = event.duration_ns;
  }
}

void SessionStore::onBackwardStep(const BackwardStepEvent& event) {
  beginPendingPictures(/*memory_event=*/false);
  BackwardProgress& progress = state_->progress;
  progress.phase = Phase::kBackward;
  progress.has_backward_step = true;
  progress.backward_step = event.step;
  progress.op_index = event.op_index;
  progress.opcode = event.opcode;
  progress.backward_step_running = event.begin;
  OpActivity* op = opActivity(event.op_index);
  if (op) {
    op->seen_backward = true;
    op->trainable = event.trainable;
    op->rank = event.rank;
    op->is_last_layer = event.is_last_layer;
  }
  if (event.begin) return;
  if (op) op->backward_ns = event.duration_ns;
  std::vector<uint32_t>& done = progress.done_ops;
  if (std::find(done.begin(), done.end(), event.op_index) == done.end() &&
      done.size() < limits_.max_ops) {
    done.push_back(event.op_index);
  }
}

// Ticks restart at 0 with every train step (a step without a sample marker still separates);
// a later sample of a batch runs the second sample's ticks again.
void SessionStore::followTick(uint32_t tick) {
  if (state_->memory->empty() || tick >= state_->memory->lastTick()) return;
  if (tick == 0) {
    startNewTrainStep();
  } else {
    memory().rewindTo(tick);
  }
}

void SessionStore::onMemory(const MemoryEvent& event) {
  beginPendingPictures(/*memory_event=*/true);
  followTick(event.tick);
  LiveMemoryTimeline& timeline = memory();
  timeline.add(event);
  state_->run_peak = std::max(state_->run_peak, timeline.peakBytes());
}

void SessionStore::onMemorySummary(const MemorySummaryEvent& event) {
  beginPendingPictures(/*memory_event=*/true);
  followTick(event.tick);
  memory().add(event);
  state_->run_peak = std::max(state_->run_peak, event.peak_bytes);
}

void SessionStore::onGradientStats(const GradientStatsEvent& event) {
  Unshare(state_->gradients).add(event);
  TensorGradient& entry = state_->tensors[event.tensor];
  entry.tensor = event.tensor;
  entry.op_index = event.op_index;
  entry.has_stats = true;
  entry.stats = event;
  entry.nan_total += event.nan_count;
  entry.inf_total += event.inf_count;
  state_->gradient_nan_total += event.nan_count;
  state_->gradient_inf_total += event.inf_count;
  state_->latest_gradient_step = std::max(state_->latest_gradient_step, event.optimizer_step);
}

void SessionStore::onUpdateRatio(const UpdateRatioEvent& event) {
  Unshare(state_->gradients).add(event);
  TensorGradient& entry = state_->tensors[event.tensor];
  entry.tensor = event.tensor;
  entry.has_ratio = true;
  entry.ratio = event;
}

void SessionStore::onLoss(const LossEvent& event) {
  ++state_->loss_count;
  Unshare(state_->loss).append(static_cast<double>(state_->loss_count), event.value);
}

void SessionStore::onMetric(const MetricEvent& event) {
  std::shared_ptr<DecimatedSeries>& series = state_->metrics[event.metric];
  if (!series) {
    series = std::make_shared<DecimatedSeries>(limits_.series_points, limits_.non_finite_points);
  }
  Unshare(series).append(static_cast<double>(event.epoch), event.value);
}

void SessionStore::onMessage(const StatusMessage& message) {
  std::vector<StatusMessage>& messages = Unshare(state_->messages);
  if (limits_.messages == 0) {
    ++state_->messages_dropped;
    return;
  }
  if (messages.size() >= limits_.messages) {
    messages.erase(messages.begin());
    ++state_->messages_dropped;
  }
  messages.push_back(message);
}

std::shared_ptr<const SessionSnapshot> SessionStore::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t generation = generation_.load(std::memory_order_acquire);
  if (cached_ && cached_->generation == generation) return cached_;

  auto snapshot = std::make_shared<SessionSnapshot>();
  const State& state = *state_;
  snapshot->generation = generation;
  snapshot->events_total = state.events_total;
  snapshot->progress = state.progress;
  snapshot->ops = state.ops;
  snapshot->memory = state.memory;
  snapshot->previous_step_peak_bytes = state.previous_step_peak;
  snapshot->previous_step_last_tick = state.previous_step_last_tick;
  snapshot->run_peak_bytes = state.run_peak;
  snapshot->gradients = state.gradients;
  snapshot->tensors.reserve(state.tensors.size());
  for (const auto& [tensor, entry] : state.tensors) {
    snapshot->tensors.push_back(entry);
    snapshot->tensors.back().frozen =
        entry.has_stats && entry.stats.optimizer_step < state.latest_step_with_stats;
  }
  std::sort(snapshot->tensors.begin(), snapshot->tensors.end(), [](const auto& a, const auto& b) {
    return a.op_index != b.op_index ? a.op_index < b.op_index : a.tensor < b.tensor;
  });
  snapshot->latest_gradient_step = state.latest_gradient_step;
  snapshot->gradient_nan_total = state.gradient_nan_total;
  snapshot->gradient_inf_total = state.gradient_inf_total;
  snapshot->loss = state.loss;
  for (const auto& [kind, series] : state.metrics) snapshot->metrics[kind] = series;
  snapshot->messages = state.messages;
  snapshot->messages_dropped = state.messages_dropped;
  cached_ = snapshot;
  return cached_;
}

}  // namespace trainscope
