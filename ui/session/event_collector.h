// SPDX-License-Identifier: Apache-2.0
//
// EventCollector: a TrainingObserver that appends every event it is told about to an EventBatch,
// in arrival order. Sources that receive engine events as observer calls (a wire::MessageRouter
// decoding a device link or a trace, the local trainer) collect them here and hand the batch
// to SessionStore::append() whole.
//
// Not thread-safe: one producer thread fills it, then take() moves the batch out.
//
//   EventCollector collector;
//   wire::MessageRouter router(&collector, &link_handler);
//   decoder.Push(bytes, n, &router);
//   store->append(collector.take());
#pragma once

#include "engine/core/events.h"
#include "ui/session/event_batch.h"

namespace trainscope {

class EventCollector : public TrainingObserver {
 public:
  void OnSample(const SampleEvent& event) override { batch_.add(event); }
  void OnOptimizerStep(const OptimizerStepEvent& event) override { batch_.add(event); }
  void OnForwardOp(const ForwardOpEvent& event) override { batch_.add(event); }
  void OnBackwardStep(const BackwardStepEvent& event) override { batch_.add(event); }
  void OnMemory(const MemoryEvent& event) override { batch_.add(event); }
  void OnMemorySummary(const MemorySummaryEvent& event) override { batch_.add(event); }
  void OnGradientStats(const GradientStatsEvent& event) override { batch_.add(event); }
  void OnUpdateRatio(const UpdateRatioEvent& event) override { batch_.add(event); }
  void OnLoss(const LossEvent& event) override { batch_.add(event); }
  void OnMetric(const MetricEvent& event) override { batch_.add(event); }

  void addMessage(MessageLevel level, const QString& text) {
    batch_.add(StatusMessage{level, text});
  }
  bool empty() const { return batch_.empty(); }
  size_t size() const { return batch_.size(); }
  // Moves the collected events out; the collector is empty afterwards.
  EventBatch take() {
    EventBatch out = std::move(batch_);
    batch_.clear();
    return out;
  }

 private:
  EventBatch batch_;
};

}  // namespace trainscope
