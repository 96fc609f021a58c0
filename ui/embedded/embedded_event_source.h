// SPDX-License-Identifier: Apache-2.0
//
// EmbeddedEventSource: the in-process engine as an EventSource. A Trainer runs on a worker
// thread; its events are collected into an EventBatch and handed to the TraceStore at most every
// kPublishIntervalMs (and at every pause), so the GUI thread never waits on training and never
// sees partial batches.
//
// Pausing and stepping happen on the worker thread at three kinds of boundary: before a backward
// step (the engine's ExecutionGate), at the end of a sample, and after an optimizer step. A step
// command lets the worker run to the next boundary of its kind and pause there. Trainability
// changes are applied at the next optimizer-step boundary: the trained weights are written back
// and the trainer is rebuilt for the new selection (Adam's moments restart, as onert-micro's
// reset does), and its new memory numbers arrive as a status message.
//
//   auto source = new EmbeddedEventSource(store, this);
//   if (Status s = source->load(model_path, data); !s.ok()) ShowError(s.message());
//   source->start();
#pragma once

#include <QString>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/exec/trainer.h"
#include "ui/session/event_source.h"

namespace trainscope {

struct EmbeddedSetup {
  TrainingOptions options;
  TrainabilityConfig trainability;
  DataSet train;
  DataSet test;  // may be empty: the metric is then computed on `train`
};

class EmbeddedEventSource : public EventSource {
  Q_OBJECT

 public:
  static constexpr int kPublishIntervalMs = 30;

  explicit EmbeddedEventSource(std::shared_ptr<TraceStore> store, QObject* parent = nullptr);
  ~EmbeddedEventSource() override;

  // Takes the model and setup; fails (and keeps the previous session) when the trainer cannot
  // be built, e.g. an op without a backward kernel inside the trained range.
  Status load(Model model, EmbeddedSetup setup, const QString& name);
  bool loaded() const { return model_ != nullptr; }
  const Model* model() const { return model_.get(); }
  QString description() const override;

 public Q_SLOTS:
  void start() override;
  void pause() override;
  void resume() override;
  void stepBackwardOp() override;
  void stepSample() override;
  void stepBatch() override;
  void stop() override;
  void setTrainability(uint32_t last_n, const std::map<uint16_t, TrainRank>& ranks) override;

 private:
  enum class Boundary { kNone, kBackwardOp, kSample, kBatch };
  class Bridge;  // the observer and gate the worker thread calls into

  void run();
  // Called on the worker thread at a boundary; blocks while paused. False: stop requested.
  bool reachBoundary(Boundary boundary);
  void request(bool run, Boundary pause_at);
  Status applyPendingTrainability();

  std::unique_ptr<Model> model_;
  EmbeddedSetup setup_;
  QString name_;
  std::unique_ptr<Trainer> trainer_;
  std::unique_ptr<Bridge> bridge_;
  std::thread worker_;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool running_ = false;  // false: pause at the next boundary
  bool stop_requested_ = false;
  Boundary pause_at_ = Boundary::kNone;
  bool pending_trainability_ = false;
  TrainabilityConfig next_trainability_;
};

}  // namespace trainscope
