// SPDX-License-Identifier: Apache-2.0
//
// Experiments: the same model, data and options trained under several trainability choices
// ("arms"), every arm from the same initial weights, so their loss and metric curves and their
// costs can be compared side by side - "is freezing these layers worth the RAM it saves?".
//
// Each arm gets its own copy of the model and its own Trainer. The arms advance in turns, one
// optimizer step each, so their curves grow together and their step times are measured under
// the same load. Everything but the step time is deterministic: running an experiment again
// gives the same curves, and an arm equals a local session of the same choice run from the
// start (the same Trainer, data order and seed). An arm's cost is PlanTrainabilityCost, the
// figure the Layers panel shows for that choice.
//
// ExperimentRunner runs on a worker thread and publishes immutable snapshots the views poll;
// RunExperiment() runs to the end on the calling thread (tests, headless use).
//
//   ExperimentRunner runner;
//   TS_RETURN_IF_ERROR(runner.start(spec));
//   ... timer: std::shared_ptr<const ExperimentSnapshot> s = runner.snapshot();
#pragma once

#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/exec/trainer.h"
#include "engine/plan/trainability.h"
#include "ui/session/trainability.h"

namespace trainscope {

struct ExperimentArm {
  QString name;  // what the views call it ("all layers", "last 2 layers")
  TrainabilityConfig trainability;
};

struct ExperimentSpec {
  std::vector<uint8_t> model_bytes;  // the initial weights every arm starts from
  TrainingOptions options;           // options.epochs: how long every arm trains
  DataSet train;
  DataSet test;  // may be empty: the metric is then computed on `train`
  std::vector<ExperimentArm> arms;
};

struct ArmResult {
  ExperimentArm arm;
  TrainabilityCost cost;
  std::vector<double> step_loss;     // mean loss of each optimizer step
  std::vector<double> epoch_loss;    // mean loss of each finished epoch
  std::vector<double> epoch_metric;  // the metric after each finished epoch
  double median_step_seconds = 0.0;  // over the steps so far
  QString error;                     // non-empty: the arm could not train (and stopped)
};

struct ExperimentSnapshot {
  std::vector<ArmResult> arms;
  MetricKind metric = MetricKind::kNone;
  uint32_t epochs = 0;           // each arm's schedule
  uint32_t steps_per_epoch = 0;  // optimizer steps
  bool running = false;
  bool cancelled = false;
};

// The choice's name as the views write it: "all layers", "last 3 layers", "4 ops by rank".
QString DescribeTrainability(const Subgraph& subgraph, const TrainabilityConfig& config);

// Checks the spec and plans every arm; kInvalidArgument names the arm or the data at fault.
Status ValidateExperiment(const ExperimentSpec& spec);

// Runs every arm to the end on the calling thread; `cancel` (optional) stops between steps.
Status RunExperiment(const ExperimentSpec& spec, ExperimentSnapshot* result,
                     const std::atomic<bool>* cancel = nullptr);

class ExperimentRunner {
 public:
  ExperimentRunner() = default;
  ~ExperimentRunner();
  ExperimentRunner(const ExperimentRunner&) = delete;
  ExperimentRunner& operator=(const ExperimentRunner&) = delete;

  // Stops a previous run, validates `spec` and starts training its arms on a worker thread.
  Status start(ExperimentSpec spec);
  // Stops between two steps and waits for the worker; the snapshot keeps what was trained.
  void cancel();
  bool running() const;
  // Null before the first start(); safe from any thread.
  std::shared_ptr<const ExperimentSnapshot> snapshot() const;

 private:
  void publish(const ExperimentSnapshot& snapshot);

  std::thread worker_;
  std::atomic<bool> cancel_{false};
  mutable std::mutex mutex_;
  std::shared_ptr<const ExperimentSnapshot> snapshot_;
};

}  // namespace trainscope
