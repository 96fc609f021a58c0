// SPDX-License-Identifier: Apache-2.0
//
// LocalEventSource: the in-process engine as an EventSource. A Trainer runs on a worker
// thread; its events are collected into an EventBatch and handed to the SessionStore at most every
// kPublishIntervalMs (and at every pause), so the GUI thread never waits on training and never
// sees partial batches.
//
// Pausing and stepping happen on the worker thread at three kinds of boundary: after a backward
// step, at the end of a sample, and after an optimizer step. A step
// command lets the worker run to the next boundary of its kind and pause there. Trainability
// changes are applied at the next optimizer-step boundary: the trained weights are written back
// and the trainer is rebuilt for the new selection (Adam's moments restart, as onert-micro's
// reset does), and its new memory numbers arrive as a status message.
//
// A session runs its schedule (options.epochs) once. Stop ends it: the next start() begins again
// from the initial weights, as restart() does. After the last epoch the session is finished and
// start() trains another schedule from the weights reached (the window asks the user first).
// restart() puts back what load() left - the initial weights, no optimizer state, counters at
// zero, the same data order - clears the store, ends the recording (sessionRestarted() lets its
// owner start a new one) and keeps the applied trainability, with a pending change applied.
//
// Tensor values (requestTensorValues) are read where the trainer is: on the worker thread at the
// next boundary or right away while paused, on the calling thread while no worker runs. Either
// way the answer is a snapshot copied out of the trainer, emitted as tensorValuesReady().
//
// Detail: training at full speed, a step carries its per-op detail (op times, memory, gradient
// statistics, update ratios) only as a DetailBudget allows (engine/core/detail_budget.h: 100 steps
// a second, 5 % of the training time); every step still reports its samples, losses and update, and
// a message says when thinning starts. A pause, a step command or a pace makes every step detailed
// again; a breakpoint on gradients or memory keeps the statistics or memory summaries it reads in
// every step. In a step without detail no boundary after a backward step is reported, so a pause,
// a step-op command or a tensor read that arrives during one turns the op events back on at the
// next backward op (ExecutionGate::ResumeOpEvents) and is served after it.
//
// Pace (setStepsPerSecond): 0 trains at full speed; otherwise the worker waits between optimizer
// steps, and at slow rates (kWatchRate and below) each backward step takes its share of the
// interval, so the graph's highlight walks through the ops. Pause and stop cut a wait short.
//
// Breakpoints (setBreakpoints, any thread) are judged on the worker thread by a
// BreakpointMonitor, and a hit pauses right where it was detected:
//   op k             at the ExecutionGate before op k's backward step (op k has not run yet)
//   NaN/Inf, norm    inside the GRADIENT_STATS event, i.e. just after the backward step that
//                    produced the gradient and before the next one (at most once per step)
//   RAM budget       inside the MEMORY_SUMMARY event of the tick whose live bytes first rose
//                    above the budget (the tick's buffers are still bound)
// A hit publishes everything up to that event plus a warning message with the reason, sets the
// state to paused and emits breakpointHit(reason, op); Continue and the step commands go on from
// there as from any pause.
//
//   auto source = new LocalEventSource(store, this);
//   if (Status s = source->load(model_path, data); !s.ok()) ShowError(s.message());
//   source->start();
#pragma once

#include <QString>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/core/detail_budget.h"
#include "engine/exec/trainer.h"
#include "ui/session/breakpoints.h"
#include "ui/session/experiment.h"
#include "ui/session/sources/event_source.h"

namespace trainscope {

struct LocalSetup {
  TrainingOptions options;
  TrainabilityConfig trainability;
  DataSet train;
  DataSet test;  // may be empty: the metric is then computed on `train`
};

class LocalEventSource : public EventSource {
  Q_OBJECT

 public:
  static constexpr int kPublishIntervalMs = 30;
  // At this many optimizer steps per second or fewer, backward steps are paced one by one.
  static constexpr double kWatchRate = 10.0;

  // Where the loaded session stands.
  enum class Progress {
    kFresh,       // nothing trained since load() or restart()
    kInProgress,  // running or paused inside the schedule
    kStopped,     // stopped before the schedule ended: the next start() restarts
    kFinished,    // every epoch ran: the next start() trains another schedule from here
  };

  explicit LocalEventSource(std::shared_ptr<SessionStore> store, QObject* parent = nullptr);
  ~LocalEventSource() override;

  // Takes the model and setup; fails (and keeps the previous session) when the trainer cannot
  // be built, e.g. an op without a backward kernel inside the trained range.
  Status load(Model model, LocalSetup setup, const QString& name);
  bool loaded() const { return model_ != nullptr; }
  const Model* model() const { return model_.get(); }
  // The options the loaded session trains with (set by load(), GUI thread).
  const TrainingOptions& options() const { return setup_.options; }
  QString description() const override;
  // How many breakpoints were hit in this source's life, and the latest (thread-safe).
  uint64_t breakpointHitCount() const;
  std::optional<BreakpointHit> lastBreakpointHit() const;
  QString lastBreakpointReason() const;
  Progress progress() const;
  // Optimizer steps the loaded session has applied since load() or restart() (thread-safe).
  uint32_t optimizerSteps() const;
  void setStepsPerSecond(double rate);
  double stepsPerSecond() const;
  // The DetailBudget's limits at full speed (any thread, from the next optimizer step): at most
  // `steps_per_second` detailed steps a second and `time_share` of the training time; both 0:
  // every step carries its detail.
  void setDetailLimits(double steps_per_second, double time_share);
  bool canRestart() const override { return loaded(); }
  // The session as an experiment starts it: the initial weights, the options and the data (GUI
  // thread; the arms are the caller's). False before load().
  bool fillExperimentSpec(ExperimentSpec* spec) const;
  QString finishedSchedule() const override;
  void requestTensorValues(const TensorRequest& request) override;
  QString tensorValuesUnavailable() const override;

 public Q_SLOTS:
  void start() override;
  void pause() override;
  void resume() override;
  void stepBackwardOp() override;
  void stepSample() override;
  void stepBatch() override;
  void stop() override;
  void setTrainability(uint32_t last_n, const std::map<uint16_t, TrainRank>& ranks) override;
  bool setBreakpoints(const BreakpointSet& breakpoints) override;
  Status restart() override;

 Q_SIGNALS:
  // restart() ended the recording of the previous run (if one was attached).
  void sessionRestarted();

 private:
  enum class Boundary { kNone, kBackwardOp, kSample, kBatch };
  class Bridge;  // the observer and gate the worker thread calls into

  void run();
  // Called on the worker thread at a boundary; blocks while paused. False: stop requested.
  bool reachBoundary(Boundary boundary);
  // Training at full speed: no pause or step pending, no pace (worker thread, takes mutex_).
  // `watched`: the detail events the breakpoints read, which every step must carry anyway.
  bool freeRunning(uint32_t* watched) const;
  // With mutex_ held: a pause, a step-op command, a stop or a tensor read waits for a boundary.
  bool needsBoundaryLocked() const;
  // Worker thread: pauses with the hit's reason. False: stop requested.
  bool breakAt(const BreakpointHit& hit);
  // Publishes, reports the pause and waits for a command; `lock` holds mutex_ on entry and exit.
  bool waitWhilePaused(std::unique_lock<std::mutex>& lock, const QString* reason, uint32_t op);
  template <typename Check>
  std::optional<BreakpointHit> checkBreakpoints(Check check);
  void request(bool run, Boundary pause_at);
  // start() for the step commands: the boundary is set before the worker thread exists, so the
  // worker cannot run past it (or past many of them) before the request arrives.
  void startPausingAt(Boundary pause_at);
  Status applyPendingTrainability();
  // Builds a trainer on a fresh copy of the initial model; the worker must not run.
  Status rebuildFromInitialWeights();
  // Worker thread, after a backward step or an optimizer step: publishes and waits as the pace
  // asks (at watching rates every backward step takes its share of the interval, faster only
  // optimizer steps wait). False: stop requested.
  bool holdPace(bool after_backward_step);
  // Waits out `fraction` of one optimizer step's interval at the current pace.
  bool pace(double fraction);
  // Backward steps per optimizer step of the current trainer (what the slow pace divides by).
  uint32_t pacedPointsPerStep() const;
  // Worker thread: publishes what is pending, then tells the recorder the trainability in force.
  void announceTrainability();
  // Reads `request` from the trainer and emits the answer; the trainer must not be running.
  void answerTensorRequest(const TensorRequest& request, const QString& where);
  // Worker thread with mutex_ held by `lock`: answers a pending request (unlocking meanwhile).
  void answerPendingRequest(std::unique_lock<std::mutex>& lock);

  std::unique_ptr<Model> model_;
  std::vector<uint8_t> initial_bytes_;  // the model as loaded, before any update
  LocalSetup setup_;
  QString name_;
  std::unique_ptr<Trainer> trainer_;
  std::unique_ptr<Bridge> bridge_;
  std::thread worker_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool running_ = false;        // false: pause at the next boundary
  bool worker_active_ = false;  // the worker thread may use the trainer
  std::optional<TensorRequest> pending_read_;
  bool stop_requested_ = false;
  Boundary pause_at_ = Boundary::kNone;
  bool pending_trainability_ = false;
  TrainabilityConfig next_trainability_;
  BreakpointMonitor monitor_;
  uint64_t hit_count_ = 0;
  std::optional<BreakpointHit> last_hit_;
  QString last_hit_reason_;
  Progress progress_ = Progress::kFresh;
  uint32_t completed_steps_ = 0;
  std::atomic<double> steps_per_second_{0.0};
  std::atomic<double> detail_steps_per_second_{kDefaultDetailStepsPerSecond};
  std::atomic<double> detail_time_share_{kDefaultDetailTimeShare};
  std::chrono::steady_clock::time_point next_pace_point_;
};

}  // namespace trainscope
