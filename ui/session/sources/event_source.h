// SPDX-License-Identifier: Apache-2.0
//
// EventSource: what every producer of training events looks like to the GUI: the local engine,
// a device session and trace replay implement it, SyntheticEventSource fakes one. A source writes
// its events into the SessionStore it was given and emits dataReady(); views poll the store.
//
// Commands (start, pause, step ...) are requests: a source answers with stateChanged() once the
// state really changed, and with errorOccurred() (user-facing text, never a dialog) when it
// cannot comply. Trainability changes apply at the next optimizer-step boundary.
//
// Lives on the GUI thread; a source that produces on a worker thread may emit dataReady() and
// errorOccurred() from there (queued connections deliver them).
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "engine/plan/trainability.h"
#include "ui/session/breakpoints.h"
#include "ui/session/session_store.h"
#include "ui/session/tensor_values.h"

namespace trainscope {

// Sees every batch a source publishes, on the publishing thread, before the store does (e.g. a
// TraceRecorder writing the session to a file). Must not block for long.
class BatchRecorder {
 public:
  virtual ~BatchRecorder() = default;
  virtual void record(const EventBatch& batch) = 0;
  // The source trains with `config` from here on: at the start of a session and whenever a change
  // takes effect. Called on the publishing thread after the batches from before the change, so a
  // recording can mark the point where it happened.
  virtual void trainabilityApplied(const TrainabilityConfig& config) { static_cast<void>(config); }
};

class EventSource : public QObject {
  Q_OBJECT

 public:
  enum class State { kStopped, kRunning, kPaused };
  Q_ENUM(State)

  explicit EventSource(std::shared_ptr<SessionStore> store, QObject* parent = nullptr);
  ~EventSource() override;

  State state() const { return state_.load(std::memory_order_acquire); }
  const std::shared_ptr<SessionStore>& store() const { return store_; }
  // A short user-facing name ("synthetic", "board on /dev/ttyACM0", "replay of run.tstrace").
  virtual QString description() const = 0;
  // Hands every batch published from now on to `recorder` too (shared: a batch being recorded
  // keeps it alive); null stops recording. Safe while the source runs.
  void setRecorder(std::shared_ptr<BatchRecorder> recorder);
  std::shared_ptr<BatchRecorder> recorder() const;

 public Q_SLOTS:
  virtual void start() = 0;
  virtual void pause() = 0;
  virtual void resume() = 0;
  // Run until the next backward step ends, then pause.
  virtual void stepBackwardOp() = 0;
  // Run until the current (or next) sample ends, then pause.
  virtual void stepSample() = 0;
  // Run until the next optimizer step, then pause.
  virtual void stepBatch() = 0;
  virtual void stop() = 0;
  virtual void setTrainability(uint32_t last_n, const std::map<uint16_t, TrainRank>& ranks) = 0;
  // Replaces the breakpoints; a hit pauses the run and emits breakpointHit(). The default
  // answers errorOccurred("... not supported ...") and returns false.
  virtual bool setBreakpoints(const trainscope::BreakpointSet& breakpoints);
  // Back to the initial weights with nothing trained, stopped. Only sources that own their
  // training can (canRestart()); the default answers errorOccurred and an error status.
  virtual bool canRestart() const { return false; }
  virtual Status restart();
  // What the status bar says of the state: StateName() unless the source knows better ("board
  // finished training: 180 optimizer steps, last loss 0.02", "board idle").
  virtual QString stateText() const;
  // Non-empty while the source can take no run command (start, pause, the steps): the reason,
  // shown on the disabled actions.
  virtual QString commandsUnavailable() const { return QString(); }
  // Non-empty once the source ran its whole schedule and start() would train another one from
  // the weights reached ("trained 3 epochs, 180 optimizer steps"): the window asks first.
  virtual QString finishedSchedule() const { return QString(); }
  // Tensor values at the current point of the step: answered by tensorValuesReady(), from any
  // thread, with the values or the reason they cannot be read. The default answers with
  // tensorValuesUnavailable().
  virtual void requestTensorValues(const trainscope::TensorRequest& request);
  // Non-empty when this source can read no tensor values at all: the reason.
  virtual QString tensorValuesUnavailable() const;

 Q_SIGNALS:
  void stateChanged(trainscope::EventSource::State state);
  void errorOccurred(const QString& message);
  void dataReady();
  // The run paused at a breakpoint: `reason` is user-facing (it also arrives in the store as a
  // status message); `op_index` is the op to show, kNoOp when there is none.
  void breakpointHit(const QString& reason, uint32_t op_index);
  void tensorValuesReady(trainscope::TensorValuesPtr values);

 protected:
  // Emits stateChanged() when the state differs.
  void setState(State state);
  // Appends to the store and emits dataReady(); safe from any thread.
  void publish(const EventBatch& batch);

 private:
  std::shared_ptr<SessionStore> store_;
  std::atomic<State> state_{State::kStopped};
  mutable std::mutex recorder_mutex_;
  std::shared_ptr<BatchRecorder> recorder_;
};

QString StateName(EventSource::State state);

}  // namespace trainscope
