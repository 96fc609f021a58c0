// SPDX-License-Identifier: Apache-2.0
//
// TraceRecorder: writes a session to a trace file exactly as a board running the agent would
// have sent it (HELLO, MODEL_ANNOUNCE, interned names, event frames, LOG for status messages),
// so a recording of the embedded engine replays through the same decoder as a device trace.
// It is an EventSource BatchRecorder: every published batch is re-encoded, in arrival order,
// by an Agent whose write function appends to a TraceWriter (one write(2) per frame, no user
// buffer: a killed app loses nothing it recorded).
//
// The file is created with the first batch, so a session that never runs leaves no file. A
// failing write is reported once through status() and ends the recording; training goes on.
// Thread-safe (the embedded source records from its worker thread). Trainability changes made
// during the run are not re-announced: the events themselves carry the trainable flags.
//
//   auto recorder = std::make_shared<TraceRecorder>(path, model.graph(), model_hash);
//   source->setRecorder(recorder);
//   source->start();
#pragma once

#include <QString>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/model/graph.h"
#include "serial/protocol/messages.h"
#include "serial/trace/trace_file.h"
#include "ui/session/event_source.h"

namespace trainscope {

class Agent;

class TraceRecorder final : public BatchRecorder {
 public:
  // `graph` (copied) names the tensors and operators and gives the announced op list.
  TraceRecorder(QString path, const Graph& graph, uint64_t model_hash);
  ~TraceRecorder() override;
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  void record(const EventBatch& batch) override;
  // Ends the file (further batches are ignored).
  void close();

  const QString& path() const { return path_; }
  Status status() const;
  uint64_t bytesWritten() const;
  uint64_t framesWritten() const;

  // <dir>/<model base name>-<yyyyMMdd-hhmmss>.tstrace; `dir` is created when missing.
  static QString MakeRecordingPath(const QString& dir, const QString& model_name);
  // The per-user folder recordings go to (AppLocalDataLocation/recordings).
  static QString DefaultRecordingDir();

 private:
  static size_t WriteThunk(void* self, const uint8_t* data, size_t size);
  static const char* NameThunk(void* self, wire::NameKind kind, uint32_t id);
  Status openLocked();

  const QString path_;
  const Graph graph_;
  const uint64_t model_hash_;
  std::vector<wire::OpSummary> ops_;  // the agent keeps a pointer

  mutable std::mutex mutex_;
  TraceWriter writer_;
  std::vector<uint8_t> tx_storage_;
  std::unique_ptr<Agent> agent_;
  Status status_;
  bool opened_ = false;
  bool closed_ = false;
};

}  // namespace trainscope
