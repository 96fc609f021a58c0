// SPDX-License-Identifier: Apache-2.0
#include "ui/session/experiment.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>

#include "engine/model/model.h"
#include "ui/session/training_run.h"

namespace trainscope {
namespace {

constexpr size_t kMaxArms = 8;
constexpr auto kPublishInterval = std::chrono::milliseconds(50);

struct ArmState {
  std::unique_ptr<Model> model;
  std::unique_ptr<Trainer> trainer;
  std::vector<double> step_seconds;
  double epoch_loss_sum = 0.0;
  bool alive = true;
};

double Median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

Status BuildArm(const ExperimentSpec& spec, const ExperimentArm& arm, ArmState* state) {
  state->model = std::make_unique<Model>();
  TS_RETURN_IF_ERROR(Model::FromBytes(spec.model_bytes, state->model.get()));
  state->trainer = std::make_unique<Trainer>();
  return state->trainer->Init(state->model.get(), spec.options, arm.trainability);
}

// The arms of `spec` with nothing trained yet.
ExperimentSnapshot Unstarted(const ExperimentSpec& spec) {
  ExperimentSnapshot snapshot;
  snapshot.running = true;
  snapshot.epochs = spec.options.epochs;
  snapshot.metric = spec.options.metric;
  for (const ExperimentArm& arm : spec.arms) {
    ArmResult result;
    result.arm = arm;
    snapshot.arms.push_back(std::move(result));
  }
  return snapshot;
}

Status ArmError(const ExperimentArm& arm, Status status) {
  status.Prepend("arm '" + arm.name.toStdString() + "'");
  return status;
}

Status Run(const ExperimentSpec& spec, ExperimentSnapshot* result, const std::atomic<bool>* cancel,
           const std::function<void(const ExperimentSnapshot&)>& publish) {
  TS_RETURN_IF_ERROR(ValidateExperiment(spec));
  const uint32_t batch = spec.options.batch_size;
  ExperimentSnapshot& out = *result;
  out = ExperimentSnapshot();
  out.metric = spec.options.metric;
  out.epochs = spec.options.epochs;
  out.steps_per_epoch = spec.train.sample_count / batch;
  out.running = true;
  std::vector<ArmState> states(spec.arms.size());
  Model model;
  TS_RETURN_IF_ERROR(Model::FromBytes(spec.model_bytes, &model));
  for (size_t a = 0; a < spec.arms.size(); ++a) {
    ArmResult arm_result;
    arm_result.arm = spec.arms[a];
    arm_result.cost = PlanTrainabilityCost(model.graph(), spec.options, spec.arms[a].trainability);
    out.arms.push_back(std::move(arm_result));
    TS_RETURN_IF_ERROR(ArmError(spec.arms[a], BuildArm(spec, spec.arms[a], &states[a])));
  }
  const DataSet& evaluation = spec.test.sample_count > 0 ? spec.test : spec.train;
  auto last_publish = std::chrono::steady_clock::now();
  const auto refresh = [&] {
    for (size_t a = 0; a < states.size(); ++a) {
      out.arms[a].median_step_seconds = Median(states[a].step_seconds);
    }
    if (publish) publish(out);
    last_publish = std::chrono::steady_clock::now();
  };
  const auto cancelled = [cancel] { return cancel != nullptr && cancel->load(); };

  for (uint32_t epoch = 1; epoch <= spec.options.epochs && !out.cancelled; ++epoch) {
    for (ArmState& state : states) {
      state.epoch_loss_sum = 0.0;
      if (state.alive) state.trainer->set_progress(state.trainer->optimizer_step(), epoch);
    }
    for (uint32_t s = 0; s < out.steps_per_epoch; ++s) {
      if (cancelled()) {
        out.cancelled = true;
        break;
      }
      for (size_t a = 0; a < states.size(); ++a) {
        ArmState& state = states[a];
        if (!state.alive) continue;
        float loss = 0.0f;
        const auto begin = std::chrono::steady_clock::now();
        const Status status = state.trainer->TrainStep(spec.train, s * batch, &loss);
        state.step_seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
        if (!status.ok()) {
          state.alive = false;
          out.arms[a].error = QString::fromUtf8(status.message());
          continue;
        }
        out.arms[a].step_loss.push_back(loss);
        state.epoch_loss_sum += loss;
      }
      if (std::chrono::steady_clock::now() - last_publish >= kPublishInterval) refresh();
    }
    if (out.cancelled) break;
    for (size_t a = 0; a < states.size(); ++a) {
      ArmState& state = states[a];
      if (!state.alive) continue;
      out.arms[a].epoch_loss.push_back(state.epoch_loss_sum / out.steps_per_epoch);
      if (spec.options.metric == MetricKind::kNone) continue;
      float metric = 0.0f;
      const Status status = state.trainer->Evaluate(evaluation, spec.options.metric, &metric);
      if (!status.ok()) {
        state.alive = false;
        out.arms[a].error = QString::fromUtf8(status.message());
        continue;
      }
      out.arms[a].epoch_metric.push_back(metric);
    }
    refresh();
  }
  out.running = false;
  refresh();
  return Status::Ok();
}

}  // namespace

QString DescribeTrainability(const Subgraph& subgraph, const TrainabilityConfig& config) {
  if (!config.op_ranks.empty()) {
    return QStringLiteral("%1 op(s) by rank").arg(config.op_ranks.size());
  }
  const size_t ops = subgraph.operators.size();
  if (config.num_train_layers == 0 || config.num_train_layers >= ops) {
    return QStringLiteral("all layers");
  }
  return config.num_train_layers == 1
             ? QStringLiteral("last layer")
             : QStringLiteral("last %1 layers").arg(config.num_train_layers);
}

Status ValidateExperiment(const ExperimentSpec& spec) {
  if (spec.arms.empty()) {
    return Status::Error(StatusCode::kInvalidArgument, "an experiment needs at least one arm");
  }
  if (spec.arms.size() > kMaxArms) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "an experiment has at most %zu arms, not %zu", kMaxArms, spec.arms.size());
  }
  if (spec.options.epochs == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "an experiment needs at least one epoch");
  }
  TS_RETURN_IF_ERROR(CheckBatchFits(spec.train, spec.options));
  Model model;
  TS_RETURN_IF_ERROR(Model::FromBytes(spec.model_bytes, &model));
  if (model.graph().subgraphs.empty()) {
    return Status::Error(StatusCode::kInvalidArgument, "the model has no subgraph to train");
  }
  for (const ExperimentArm& arm : spec.arms) {
    TS_RETURN_IF_ERROR(
        ArmError(arm, ValidateTrainabilityConfig(model.graph().main(), arm.trainability)));
  }
  return Status::Ok();
}

Status RunExperiment(const ExperimentSpec& spec, ExperimentSnapshot* result,
                     const std::atomic<bool>* cancel) {
  return Run(spec, result, cancel, {});
}

ExperimentRunner::~ExperimentRunner() {
  cancel();
}

Status ExperimentRunner::start(ExperimentSpec spec) {
  cancel();
  TS_RETURN_IF_ERROR(ValidateExperiment(spec));
  cancel_.store(false);
  // The first snapshot exists before the worker does: a view polling right away sees the arms.
  publish(Unstarted(spec));
  worker_ = std::thread([this, spec = std::move(spec)] {
    ExperimentSnapshot result;
    const Status status =
        Run(spec, &result, &cancel_, [this](const ExperimentSnapshot& s) { publish(s); });
    if (!status.ok()) {
      // Validated before the thread started; what is left is an arm whose trainer failed.
      if (result.arms.empty()) result = Unstarted(spec);
      result.running = false;
      for (ArmResult& arm : result.arms) {
        if (arm.error.isEmpty()) arm.error = QString::fromUtf8(status.message());
      }
      publish(result);
    }
  });
  return Status::Ok();
}

void ExperimentRunner::cancel() {
  cancel_.store(true);
  if (worker_.joinable()) worker_.join();
}

bool ExperimentRunner::running() const {
  const std::shared_ptr<const ExperimentSnapshot> latest = snapshot();
  return latest != nullptr && latest->running;
}

std::shared_ptr<const ExperimentSnapshot> ExperimentRunner::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return snapshot_;
}

void ExperimentRunner::publish(const ExperimentSnapshot& snapshot) {
  auto copy = std::make_shared<const ExperimentSnapshot>(snapshot);
  std::lock_guard<std::mutex> lock(mutex_);
  snapshot_ = std::move(copy);
}

}  // namespace trainscope
