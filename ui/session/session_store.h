// SPDX-License-Identifier: Apache-2.0
//
// SessionStore: where every event source delivers and every view reads. Producers call append()
// from any thread; the lock is held only while the batch is folded into the store's state.
// The GUI thread calls snapshot(), which returns the same immutable SessionSnapshot until the next
// append, so several views polling at 30 Hz share one snapshot per change.
//
// Everything is bounded (see Limits): series decimate with min/max envelopes, the gradient matrix
// merges old columns, the memory timeline keeps the latest train step only, messages keep the
// latest ones. What a bound discards is counted, never silently lost.
//
// A step may come without its per-op detail (a source thinning detail at full speed, a thinned
// recording): the op progress and the memory picture then stay those of the last step that had
// it, since a new sample's picture starts with its first per-op event, not with its begin.
//
//   auto store = std::make_shared<SessionStore>();
//   std::thread producer([&] { store->append(MakeBatch()); });       // any thread
//   std::shared_ptr<const SessionSnapshot> now = store->snapshot();      // GUI thread
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ui/session/event_batch.h"
#include "ui/session/session_snapshot.h"

namespace trainscope {

class SessionStore {
 public:
  struct Limits {
    size_t series_points = 2048;
    size_t non_finite_points = 1024;
    size_t gradient_columns = 256;
    size_t memory_events_per_step = size_t{1} << 17;
    size_t messages = 500;
    size_t max_ops = size_t{1} << 16;  // op indices beyond this are not tracked per op
  };

  SessionStore();
  explicit SessionStore(const Limits& limits);
  ~SessionStore();
  SessionStore(const SessionStore&) = delete;
  SessionStore& operator=(const SessionStore&) = delete;

  void append(const EventBatch& batch);
  // Forgets everything (a new session); the generation still grows.
  void clear();

  std::shared_ptr<const SessionSnapshot> snapshot() const;
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  const Limits& limits() const { return limits_; }

 private:
  struct State;

  void apply(const EventBatch& batch, const EventRef& ref);
  void onSample(const SampleEvent& event);
  void onOptimizerStep(const OptimizerStepEvent& event);
  void onForwardOp(const ForwardOpEvent& event);
  void onBackwardStep(const BackwardStepEvent& event);
  void onMemory(const MemoryEvent& event);
  void onMemorySummary(const MemorySummaryEvent& event);
  void onGradientStats(const GradientStatsEvent& event);
  void onUpdateRatio(const UpdateRatioEvent& event);
  void onLoss(const LossEvent& event);
  void onMetric(const MetricEvent& event);
  void onMessage(const StatusMessage& message);
  void startNewTrainStep();
  // A sample's op progress starts with its first per-op event, a step's memory picture with its
  // first memory event, not with their begin.
  void beginPendingPictures(bool memory_event);
  void followTick(uint32_t tick);
  OpActivity* opActivity(uint32_t op_index);
  LiveMemoryTimeline& memory();

  const Limits limits_;
  mutable std::mutex mutex_;
  std::unique_ptr<State> state_;
  mutable std::shared_ptr<const SessionSnapshot> cached_;
  std::atomic<uint64_t> generation_{0};
};

}  // namespace trainscope
