// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/trace_recorder.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>
#include <mutex>
#include <string>
#include <utility>

#include "engine/plan/trainability.h"
#include "serial/agent/agent.h"
#include "serial/board/subgraph_names.h"

namespace trainscope {
namespace {

// What the local engine measures and sends; it takes no commands through the recording.
constexpr uint32_t kRecordedCapabilities =
    wire::capability::kForwardOps | wire::capability::kBackwardSteps |
    wire::capability::kMemoryEvents | wire::capability::kGradientStats |
    wire::capability::kUpdateRatio | wire::capability::kLossMetric | wire::capability::kDurations;

wire::LogLevel ToLogLevel(MessageLevel level) {
  switch (level) {
    case MessageLevel::kInfo:
      return wire::LogLevel::kInfo;
    case MessageLevel::kWarning:
      return wire::LogLevel::kWarning;
    case MessageLevel::kError:
      return wire::LogLevel::kError;
  }
  return wire::LogLevel::kInfo;
}

std::vector<wire::OpSummary> DescribeOps(const Graph& graph, const TrainabilityConfig& config) {
  std::vector<wire::OpSummary> ops;
  if (graph.subgraphs.empty()) return ops;
  const Subgraph& main = graph.main();
  const BackwardSelection selection = SelectBackwardRange(main, config);
  ops.resize(main.operators.size());
  for (size_t k = 0; k < ops.size(); ++k) {
    ops[k].opcode = static_cast<int16_t>(std::clamp<int32_t>(main.operators[k].opcode,
                                                             std::numeric_limits<int16_t>::min(),
                                                             std::numeric_limits<int16_t>::max()));
    const bool known = k < selection.ops.size();
    ops[k].trainable = known && selection.ops[k].has_parameter_gradients;
    ops[k].rank = known ? selection.ops[k].rank : TrainRank::kAll;
  }
  return ops;
}

void Dispatch(const EventBatch& batch, const EventRef& ref, Agent* agent) {
  switch (ref.kind) {
    case EventKind::kSample:
      return agent->OnSample(batch.samples[ref.index]);
    case EventKind::kOptimizerStep:
      return agent->OnOptimizerStep(batch.optimizer_steps[ref.index]);
    case EventKind::kForwardOp:
      return agent->OnForwardOp(batch.forward_ops[ref.index]);
    case EventKind::kBackwardStep:
      return agent->OnBackwardStep(batch.backward_steps[ref.index]);
    case EventKind::kMemory:
      return agent->OnMemory(batch.memory[ref.index]);
    case EventKind::kMemorySummary:
      return agent->OnMemorySummary(batch.memory_summaries[ref.index]);
    case EventKind::kGradientStats:
      return agent->OnGradientStats(batch.gradient_stats[ref.index]);
    case EventKind::kUpdateRatio:
      return agent->OnUpdateRatio(batch.update_ratios[ref.index]);
    case EventKind::kLoss:
      return agent->OnLoss(batch.losses[ref.index]);
    case EventKind::kMetric:
      return agent->OnMetric(batch.metrics[ref.index]);
    case EventKind::kStatus: {
      const StatusMessage& message = batch.messages[ref.index];
      return agent->Log(ToLogLevel(message.level), message.text.toUtf8().constData());
    }
  }
}

// A batch filled vector by vector (no `order`) is applied in EventKind order, as the store does.
std::vector<EventRef> OrderOf(const EventBatch& batch) {
  if (!batch.order.empty()) return batch.order;
  std::vector<EventRef> order;
  auto add = [&order](EventKind kind, size_t count) {
    for (size_t i = 0; i < count; ++i) order.push_back({kind, static_cast<uint32_t>(i)});
  };
  add(EventKind::kSample, batch.samples.size());
  add(EventKind::kOptimizerStep, batch.optimizer_steps.size());
  add(EventKind::kForwardOp, batch.forward_ops.size());
  add(EventKind::kBackwardStep, batch.backward_steps.size());
  add(EventKind::kMemory, batch.memory.size());
  add(EventKind::kMemorySummary, batch.memory_summaries.size());
  add(EventKind::kGradientStats, batch.gradient_stats.size());
  add(EventKind::kUpdateRatio, batch.update_ratios.size());
  add(EventKind::kLoss, batch.losses.size());
  add(EventKind::kMetric, batch.metrics.size());
  add(EventKind::kStatus, batch.messages.size());
  return order;
}

// "1.0 GiB", "64.0 KiB": how the limit reads in a message.
std::string FormatSize(uint64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", value, kUnits[unit]);
  return text;
}

}  // namespace

TraceRecorder::TraceRecorder(QString path, const Graph& graph, uint64_t model_hash,
                             const TrainingOptions& options)
    : path_(std::move(path)),
      graph_(graph),
      model_hash_(model_hash),
      options_(options),
      ops_(DescribeOps(graph, TrainabilityConfig())) {}

TraceRecorder::~TraceRecorder() {
  close();
}

size_t TraceRecorder::WriteThunk(void* self, const uint8_t* data, size_t size) {
  auto* recorder = static_cast<TraceRecorder*>(self);
  // Called by the agent under the recorder's lock; record() writes the frames once per batch.
  if (recorder->status_.ok())
    recorder->pending_.insert(recorder->pending_.end(), data, data + size);
  return size;
}

const char* TraceRecorder::NameThunk(void* self, wire::NameKind kind, uint32_t id) {
  const Graph& graph = static_cast<TraceRecorder*>(self)->graph_;
  return graph.subgraphs.empty() ? nullptr : SubgraphName(graph.main(), kind, id);
}

Status TraceRecorder::openLocked() {
  const QFileInfo info(path_);
  if (!QDir().mkpath(info.absolutePath())) {
    return Status::Error(StatusCode::kIoError, "cannot create folder '%s'",
                         qPrintable(info.absolutePath()));
  }
  TS_RETURN_IF_ERROR(writer_.Create(path_.toStdString(), model_hash_));
  tx_storage_.assign(kAgentMaxFrameBytes + 2, 0);
  AgentConfig config;
  config.name = "trainscope-local";
  config.capabilities = kRecordedCapabilities;
  config.tx_storage = tx_storage_.data();
  config.tx_storage_size = tx_storage_.size();
  config.write = &TraceRecorder::WriteThunk;
  config.write_context = this;
  config.lookup_name = &TraceRecorder::NameThunk;
  config.lookup_context = this;
  agent_ = std::make_unique<Agent>(config);
  agent_->SetTrainingSetup(static_cast<uint8_t>(options_.optimizer), options_.batch_size);
  agent_->Start();
  const size_t tensors = graph_.subgraphs.empty() ? 0 : graph_.main().tensors.size();
  agent_->AnnounceModel(model_hash_, static_cast<uint32_t>(tensors), ops_.data(),
                        static_cast<uint32_t>(ops_.size()));
  return Status::Ok();
}

void TraceRecorder::setOnStopped(StoppedCallback callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  on_stopped_ = std::move(callback);
}

void TraceRecorder::setMaxBytes(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  max_bytes_ = bytes;
}

uint64_t TraceRecorder::maxBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return max_bytes_;
}

void TraceRecorder::record(const EventBatch& batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_ || !status_.ok()) return;
  if (!opened_) {
    opened_ = true;
    Status status = openLocked();  // HELLO and MODEL_ANNOUNCE wait in pending_ for the batch
    if (!status.ok()) return stopLocked(std::move(status));
  }
  for (const EventRef& ref : OrderOf(batch)) dispatchLocked(batch, ref);
  const size_t before = pending_.size();
  flushLocked();
  if (status_.ok() && before > 0 && !batch.optimizer_steps.empty()) {
    last_step_ = batch.optimizer_steps.back().optimizer_step;
    has_step_ = true;
  }
}

void TraceRecorder::dispatchLocked(const EventBatch& batch, const EventRef& ref) {
  switch (ref.kind) {
    case EventKind::kForwardOp:
    case EventKind::kBackwardStep:
    case EventKind::kMemory:
    case EventKind::kMemorySummary:
    case EventKind::kGradientStats:
    case EventKind::kUpdateRatio:
      if (!detailed_) {
        ++thinned_events_;
        return;
      }
      break;
    default:
      break;
  }
  Dispatch(batch, ref, agent_.get());
  if (ref.kind == EventKind::kOptimizerStep) decideDetailLocked();
}

void TraceRecorder::decideDetailLocked() {
  if (detail_rate_ <= 0.0) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - detail_refilled_).count();
  detail_refilled_ = now;
  detail_tokens_ = std::min(detail_rate_, detail_tokens_ + elapsed * detail_rate_);
  const bool was_detailed = detailed_;
  detailed_ = detail_tokens_ >= 1.0;
  if (detailed_) {
    detail_tokens_ -= 1.0;
    return;
  }
  if (thinned_steps_++ == 0 && was_detailed) {
    const std::string text =
        "recording: training runs faster than " + std::to_string(static_cast<int>(detail_rate_)) +
        " optimizer steps/s; beyond that rate a step keeps its loss and samples but not its "
        "per-event detail (the count is logged when the recording ends)";
    agent_->Log(wire::LogLevel::kInfo, text.c_str());
  }
}

void TraceRecorder::setDetailRate(double steps_per_second) {
  std::lock_guard<std::mutex> lock(mutex_);
  detail_rate_ = steps_per_second > 0.0 ? steps_per_second : 0.0;
  detail_tokens_ = detail_rate_;
  detailed_ = true;
}

uint64_t TraceRecorder::thinnedSteps() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return thinned_steps_;
}

uint64_t TraceRecorder::thinnedEvents() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return thinned_events_;
}

void TraceRecorder::trainabilityApplied(const TrainabilityConfig& config) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_ || !status_.ok()) return;
  // In place: the agent keeps a pointer to the announced operators.
  const std::vector<wire::OpSummary> described = DescribeOps(graph_, config);
  ops_.assign(described.begin(), described.end());
  if (!opened_) return;  // the opening announcement will carry it
  // A board announces its model again after a trainability change; so does the recording, at the
  // point between the batches where the change took effect.
  const size_t tensors = graph_.subgraphs.empty() ? 0 : graph_.main().tensors.size();
  agent_->AnnounceModel(model_hash_, static_cast<uint32_t>(tensors), ops_.data(),
                        static_cast<uint32_t>(ops_.size()));
  flushLocked();
}

void TraceRecorder::flushLocked() {
  if (pending_.empty()) return;
  const uint64_t file_bytes = kTraceHeaderBytes + writer_.stream_bytes();
  if (file_bytes + pending_.size() > max_bytes_) {
    pending_.clear();
    capped_ = true;
    const std::string step = has_step_ ? "after optimizer step " + std::to_string(last_step_)
                                       : std::string("before the first optimizer step");
    writer_.Close();
    return stopLocked(Status::Error(
        StatusCode::kOutOfMemory,
        "recording stopped at its %s limit %s (file %s): training goes on; the limit is the "
        "setting recording/maxMegabytes",
        FormatSize(max_bytes_).c_str(), step.c_str(), qPrintable(path_)));
  }
  ++appends_;
  Status status = writer_.Append(pending_.data(), pending_.size());
  pending_.clear();
  if (!status.ok()) {
    writer_.Close();
    stopLocked(std::move(status));
  }
}

void TraceRecorder::stopLocked(Status status) {
  status_ = std::move(status);
  pending_.clear();
  pending_.shrink_to_fit();
  if (on_stopped_) on_stopped_(status_, capped_);
}

void TraceRecorder::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) return;
  if (writer_.is_open() && status_.ok() && thinned_steps_ > 0) {
    const std::string text = "recording: per-event detail of " + std::to_string(thinned_steps_) +
                             " optimizer step(s) left out (" + std::to_string(thinned_events_) +
                             " events) to stay within " +
                             std::to_string(static_cast<int>(detail_rate_)) + " steps/s";
    agent_->Log(wire::LogLevel::kInfo, text.c_str());
    flushLocked();
  }
  closed_ = true;
  if (writer_.is_open()) writer_.Close();
}

Status TraceRecorder::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

uint64_t TraceRecorder::bytesWritten() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return writer_.stream_bytes();
}

bool TraceRecorder::capped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return capped_;
}

uint64_t TraceRecorder::appendsIssued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return appends_;
}

uint64_t TraceRecorder::framesWritten() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return agent_ ? agent_->stats().frames_queued : 0;
}

QString TraceRecorder::MakeRecordingPath(const QString& dir, const QString& model_name) {
  QString base = QFileInfo(model_name).completeBaseName();
  if (base.isEmpty()) base = QStringLiteral("session");
  QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss-zzz"));
  {
    // A file is only created by its first write: two recordings begun within a millisecond (a
    // restart right after a stop) must not be handed the same name.
    static std::mutex mutex;
    static QString last_stamp;
    static int repeats = 0;
    std::lock_guard<std::mutex> lock(mutex);
    if (stamp == last_stamp) {
      stamp += QStringLiteral("-%1").arg(++repeats + 1);
    } else {
      last_stamp = stamp;
      repeats = 0;
    }
  }
  QDir().mkpath(dir);
  return QDir(dir).filePath(base + QLatin1Char('-') + stamp + QStringLiteral(".tstrace"));
}

QString TraceRecorder::DefaultRecordingDir() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation))
      .filePath(QStringLiteral("recordings"));
}

}  // namespace trainscope
