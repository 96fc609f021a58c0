// SPDX-License-Identifier: Apache-2.0
//
// EventBatch: a bundle of training events that a producer (engine thread, serial reader, replay)
// fills on its own and hands over whole to SessionStore::append(), so the store's lock is taken
// once per batch rather than once per event.
//
// The events are kept in one vector per struct, and `order` records the arrival order across the
// vectors: the store needs it because a sample boundary between two memory events changes which
// train step they belong to. Fill batches with add(), which keeps both in step:
//
//   EventBatch batch;
//   batch.add(SampleEvent{0, 1, 0, true});
//   batch.add(MemoryEvent{...});
//   store.append(std::move(batch));
//
// A batch whose `order` is empty (vectors filled directly) is applied vector by vector in the
// order of EventKind.
#pragma once

#include <QString>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/events.h"

namespace trainscope {

enum class MessageLevel : uint8_t { kInfo = 0, kWarning = 1, kError = 2 };

struct StatusMessage {
  MessageLevel level = MessageLevel::kInfo;
  QString text;
};

enum class EventKind : uint8_t {
  kSample = 0,
  kOptimizerStep,
  kForwardOp,
  kBackwardStep,
  kMemory,
  kMemorySummary,
  kGradientStats,
  kUpdateRatio,
  kLoss,
  kMetric,
  kStatus,
};

struct EventRef {
  EventKind kind = EventKind::kSample;
  uint32_t index = 0;  // position in the vector of that kind
};

struct EventBatch {
  std::vector<SampleEvent> samples;
  std::vector<OptimizerStepEvent> optimizer_steps;
  std::vector<ForwardOpEvent> forward_ops;
  std::vector<BackwardStepEvent> backward_steps;
  std::vector<MemoryEvent> memory;
  std::vector<MemorySummaryEvent> memory_summaries;
  std::vector<GradientStatsEvent> gradient_stats;
  std::vector<UpdateRatioEvent> update_ratios;
  std::vector<LossEvent> losses;
  std::vector<MetricEvent> metrics;
  std::vector<StatusMessage> messages;
  std::vector<EventRef> order;

  void add(const SampleEvent& event) { push(samples, event, EventKind::kSample); }
  void add(const OptimizerStepEvent& event) {
    push(optimizer_steps, event, EventKind::kOptimizerStep);
  }
  void add(const ForwardOpEvent& event) { push(forward_ops, event, EventKind::kForwardOp); }
  void add(const BackwardStepEvent& event) {
    push(backward_steps, event, EventKind::kBackwardStep);
  }
  void add(const MemoryEvent& event) { push(memory, event, EventKind::kMemory); }
  void add(const MemorySummaryEvent& event) {
    push(memory_summaries, event, EventKind::kMemorySummary);
  }
  void add(const GradientStatsEvent& event) {
    push(gradient_stats, event, EventKind::kGradientStats);
  }
  void add(const UpdateRatioEvent& event) { push(update_ratios, event, EventKind::kUpdateRatio); }
  void add(const LossEvent& event) { push(losses, event, EventKind::kLoss); }
  void add(const MetricEvent& event) { push(metrics, event, EventKind::kMetric); }
  void add(const StatusMessage& message) { push(messages, message, EventKind::kStatus); }

  size_t size() const;
  bool empty() const { return size() == 0; }
  void clear();

 private:
  template <typename T>
  void push(std::vector<T>& vector, const T& value, EventKind kind) {
    order.push_back(EventRef{kind, static_cast<uint32_t>(vector.size())});
    vector.push_back(value);
  }
};

}  // namespace trainscope
