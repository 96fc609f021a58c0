// SPDX-License-Identifier: Apache-2.0
//
// TraceRecorder: writes a session to a trace file exactly as a board running the agent would
// have sent it (HELLO, MODEL_ANNOUNCE, interned names, event frames, LOG for status messages),
// so a recording of the local engine replays through the same decoder as a device trace.
// It is an EventSource BatchRecorder: every published batch is re-encoded, in arrival order,
// by an Agent whose write function collects the frames in a buffer; record() then hands the
// whole batch to the TraceWriter in one append (one write(2) per batch, not per frame, which is
// most of the cost at full training speed). Once record(batch) returns, the batch is in the
// file: a killed app loses nothing it recorded.
//
// The file is created with the first batch, so a session that never runs leaves no file.
// Recording ends at the first error and training goes on:
//  - a failing write: status() holds the I/O error;
//  - the size cap (setMaxBytes, default kDefaultMaxRecordingBytes): a batch that would take the
//    file past it is not written, capped() turns true and status() says, in the user's terms,
//    at which limit and after which optimizer step the recording stopped.
// Either way the callback set with setOnStopped() runs once, on the recording thread.
//
// What a recording keeps at full speed is bounded: per-event detail (forward ops, backward steps,
// memory, gradient statistics, update ratios) is written for at most setDetailRate() optimizer
// steps per second (a token bucket with one second of burst); beyond it a step keeps only its
// samples, loss, optimizer step, metric and messages. The file says so: a LOG record when the
// first step is thinned, and on close() one with how many steps and events were left out. The
// default rate is the local engine's own (kDefaultDetailStepsPerSecond): it already leaves the
// detail of steps beyond it out, so what thins here is a board's fast stream.
// Thread-safe (the local source records from its worker thread). The announced operators carry
// the session's trainability; a change that takes effect during the run (trainabilityApplied) is
// announced again at that point, as a board does after SET_TRAINABILITY.
//
//   auto recorder = std::make_shared<TraceRecorder>(path, model.graph(), model_hash, options);
//   recorder->setMaxBytes(uint64_t{256} << 20);
//   recorder->setOnStopped([](const Status& why, bool capped) { /* post `why` to the GUI thread */
//   }); source->setRecorder(recorder); source->start();
#pragma once

#include <QString>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/detail_budget.h"
#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/model/graph.h"
#include "serial/protocol/messages.h"
#include "serial/trace/trace_file.h"
#include "ui/session/sources/event_source.h"

namespace trainscope {

class Agent;

// 256 MiB per recording: a laptop disk holds many, and at the default detail rate the bundled
// demo fills it in about ten minutes.
inline constexpr uint64_t kDefaultMaxRecordingBytes = uint64_t{256} << 20;

class TraceRecorder final : public BatchRecorder {
 public:
  // `graph` (copied) names the tensors and operators and gives the announced op list;
  // `options` gives the optimizer and batch size the announcement carries.
  TraceRecorder(QString path, const Graph& graph, uint64_t model_hash,
                const TrainingOptions& options);
  ~TraceRecorder() override;
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  // Called with the status that ended the recording and whether the cap did it, once, on the
  // thread that called record(), with the recorder's lock held: it must not call back into the
  // recorder (post the news to another thread instead). Replaces any earlier callback; an empty
  // function removes it.
  using StoppedCallback = std::function<void(const Status& why, bool capped)>;
  void setOnStopped(StoppedCallback callback);

  // The largest file (header included) the recording may grow to; batches that would take it
  // further are not written and end the recording.
  void setMaxBytes(uint64_t bytes);
  uint64_t maxBytes() const;
  // Optimizer steps per second kept with every event; 0 keeps everything.
  void setDetailRate(double steps_per_second);
  // Steps whose per-event detail was left out, and the events that were.
  uint64_t thinnedSteps() const;
  uint64_t thinnedEvents() const;

  void record(const EventBatch& batch) override;
  void trainabilityApplied(const TrainabilityConfig& config) override;
  // Ends the file (further batches are ignored).
  void close();

  const QString& path() const { return path_; }
  Status status() const;
  // True once the size cap ended the recording.
  bool capped() const;
  uint64_t bytesWritten() const;  // wire bytes in the file, header excluded
  uint64_t framesWritten() const;
  // TraceWriter appends made so far: one per written batch (the opening frames go with the first).
  uint64_t appendsIssued() const;

  // <dir>/<model base name>-<yyyyMMdd-hhmmss>.tstrace; `dir` is created when missing.
  static QString MakeRecordingPath(const QString& dir, const QString& model_name);
  // The per-user folder recordings go to (AppLocalDataLocation/recordings).
  static QString DefaultRecordingDir();

 private:
  static size_t WriteThunk(void* self, const uint8_t* data, size_t size);
  static const char* NameThunk(void* self, wire::NameKind kind, uint32_t id);
  Status openLocked();
  // Appends the buffered frames unless they would pass the cap; ends the recording on failure.
  void flushLocked();
  void stopLocked(Status status);
  // At an optimizer step: whether the next step keeps its detail.
  void decideDetailLocked();
  void dispatchLocked(const EventBatch& batch, const EventRef& ref);

  const QString path_;
  const Graph graph_;
  const uint64_t model_hash_;
  const TrainingOptions options_;
  std::vector<wire::OpSummary> ops_;  // the agent keeps a pointer

  mutable std::mutex mutex_;
  TraceWriter writer_;
  std::vector<uint8_t> tx_storage_;
  std::unique_ptr<Agent> agent_;
  std::vector<uint8_t> pending_;  // frames of the batch being recorded
  Status status_;
  StoppedCallback on_stopped_;
  uint64_t max_bytes_ = kDefaultMaxRecordingBytes;
  uint64_t appends_ = 0;
  uint32_t last_step_ = 0;  // the last optimizer step in the file, when `has_step_`
  bool has_step_ = false;
  bool opened_ = false;
  bool closed_ = false;
  bool capped_ = false;
  double detail_rate_ = kDefaultDetailStepsPerSecond;
  double detail_tokens_ = kDefaultDetailStepsPerSecond;
  std::chrono::steady_clock::time_point detail_refilled_ = std::chrono::steady_clock::now();
  bool detailed_ = true;  // the step being recorded keeps its per-event detail
  uint64_t thinned_steps_ = 0;
  uint64_t thinned_events_ = 0;
};

}  // namespace trainscope
