// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/trace_index.h"

#include <QStringList>

#include <algorithm>
#include <iterator>
#include <memory>

#include "serial/protocol/message_router.h"
#include "serial/protocol/stream_decoder.h"
#include "ui/session/event_collector.h"
#include "ui/session/sources/trace_event_reader.h"

namespace trainscope {
namespace {

// Counts events as an EventCollector stores them, handing them off every few thousand so that
// the index keeps none.
struct EventCounter {
  EventCollector collector;
  size_t handed_off = 0;
  size_t position() const { return handed_off + collector.size(); }
  void HandOff() {
    handed_off += collector.size();
    collector.take();
  }
};

// Link messages that matter to a replay: the announcement, names and logs.
class IndexLinkHandler final : public LogsToMessages {
 public:
  IndexLinkHandler(TraceIndex* index, EventCounter* counter)
      : LogsToMessages(&counter->collector), index_(index), counter_(counter) {}

  void OnHello(const wire::HelloMessage& hello) override {
    index_->agent_name = QString::fromUtf8(hello.agent_name.c_str());
  }
  void OnModelAnnounce(const wire::ModelAnnounceMessage& announce) override {
    if (!index_->announcement.Add(announce)) return;
    const std::vector<wire::OpSummary>& ops = index_->announcement.model().ops;
    // The frames of one announcement arrive with no event between them: the set at a position
    // is the one its last frame completes.
    TraceIndex::TrainedSet set;
    set.position = counter_->position();
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].trainable) set.ops[static_cast<uint16_t>(k)] = ops[k].rank;
    }
    auto& sets = index_->trained_sets;
    if (!sets.empty() && sets.back().position == set.position) {
      sets.back() = std::move(set);
    } else {
      sets.push_back(std::move(set));
    }
  }
  void OnInternName(const wire::InternNameMessage& message) override {
    index_->announcement.AddName(message);
  }

 private:
  TraceIndex* index_;
  EventCounter* counter_;
};

// Remembers where the boundaries are while the router counts the events.
class BoundaryTracker final : public TrainingObserver {
 public:
  BoundaryTracker(EventCounter* counter, TraceIndex* index)
      : collector_(&counter->collector), counter_(counter), index_(index) {}

  void OnSample(const SampleEvent& e) override {
    collector_->OnSample(e);
    if (!e.begin) index_->sample_ends.push_back(counter_->position());
  }
  void OnOptimizerStep(const OptimizerStepEvent& e) override {
    collector_->OnOptimizerStep(e);
    index_->optimizer_steps.push_back(counter_->position());
  }
  void OnBackwardStep(const BackwardStepEvent& e) override {
    collector_->OnBackwardStep(e);
    if (!e.begin) index_->backward_ends.push_back(counter_->position());
  }
  void OnForwardOp(const ForwardOpEvent& e) override { collector_->OnForwardOp(e); }
  void OnMemory(const MemoryEvent& e) override { collector_->OnMemory(e); }
  void OnMemorySummary(const MemorySummaryEvent& e) override { collector_->OnMemorySummary(e); }
  void OnGradientStats(const GradientStatsEvent& e) override { collector_->OnGradientStats(e); }
  void OnUpdateRatio(const UpdateRatioEvent& e) override { collector_->OnUpdateRatio(e); }
  void OnLoss(const LossEvent& e) override { collector_->OnLoss(e); }
  void OnMetric(const MetricEvent& e) override { collector_->OnMetric(e); }

 private:
  EventCollector* collector_;
  EventCounter* counter_;
  TraceIndex* index_;
};

Status IndexBytes(std::shared_ptr<const TraceBytes> bytes, const QString& name, TraceIndex* out) {
  *out = TraceIndex();
  out->path = name;
  const uint8_t* data = bytes->data();
  const size_t size = bytes->size();
  TS_RETURN_IF_ERROR(ParseTraceHeader(data, size, name.toStdString(), &out->header));
  const size_t start = std::min<size_t>(out->header.header_bytes, size);

  EventCounter counter;
  BoundaryTracker tracker(&counter, out);
  IndexLinkHandler link(out, &counter);
  wire::MessageRouter router(&tracker, &link);
  auto decoder = std::make_unique<wire::StreamDecoder>();
  size_t offset = start;
  size_t next_resume = 0;
  for (;;) {
    if (counter.position() >= next_resume) {
      out->resume_points.push_back({counter.position(), offset});
      next_resume = counter.position() + kTraceResumeEvery;
    }
    const size_t end = TraceFrameEnd(data, size, offset);
    if (end == 0) {
      decoder->Push(data + offset, size - offset, &router);  // a torn tail stays pending
      break;
    }
    decoder->Push(data + offset, end - offset, &router);
    offset = end;
    if (counter.collector.size() >= kTraceResumeEvery) counter.HandOff();
  }
  out->event_count = counter.position();
  out->bytes = std::move(bytes);

  const wire::LinkCounters& counters = decoder->counters();
  out->skips.frames_bad = counters.frames_bad;
  out->skips.frames_dropped = counters.frames_dropped;
  out->skips.unknown_types = counters.unknown_types;
  out->skips.malformed_payloads = router.malformed_payloads();
  out->skips.torn_tail_bytes = decoder->pending_bytes();
  if (out->skips.any()) {
    // First, so the user reads it as soon as the replay starts; every position moves along.
    out->has_skip_warning = true;
    out->skip_warning =
        StatusMessage{MessageLevel::kWarning,
                      QStringLiteral("replay of %1: %2").arg(name, out->skips.describe())};
    ++out->event_count;
    for (auto* positions : {&out->backward_ends, &out->sample_ends, &out->optimizer_steps}) {
      for (size_t& position : *positions) ++position;
    }
    for (TraceIndex::TrainedSet& set : out->trained_sets) ++set.position;
    for (TraceIndex::ResumePoint& point : out->resume_points) ++point.position;
  }
  return Status::Ok();
}

template <typename T>
void CopyEvent(const std::vector<T>& from, uint32_t index, EventBatch* to) {
  if (index < from.size()) to->add(from[index]);
}

}  // namespace

bool ReplaySkips::any() const {
  return frames_bad + frames_dropped + unknown_types + malformed_payloads + torn_tail_bytes > 0;
}

QString ReplaySkips::describe() const {
  QStringList parts;
  if (torn_tail_bytes > 0) {
    parts << QStringLiteral("1 torn frame (%1 bytes) at the end").arg(torn_tail_bytes);
  }
  if (frames_bad > 0) parts << QStringLiteral("%1 bad frames skipped").arg(frames_bad);
  if (frames_dropped > 0) parts << QStringLiteral("%1 frames missing").arg(frames_dropped);
  if (malformed_payloads > 0) {
    parts << QStringLiteral("%1 undecodable payloads skipped").arg(malformed_payloads);
  }
  if (unknown_types > 0) {
    parts << QStringLiteral("%1 frames of unknown types skipped").arg(unknown_types);
  }
  return parts.join(QStringLiteral(", "));
}

Status IndexTraceBytes(const uint8_t* data, size_t size, const QString& name, TraceIndex* out) {
  return IndexBytes(TraceBytes::Copy(data, size), name, out);
}

Status IndexTrace(const QString& path, TraceIndex* out) {
  std::shared_ptr<const TraceBytes> bytes;
  TS_RETURN_IF_ERROR(TraceBytes::Map(path, &bytes));
  return IndexBytes(std::move(bytes), path, out);
}

EventBatch SliceEvents(const EventBatch& all, size_t begin, size_t end) {
  EventBatch batch;
  AppendEvents(all, begin, end, &batch);
  return batch;
}

void AppendEvents(const EventBatch& all, size_t begin, size_t end, EventBatch* to) {
  EventBatch& batch = *to;
  end = std::min(end, all.order.size());
  for (size_t i = begin; i < end; ++i) {
    const EventRef& ref = all.order[i];
    switch (ref.kind) {
      case EventKind::kSample:
        CopyEvent(all.samples, ref.index, &batch);
        break;
      case EventKind::kOptimizerStep:
        CopyEvent(all.optimizer_steps, ref.index, &batch);
        break;
      case EventKind::kForwardOp:
        CopyEvent(all.forward_ops, ref.index, &batch);
        break;
      case EventKind::kBackwardStep:
        CopyEvent(all.backward_steps, ref.index, &batch);
        break;
      case EventKind::kMemory:
        CopyEvent(all.memory, ref.index, &batch);
        break;
      case EventKind::kMemorySummary:
        CopyEvent(all.memory_summaries, ref.index, &batch);
        break;
      case EventKind::kGradientStats:
        CopyEvent(all.gradient_stats, ref.index, &batch);
        break;
      case EventKind::kUpdateRatio:
        CopyEvent(all.update_ratios, ref.index, &batch);
        break;
      case EventKind::kLoss:
        CopyEvent(all.losses, ref.index, &batch);
        break;
      case EventKind::kMetric:
        CopyEvent(all.metrics, ref.index, &batch);
        break;
      case EventKind::kStatus:
        CopyEvent(all.messages, ref.index, &batch);
        break;
    }
  }
}

const std::map<uint16_t, TrainRank>* TrainedOpsAt(const TraceIndex& index, size_t cursor) {
  const auto& sets = index.trained_sets;
  if (sets.empty()) return nullptr;
  const auto after = std::upper_bound(
      sets.begin(), sets.end(), cursor,
      [](size_t position, const TraceIndex::TrainedSet& set) { return position < set.position; });
  return after == sets.begin() ? &sets.front().ops : &std::prev(after)->ops;
}

Graph GraphFromAnnouncement(const TraceIndex& index) {
  if (!index.announced()) return Graph();
  return BuildAnnouncedGraph(index.announcement.model());
}

}  // namespace trainscope
