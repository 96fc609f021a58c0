// SPDX-License-Identifier: Apache-2.0
#include "serial/compare/reference_step.h"

#include <algorithm>
#include <cstring>

namespace trainscope {
namespace {

// Reads the plan's tensors at each point as the step reaches it. Inside an event the trainer
// holds exactly what a board paused at the same event holds.
class PlanReader final : public TrainingObserver {
 public:
  PlanReader(const Trainer* trainer, const ProbePlan* plan, std::vector<ProbeReading>* out)
      : trainer_(trainer), plan_(plan), out_(out) {}

  uint32_t wanted_events() const override {
    return kEventSample | kEventBackwardStep | kEventOptimizerStep;
  }
  void OnSample(const SampleEvent& event) override {
    if (event.begin) sample_ = event.sample;
  }
  void OnBackwardStep(const BackwardStepEvent& event) override {
    if (event.begin) return;
    ReadAt({ProbeMoment::kAfterBackwardOp, sample_, event.op_index, event.step});
  }
  void OnOptimizerStep(const OptimizerStepEvent&) override {
    ReadAt({ProbeMoment::kAfterUpdate, 0, 0, 0});
  }

 private:
  void ReadAt(const ProbePoint& point) {
    for (const ProbeRead& read : plan_->ReadsAt(point)) {
      ProbeReading reading;
      reading.point = point;
      reading.read = read;
      const Status status = trainer_->ReadTensor(read.tensor, read.aspect, &reading.copy);
      reading.held = status.ok();
      if (!status.ok()) reading.reason = status.message();
      out_->push_back(std::move(reading));
    }
  }

  const Trainer* trainer_;
  const ProbePlan* plan_;
  std::vector<ProbeReading>* out_;
  uint32_t sample_ = 0;
};

Status Restore(Trainer* trainer, const Subgraph& subgraph, const ProbeReading& reading) {
  const ProbeRead& read = reading.read;
  const std::string& name = subgraph.tensors[static_cast<size_t>(read.tensor)].name;
  if (!reading.held) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "the board did not send %s's %s at the step's start: %s", name.c_str(),
                         TensorAspectName(read.aspect), reading.reason.c_str());
  }
  TensorView view;
  TS_RETURN_IF_ERROR(trainer->ViewTensor(read.tensor, read.aspect, &view));
  if (view.count != reading.copy.values.size()) {
    return Status::Error(
        StatusCode::kInvalidArgument, "the board's %s of %s has %u values; the reference holds %u",
        TensorAspectName(read.aspect), name.c_str(),
        static_cast<unsigned>(reading.copy.values.size()), static_cast<unsigned>(view.count));
  }
  float* target = read.aspect == TensorAspect::kValue   ? trainer->parameter_data(read.tensor)
                  : read.aspect == TensorAspect::kAdamM ? trainer->adam_m(read.tensor)
                                                        : trainer->adam_v(read.tensor);
  if (target == nullptr || target != view.values) {
    return Status::Error(StatusCode::kInvalidArgument, "%s's %s cannot be set", name.c_str(),
                         TensorAspectName(read.aspect));
  }
  std::memcpy(target, reading.copy.values.data(), view.count * sizeof(float));
  return Status::Ok();
}

}  // namespace

uint32_t FirstSampleOfStep(uint32_t step, uint32_t sample_count, uint32_t batch_size) {
  const uint32_t steps_per_epoch = batch_size > 0 ? sample_count / batch_size : 0;
  if (steps_per_epoch == 0 || step == 0) return 0;
  return ((step - 1) % steps_per_epoch) * batch_size;
}

Status RunReferenceStep(Model* model, const TrainingOptions& options,
                        const TrainabilityConfig& trainability, const DataSet& data, uint32_t step,
                        const ProbePlan& plan, const std::vector<ProbeReading>& start,
                        std::vector<ProbeReading>* readings) {
  if (step == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "optimizer steps count from 1");
  }
  Trainer trainer;
  TS_RETURN_IF_ERROR(trainer.Init(model, options, trainability));
  const Subgraph& subgraph = model->graph().main();
  for (const ProbeReading& reading : start) {
    TS_RETURN_IF_ERROR(Restore(&trainer, subgraph, reading));
  }
  // Adam's bias correction counts the steps done before this one.
  trainer.set_progress(step - 1, 0);
  PlanReader reader(&trainer, &plan, readings);
  trainer.set_observer(&reader);
  const Status status =
      trainer.TrainStep(data, FirstSampleOfStep(step, data.sample_count, options.batch_size));
  trainer.set_observer(nullptr);
  return status;
}

}  // namespace trainscope
