// SPDX-License-Identifier: Apache-2.0
#include "engine/exec/trainer.h"
#include "engine/core/float_storage.h"

#include <cstring>

#include "engine/core/clock.h"
#include "engine/kernels/dense_loops.h"
#include "engine/kernels/kernel.h"
#include "engine/memory/heap_accounting.h"
#include "engine/memory/memory_events.h"
#include "engine/memory/train_step_timeline.h"
#include "engine/plan/onert_differences.h"
#include "engine/train/gradient_stats.h"
#include "engine/train/losses.h"
#include "engine/train/metrics.h"
#include "engine/train/optimizers.h"

namespace trainscope {
namespace {

std::string TensorLabel(const Subgraph& subgraph, int32_t tensor) {
  return "tensor " + std::to_string(tensor) + " '" + subgraph.tensors[tensor].name + "'";
}

bool HasBackwardKernel(int32_t opcode) {
  const OpRegistration* registration = FindRegistration(opcode);
  return registration != nullptr && registration->backward != nullptr;
}

// With onert-micro's math the user should know, per op, what the step now computes as a board
// would, and what it cannot (a board would fail there, or compute values nobody can predict).
void NoteOnertMath(const Subgraph& subgraph, const BackwardSelection& selection,
                   const TrainingOptions& options, std::vector<std::string>* warnings) {
  for (const OnertDifference& d : FindOnertDifferences(subgraph, selection, options.optimizer)) {
    const char* name = OpcodeName(subgraph.operators[d.op_index].opcode);
    warnings->push_back("op " + std::to_string(d.op_index) + " (" + (name ? name : "?") + "): " +
                        (ReproducedByOnertMath(d.kind) ? "computed as onert-micro does: "
                                                       : "not reproduced by onert-micro math: ") +
                        d.text);
  }
}

}  // namespace

uint32_t TrainableTailLength(const Subgraph& subgraph) {
  uint32_t length = 0;
  for (size_t k = subgraph.operators.size(); k > 0; --k, ++length) {
    if (!HasBackwardKernel(subgraph.operators[k - 1].opcode)) break;
  }
  return length;
}

Status Trainer::Init(Model* model, const TrainingOptions& options,
                     const TrainabilityConfig& config) {
  model_ = model;
  subgraph_ = &model->graph().main();
  options_ = options;
  warnings_.clear();
  const Subgraph& sg = *subgraph_;
  if (options.batch_size == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "batch size must be at least 1");
  }
  TS_RETURN_IF_ERROR(CheckRunnable(sg));
  TS_RETURN_IF_ERROR(ValidateTrainabilityConfig(sg, config));
  if (sg.outputs.empty()) {
    return Status::Error(StatusCode::kInvalidModel, "the model has no graph output to train");
  }
  selection_ = SelectBackwardRange(sg, config);
  for (uint32_t k = selection_.first_op; k < sg.operators.size(); ++k) {
    if (!HasBackwardKernel(sg.operators[k].opcode)) {
      return Status::Error(StatusCode::kUnsupported,
                           "operator %u (%s) has no backward kernel; train only the operators "
                           "after it (at most --train-layers %u)",
                           static_cast<unsigned>(k), OpcodeName(sg.operators[k].opcode),
                           static_cast<unsigned>(TrainableTailLength(sg)));
    }
  }
  parameters_ = ListParameterGradients(sg, selection_);

  TrainStepOptions step_options;
  step_options.optimizer = options.optimizer;
  step_options.batch_size = options.batch_size;
  TS_RETURN_IF_ERROR(BuildTrainStepTimeline(sg, selection_, step_options, &timeline_));
  warnings_ = timeline_.warnings;
  if (options.math == BackwardMath::kOnertMicro) NoteOnertMath(sg, selection_, options, &warnings_);
  TS_RETURN_IF_ERROR(arena_.Plan(timeline_));
  memory_.arena_bytes = arena_.arena_bytes();
  memory_.lower_bound_bytes = arena_.lower_bound_bytes();
  TS_RETURN_IF_ERROR(AccountHeap());

  constants_.Load(*model, sg);
  TS_RETURN_IF_ERROR(interpreter_.Init(*model, &constants_));
  views_.values.assign(sg.tensors.size(), nullptr);
  views_.gradients.assign(sg.tensors.size(), nullptr);
  views_.scratch.assign(sg.operators.size(), nullptr);
  for (size_t t = 0; t < sg.tensors.size(); ++t) {
    if (sg.tensors[t].constant) views_.values[t] = constants_.data(static_cast<int32_t>(t));
  }
  for (const ParameterGradient& p : parameters_) {
    if (sg.tensors[p.tensor].shared_buffer) {
      warnings_.push_back(TensorLabel(sg, p.tensor) +
                          " shares its buffer with another constant; "
                          "TrainScope trains its own copy");
    }
  }
  TS_RETURN_IF_ERROR(BindParameters());
  optimizer_step_ = 0;
  epoch_ = 0;
  return Status::Ok();
}

// Finds every trained tensor's gradient buffers and Adam state in the timeline, once: a tensor
// listed for several operators (one constant feeding two ops) is bound once, completed by the
// backward step that runs last, the lowest operator's.
Status Trainer::BindParameters() {
  const Subgraph& sg = *subgraph_;
  bindings_.clear();
  binding_of_tensor_.assign(sg.tensors.size(), -1);
  completed_by_op_.assign(sg.operators.size(), {});
  std::vector<int32_t> gradient(sg.tensors.size(), -1), later(sg.tensors.size(), -1);
  std::vector<int32_t> moment_m(sg.tensors.size(), -1), moment_v(sg.tensors.size(), -1);
  for (uint32_t b = 0; b < timeline_.buffers.size(); ++b) {
    const TimelineBuffer& buffer = timeline_.buffers[b];
    if (buffer.tensor < 0) continue;
    const size_t t = static_cast<size_t>(buffer.tensor);
    const int32_t id = static_cast<int32_t>(b);
    if (buffer.storage == BufferStorage::kBackward) {
      int32_t& slot = buffer.sample == 0 ? gradient[t] : later[t];
      if (slot < 0) slot = id;
    } else if (buffer.storage == BufferStorage::kOptimizer) {
      // Adam's m and v are the first and second optimizer buffers of a tensor.
      if (moment_m[t] < 0) {
        moment_m[t] = id;
      } else if (moment_v[t] < 0) {
        moment_v[t] = id;
      }
    }
  }
  auto data = [this](int32_t id) {
    return id < 0 ? nullptr : AsFloats(arena_.data(static_cast<uint32_t>(id)));
  };
  for (const ParameterGradient& p : parameters_) {
    const size_t t = static_cast<size_t>(p.tensor);
    if (gradient[t] < 0) continue;
    if (binding_of_tensor_[t] >= 0) {
      ParameterBinding& known = bindings_[static_cast<size_t>(binding_of_tensor_[t])];
      if (p.op_index < known.completed_by_op) known.completed_by_op = p.op_index;
      continue;
    }
    ParameterBinding binding;
    binding.tensor = p.tensor;
    binding.completed_by_op = p.op_index;
    ParameterSlice& slice = binding.slice;
    slice.weights = constants_.floats(p.tensor);
    slice.element_count = sg.tensors[t].element_count();
    slice.row_elements = p.rows > 0 ? slice.element_count / p.rows : slice.element_count;
    slice.first_row = p.row_begin;
    slice.row_count = p.row_end - p.row_begin;
    binding.gradient_sum = data(gradient[t]);
    slice.gradient = binding.gradient_sum;
    slice.adam_m = data(moment_m[t]);
    slice.adam_v = data(moment_v[t]);
    if (options_.math == BackwardMath::kOnertMicro) {
      slice = AsOnertMicroUpdates(options_.optimizer, slice);
    }
    // A later sample's backward accumulates straight into the batch sum (kernels add into their
    // gradient buffers): its own buffer stays planned, as on a board, but is never written or
    // summed, which was more than half of a batch step on wide layers.
    if (later[t] >= 0) {
      arena_.Alias(static_cast<uint32_t>(later[t]), static_cast<uint32_t>(gradient[t]));
    }
    binding_of_tensor_[t] = static_cast<int32_t>(bindings_.size());
    bindings_.push_back(binding);
  }
  for (uint32_t id = 0; id < bindings_.size(); ++id) {
    completed_by_op_[bindings_[id].completed_by_op].push_back(id);
  }
  // An op whose backward writes its parameter gradients whole gets them unfilled in a batch's
  // first sample, when no other op adds into them (a constant feeding two ops is summed).
  sets_gradients_.assign(sg.operators.size(), 0);
  gradient_unwritten_.assign(bindings_.size(), 0);
  std::vector<uint32_t> uses(sg.tensors.size(), 0);
  for (const ParameterGradient& p : parameters_) ++uses[static_cast<size_t>(p.tensor)];
  std::vector<uint8_t> only_writer(sg.operators.size(), 1);
  for (const ParameterGradient& p : parameters_) {
    const int32_t id = binding_of_tensor_[static_cast<size_t>(p.tensor)];
    if (uses[static_cast<size_t>(p.tensor)] != 1 || id < 0 ||
        bindings_[static_cast<size_t>(id)].completed_by_op != p.op_index) {
      only_writer[p.op_index] = 0;
    }
  }
  for (uint32_t k = 0; k < sg.operators.size(); ++k) {
    const OpRegistration* registration = FindRegistration(sg.operators[k].opcode);
    if (completed_by_op_[k].empty() || only_writer[k] == 0 || registration == nullptr ||
        !registration->sets_parameter_gradients ||
        BackwardOf(*registration, options_.math) != registration->backward) {
      continue;
    }
    sets_gradients_[k] = 1;
    for (uint32_t id : completed_by_op_[k]) {
      const size_t tensor = static_cast<size_t>(bindings_[id].tensor);
      arena_.SkipZeroFill(static_cast<uint32_t>(gradient[tensor]));
    }
  }
  last_sample_tick_[0] = last_sample_tick_[1] = 0;
  for (uint32_t t = 0; t < timeline_.ticks.size(); ++t) {
    const Tick& tick = timeline_.ticks[t];
    if (tick.kind != TickKind::kOptimizerStep && tick.sample < 2)
      last_sample_tick_[tick.sample] = t;
  }
  return Status::Ok();
}

// The heap accounting of the timeline the arena runs: the same figures ComputeMemoryReport
// gives for this setup, tick by tick.
Status Trainer::AccountHeap() {
  HeapAccounting heap;
  TS_RETURN_IF_ERROR(AddTimeline(timeline_, &heap));
  TS_RETURN_IF_ERROR(heap.Plan());
  memory_.heap_peak_bytes = heap.peak_bytes();
  heap_live_.resize(timeline_.ticks.size());
  for (uint32_t t = 0; t < timeline_.ticks.size(); ++t) heap_live_[t] = heap.current_bytes(t);
  return Status::Ok();
}

Status Trainer::CheckData(const DataSet& data) const {
  const Subgraph& sg = *subgraph_;
  if (data.inputs.size() != sg.inputs.size()) {
    return Status::Error(StatusCode::kInvalidArgument, "the model has %zu inputs, the data %zu",
                         sg.inputs.size(), data.inputs.size());
  }
  for (size_t i = 0; i < sg.inputs.size(); ++i) {
    const size_t per_sample = sg.tensors[sg.inputs[i]].element_count();
    if (data.inputs[i].size() < per_sample * data.sample_count) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "input %zu holds %zu floats; %u samples need %zu", i,
                           data.inputs[i].size(), static_cast<unsigned>(data.sample_count),
                           static_cast<size_t>(per_sample * data.sample_count));
    }
  }
  const size_t per_target =
      TargetElementCount(options_.loss, sg.tensors[sg.outputs[0]].element_count());
  if (data.targets.size() < per_target * data.sample_count) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "targets hold %zu floats; %u samples need %zu (%zu per sample)",
                         data.targets.size(), static_cast<unsigned>(data.sample_count),
                         static_cast<size_t>(per_target * data.sample_count), per_target);
  }
  return Status::Ok();
}

Status Trainer::RunBackwardStep(const Tick& tick) {
  const Subgraph& sg = *subgraph_;
  const uint32_t k = static_cast<uint32_t>(tick.op_index);
  const Operator& op = sg.operators[k];
  const OpTrainability& trainability = selection_.ops[k];
  BackwardStepEvent event;
  event.step = tick.step;
  event.op_index = k;
  event.opcode = op.opcode;
  event.trainable = trainability.has_parameter_gradients;
  event.rank = trainability.rank;
  event.is_last_layer = trainability.is_last_layer;
  if (gate_ != nullptr) {
    gate_->BeforeBackwardStep(event);
    constexpr uint32_t kOpEvents = kEventForwardOp | kEventBackwardStep;
    if ((step_wanted_ & kOpEvents) != (wanted_ & kOpEvents) && gate_->ResumeOpEvents()) {
      step_wanted_ |= wanted_ & kOpEvents;
    }
  }
  const bool timed = Wants(kEventBackwardStep);
  if (timed) observer_->OnBackwardStep(event);
  const uint64_t start = timed ? MonotonicNowNs() : 0;
  BackwardIo io;
  io.subgraph = &sg;
  io.op = &op;
  io.op_index = k;
  io.tensor_data = views_.values.data();
  io.gradients = views_.gradients.data();
  io.is_last_layer = trainability.is_last_layer;
  io.trainable = trainability.has_parameter_gradients;
  io.rank = trainability.rank;
  io.scratch = views_.scratch[k];
  io.parameter_gradients_unset = sets_gradients_[k] != 0 && batch_index_ == 0;
  Status status = BackwardOf(*FindRegistration(op.opcode), options_.math)(io);
  if (!status.ok()) return status.Prepend("backward step " + std::to_string(tick.step));
  if (timed) {
    event.begin = false;
    event.duration_ns = MonotonicNowNs() - start;
    observer_->OnBackwardStep(event);
  }
  for (uint32_t id : completed_by_op_[k]) gradient_unwritten_[id] = 0;
  CompleteGradients(k);
  return Status::Ok();
}

// After backward step `op_index`: in the batch's last sample the parameter gradients it completed
// hold the whole batch sum (every sample accumulates into sample 0's buffers, as onert-micro's
// optimizers sum them), and their statistics go to the observer, once per optimizer step.
void Trainer::CompleteGradients(uint32_t op_index) {
  if (batch_index_ + 1 != options_.batch_size || !Wants(kEventGradientStats)) return;
  for (uint32_t id : completed_by_op_[op_index]) {
    const ParameterBinding& binding = bindings_[id];
    const size_t count = TrainedElementCount(binding.slice);
    GradientStatsEvent event = ComputeGradientStats(binding.gradient_sum, count);
    event.optimizer_step = optimizer_step_;
    event.op_index = op_index;
    event.tensor = binding.tensor;
    observer_->OnGradientStats(event);
  }
}

Status Trainer::RunTick(uint32_t t, const DataSet& data, uint32_t sample, float* loss) {
  const Subgraph& sg = *subgraph_;
  const Tick& tick = timeline_.ticks[t];
  switch (tick.kind) {
    case TickKind::kForwardOp: {
      const uint32_t k = static_cast<uint32_t>(tick.op_index);
      if (k == 0) {
        for (size_t i = 0; i < sg.inputs.size(); ++i) {
          const size_t count = sg.tensors[sg.inputs[i]].element_count();
          std::memcpy(views_.values[sg.inputs[i]], data.inputs[i].data() + count * sample,
                      count * sizeof(float));
        }
      }
      const Operator& op = sg.operators[k];
      const bool timed = Wants(kEventForwardOp);
      const uint64_t start = timed ? MonotonicNowNs() : 0;
      TS_RETURN_IF_ERROR(FindRegistration(op.opcode)->eval({&sg, &op, k, views_.values.data()}));
      if (timed) observer_->OnForwardOp({k, op.opcode, MonotonicNowNs() - start});
      return Status::Ok();
    }
    case TickKind::kLossGradient: {
      const int32_t output = sg.outputs[0];
      const size_t count = sg.tensors[output].element_count();
      const size_t per_target = TargetElementCount(options_.loss, count);
      Status status = ComputeLoss(options_.loss, static_cast<const float*>(views_.values[output]),
                                  data.targets.data() + per_target * sample, count, loss,
                                  views_.gradients[output]);
      if (!status.ok()) return status.Prepend("sample " + std::to_string(sample));
      if (Wants(kEventLoss)) observer_->OnLoss({optimizer_step_, batch_index_, *loss});
      return Status::Ok();
    }
    case TickKind::kBackwardStep:
      return RunBackwardStep(tick);
    case TickKind::kOptimizerStep:
      break;
  }
  return Status::Ok();
}

Status Trainer::RunSample(const DataSet& data, uint32_t sample, uint32_t slot, float* loss) {
  if (Wants(kEventSample)) observer_->OnSample({epoch_, optimizer_step_, batch_index_, true});
  TrainingObserver* memory_observer = Wants(kEventMemory) ? observer_ : nullptr;
  const uint32_t first = slot == 0 ? 0 : last_sample_tick_[0] + 1;
  for (uint32_t t = first; t <= last_sample_tick_[slot]; ++t) {
    const Tick& tick = timeline_.ticks[t];
    arena_.Bind(t, true, &views_, memory_observer);
    TS_RETURN_IF_ERROR(RunTick(t, data, sample, loss));
    if (Wants(kEventMemorySummary)) {
      observer_->OnMemorySummary(
          {t, tick.phase(), tick.step, heap_live_[t], memory_.heap_peak_bytes});
    }
    arena_.Bind(t, false, &views_, memory_observer);
  }
  if (Wants(kEventSample)) observer_->OnSample({epoch_, optimizer_step_, batch_index_, false});
  return Status::Ok();
}

Status Trainer::RunOptimizer() {
  const Subgraph& sg = *subgraph_;
  const uint32_t t = static_cast<uint32_t>(timeline_.ticks.size() - 1);
  TrainingObserver* memory_observer = Wants(kEventMemory) ? observer_ : nullptr;
  arena_.Bind(t, true, &views_, memory_observer);
  const bool ratios = Wants(kEventUpdateRatio);
  OptimizerStep step;
  TS_RETURN_IF_ERROR(PrepareOptimizerStep(options_, optimizer_step_, &step));
  step.fast_adam = UsingFastKernels();
  for (const ParameterBinding& binding : bindings_) {
    UpdateNorms norms;
    Status status = ApplyOptimizerStep(step, binding.slice, ratios ? &norms : nullptr);
    if (!status.ok()) return status.Prepend(TensorLabel(sg, binding.tensor));
    if (ratios) {
      observer_->OnUpdateRatio(MakeUpdateRatioEvent(optimizer_step_, binding.tensor, norms));
    }
  }
  if (Wants(kEventMemorySummary)) {
    observer_->OnMemorySummary({t, Phase::kOptimizer, 0, heap_live_[t], memory_.heap_peak_bytes});
  }
  arena_.Bind(t, false, &views_, memory_observer);
  return Status::Ok();
}

Status Trainer::TrainStep(const DataSet& data, uint32_t first_sample, float* mean_loss) {
  TS_RETURN_IF_ERROR(CheckData(data));
  if (first_sample + options_.batch_size > data.sample_count) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "a batch of %u from sample %u needs %u samples; the data has %u",
                         static_cast<unsigned>(options_.batch_size),
                         static_cast<unsigned>(first_sample),
                         static_cast<unsigned>(first_sample + options_.batch_size),
                         static_cast<unsigned>(data.sample_count));
  }
  ++optimizer_step_;
  for (uint32_t id = 0; id < bindings_.size(); ++id) {
    gradient_unwritten_[id] = sets_gradients_[bindings_[id].completed_by_op];
  }
  step_wanted_ = wanted_;
  if ((wanted_ & kDetailEvents) != 0) {
    step_wanted_ &= ~kDetailEvents | observer_->StepDetail(optimizer_step_);
  }
  double loss_sum = 0.0;
  for (uint32_t b = 0; b < options_.batch_size; ++b) {
    float loss = 0.0f;
    batch_index_ = b;
    TS_RETURN_IF_ERROR(RunSample(data, first_sample + b, b == 0 ? 0 : 1, &loss));
    loss_sum += loss;
  }
  TS_RETURN_IF_ERROR(RunOptimizer());
  if (Wants(kEventOptimizerStep)) {
    observer_->OnOptimizerStep({epoch_, optimizer_step_, options_.batch_size});
  }
  if (mean_loss != nullptr) *mean_loss = static_cast<float>(loss_sum / options_.batch_size);
  return Status::Ok();
}

Status Trainer::TrainEpoch(const DataSet& data, float* mean_loss) {
  const uint32_t steps = data.sample_count / options_.batch_size;
  if (steps == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "%u samples are fewer than one batch of %u",
                         static_cast<unsigned>(data.sample_count),
                         static_cast<unsigned>(options_.batch_size));
  }
  ++epoch_;
  double sum = 0.0;
  for (uint32_t s = 0; s < steps; ++s) {
    float loss = 0.0f;
    TS_RETURN_IF_ERROR(TrainStep(data, s * options_.batch_size, &loss));
    sum += loss;
  }
  if (mean_loss != nullptr) *mean_loss = static_cast<float>(sum / steps);
  return Status::Ok();
}

Status Trainer::Predict(const std::vector<const float*>& inputs,
                        std::vector<std::vector<float>>* outputs) {
  return interpreter_.Run(inputs, outputs);
}

Status Trainer::Evaluate(const DataSet& data, MetricKind metric, float* value) {
  const Subgraph& sg = *subgraph_;
  const size_t output_count = sg.tensors[sg.outputs[0]].element_count();
  const size_t per_target = TargetElementCount(metric, output_count);
  if (data.sample_count == 0 || data.targets.size() < per_target * data.sample_count ||
      data.inputs.size() != sg.inputs.size()) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "evaluation data: %u samples, %zu target floats (%zu per sample)",
                         static_cast<unsigned>(data.sample_count), data.targets.size(), per_target);
  }
  double sum = 0.0;
  std::vector<std::vector<float>> outputs;
  for (uint32_t s = 0; s < data.sample_count; ++s) {
    std::vector<const float*> inputs;
    for (size_t i = 0; i < sg.inputs.size(); ++i) {
      inputs.push_back(data.inputs[i].data() + sg.tensors[sg.inputs[i]].element_count() * s);
    }
    TS_RETURN_IF_ERROR(interpreter_.Run(inputs, &outputs));
    float sample_value = 0.0f;
    TS_RETURN_IF_ERROR(ComputeMetric(metric, outputs[0].data(),
                                     data.targets.data() + per_target * s, output_count,
                                     &sample_value));
    sum += sample_value;
  }
  *value = static_cast<float>(sum / data.sample_count);
  return Status::Ok();
}

float* Trainer::adam_m(int32_t tensor) {
  if (tensor < 0 || static_cast<size_t>(tensor) >= binding_of_tensor_.size()) return nullptr;
  const int32_t id = binding_of_tensor_[static_cast<size_t>(tensor)];
  return id < 0 ? nullptr : bindings_[static_cast<size_t>(id)].slice.adam_m;
}

float* Trainer::adam_v(int32_t tensor) {
  if (tensor < 0 || static_cast<size_t>(tensor) >= binding_of_tensor_.size()) return nullptr;
  const int32_t id = binding_of_tensor_[static_cast<size_t>(tensor)];
  return id < 0 ? nullptr : bindings_[static_cast<size_t>(id)].slice.adam_v;
}

Status Trainer::WriteWeightsToModel() {
  std::vector<int32_t> tensors;
  for (const ParameterGradient& p : parameters_) tensors.push_back(p.tensor);
  constants_.WriteBack(tensors, *subgraph_, model_);
  return Status::Ok();
}

}  // namespace trainscope
