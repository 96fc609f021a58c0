// SPDX-License-Identifier: Apache-2.0
//
// Trainer: onert-micro's training step, with correct math, running in one planned arena.
//
// Init() selects the backward range (SelectBackwardRange), builds the timeline of one train step
// (BuildTrainStepTimeline: onert-micro's plans with what TrainScope's kernels need), places every
// buffer in an arena with the offline planner, and copies the model's constants into aligned
// storage. TrainStep() then follows OMTrainingRuntimeModule::trainSingleStep: per sample, forward
// over all ops, the loss gradient, the backward loop over ops n-1 .. first_op (runBackward),
// weight gradients summed over the batch; then one optimizer update. Every buffer lives at its
// planned offset, and the heap figures account that same timeline, so the numbers reported are
// the ones the engine really used and equal ComputeMemoryReport's for the same setup.
//
// Where the step differs from onert-micro's own (values kept longer, scratch, widened half-rank
// gradients) a warning is recorded; warnings() lists them.
//
// Observation: with an observer attached the trainer emits the events of engine/core/events.h
// (and computes gradient statistics and update norms for them); without one, for events the
// observer leaves out of wanted_events(), or for the detail of a step it does not want
// (StepDetail), it skips that work entirely. Gradient statistics
// describe the batch's summed gradient, the one the optimizer applies: once per parameter and
// optimizer step, in the backward step of the batch's last sample that completes it. A gate,
// when set, is called before every backward step: the debugger blocks there to pause or
// single-step between backward ops.
//
//   Trainer trainer;
//   TS_RETURN_IF_ERROR(trainer.Init(&model, options, trainability));
//   for (uint32_t epoch = 0; epoch < options.epochs; ++epoch)
//     TS_RETURN_IF_ERROR(trainer.TrainEpoch(train_data, &mean_loss));
//   TS_RETURN_IF_ERROR(trainer.WriteWeightsToModel());   // then save model.bytes()
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/exec/constant_store.h"
#include "engine/exec/interpreter.h"
#include "engine/exec/timeline_arena.h"
#include "engine/memory/memory_timeline.h"
#include "engine/model/model.h"
#include "engine/plan/trainability.h"
#include "engine/train/optimizers.h"

namespace trainscope {

// Sample-major float data in onert-micro's driver layout: per graph input, sample_count x
// input elements; targets: sample_count x TargetElementCount(loss, output elements).
struct DataSet {
  std::vector<std::vector<float>> inputs;
  std::vector<float> targets;
  uint32_t sample_count = 0;
};

class ExecutionGate {
 public:
  virtual ~ExecutionGate() = default;
  // Called on the training thread before backward step `event.step` runs.
  virtual void BeforeBackwardStep(const BackwardStepEvent& event) = 0;
  // Asked right after BeforeBackwardStep in an optimizer step without detail: true turns the
  // forward and backward op events (those the observer wants) back on from this op to the end of
  // the step, so a debugger that needs to stop after an op can. Memory, statistics and update
  // ratios wait for the next detailed step: half a step of them would be a wrong picture.
  virtual bool ResumeOpEvents() { return false; }
};

// The figures of ComputeMemoryReport for the same optimizer, batch size and trainability: the
// heap peak, the arena and its lower bound. The MemoryEvents carry every buffer of the timeline,
// Adam's m and v included (allocated at tick 0 and freed at the optimizer tick of every step).
struct MemorySummary {
  uint64_t heap_peak_bytes = 0;    // one heap block per buffer (HeapAccounting)
  uint64_t arena_bytes = 0;        // the planned arena the trainer runs in
  uint64_t lower_bound_bytes = 0;  // most bytes live at any tick of that arena
};

// Which of a tensor's values ReadTensor copies.
enum class TensorAspect : uint8_t {
  kValue,     // a constant's current value, or an activation while it is live
  kGradient,  // dL/dT while its buffer is live; a weight gradient holds the batch's sum so far
  kAdamM,     // Adam's first moment of a trained parameter
  kAdamV,     // Adam's second moment
};
const char* TensorAspectName(TensorAspect aspect);  // "value", "gradient", "Adam m", "Adam v"

struct TensorCopy {
  std::vector<int32_t> shape;  // a half-rank gradient holds only its buffer's rows
  std::vector<float> values;
};

// The same values in place: valid until the step moves on (the next tick, event or gate call).
// What a board sends from without copying a tensor into RAM it does not have.
struct TensorView {
  static constexpr uint32_t kMaxRank = 6;
  const float* values = nullptr;
  uint32_t count = 0;
  uint32_t rank = 0;
  int32_t dims[kMaxRank] = {};  // a half-rank gradient's first dimension counts its rows
};

// The most operators at the end of `subgraph` that all have a backward kernel: the largest
// "last N layers" Init accepts (the operator count when every one has). A frozen feature
// extractor with forward-only operators (an LSTM, say) trains from the first op after its last
// such operator.
uint32_t TrainableTailLength(const Subgraph& subgraph);

class Trainer {
 public:
  Trainer() = default;
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // `model` must outlive the trainer; its bytes are only written by WriteWeightsToModel().
  Status Init(Model* model, const TrainingOptions& options, const TrainabilityConfig& config);

  // Reads observer->wanted_events() now; nullptr detaches.
  void set_observer(TrainingObserver* observer) {
    observer_ = observer;
    wanted_ = observer != nullptr ? observer->wanted_events() : 0u;
    step_wanted_ = wanted_;
  }
  void set_gate(ExecutionGate* gate) { gate_ = gate; }

  // One optimizer step over options.batch_size samples starting at `first_sample`.
  Status TrainStep(const DataSet& data, uint32_t first_sample, float* mean_loss = nullptr);
  // floor(sample_count / batch_size) steps in order; increments the epoch counter.
  Status TrainEpoch(const DataSet& data, float* mean_loss = nullptr);
  // Forward passes over every sample (inference plan), averaged like onert-micro's evaluateMetric.
  Status Evaluate(const DataSet& data, MetricKind metric, float* value);
  // Forward pass of one sample; outputs per graph output.
  Status Predict(const std::vector<const float*>& inputs, std::vector<std::vector<float>>* outputs);

  // Copies the trained parameters back into the model's constant buffers.
  Status WriteWeightsToModel();

  uint32_t optimizer_step() const { return optimizer_step_; }
  uint32_t epoch() const { return epoch_; }
  void set_progress(uint32_t optimizer_step, uint32_t epoch) {
    optimizer_step_ = optimizer_step;
    epoch_ = epoch;
  }
  const MemorySummary& memory() const { return memory_; }
  const MemoryTimeline& timeline() const { return timeline_; }
  // The trainer's own copy of the model's constants, outside the arena.
  size_t constant_bytes() const { return constants_.bytes(); }
  const BackwardSelection& selection() const { return selection_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  const TrainingOptions& options() const { return options_; }
  // Trainable parameter tensors with their current values (for checkpoints and views).
  float* parameter_data(int32_t tensor) { return constants_.floats(tensor); }
  const std::vector<ParameterGradient>& parameters() const { return parameters_; }
  // Adam state of a parameter (nullptr for SGD).
  float* adam_m(int32_t tensor);
  float* adam_v(int32_t tensor);
  // What a debugger reads while the step is paused (between ticks, at the gate or inside an
  // event): a copy of `tensor`'s `aspect` as the step holds it now. kInvalidArgument with the
  // reason when the engine does not hold it at this point (an activation outside its lifetime,
  // a frozen parameter's gradient, SGD's absent moments); kUnsupported for non-float tensors.
  Status ReadTensor(int32_t tensor, TensorAspect aspect, TensorCopy* copy) const;
  // ReadTensor without the copy (kUnsupported also for a rank above TensorView::kMaxRank).
  Status ViewTensor(int32_t tensor, TensorAspect aspect, TensorView* view) const;

 private:
  Status CheckData(const DataSet& data) const;
  Status AccountHeap();
  Status RunSample(const DataSet& data, uint32_t sample, uint32_t slot, float* loss);
  Status RunTick(uint32_t tick, const DataSet& data, uint32_t sample, float* loss);
  Status RunBackwardStep(const Tick& tick);
  void CompleteGradients(uint32_t op_index);
  Status RunOptimizer();
  Status BindParameters();

  // One trained tensor's buffers, resolved once by Init(): the arena and the constant storage
  // never move, so the steps only follow pointers.
  struct ParameterBinding {
    int32_t tensor = -1;
    uint32_t completed_by_op = 0;   // the backward step after which its gradient is whole
    ParameterSlice slice;           // weights, trained rows, the batch sum, Adam's m and v
    float* gradient_sum = nullptr;  // slice.gradient, writable: sample 0's buffer
  };

  Model* model_ = nullptr;
  const Subgraph* subgraph_ = nullptr;
  TrainingOptions options_;
  BackwardSelection selection_;
  std::vector<ParameterGradient> parameters_;
  MemoryTimeline timeline_;
  TimelineArena arena_;
  ConstantStore constants_;
  Interpreter interpreter_;  // Evaluate and Predict, on the weights as trained so far
  KernelViews views_;
  MemorySummary memory_;
  std::vector<uint64_t> heap_live_;                     // onert-style live bytes per tick
  std::vector<ParameterBinding> bindings_;              // one per trained tensor
  std::vector<int32_t> binding_of_tensor_;              // by tensor index, -1 for none
  std::vector<std::vector<uint32_t>> completed_by_op_;  // by op index: bindings it completes
  // By op index: its backward writes its parameter gradients whole in a batch's first sample.
  std::vector<uint8_t> sets_gradients_;
  // By binding: its gradient buffer holds a previous step's bytes until its op writes it.
  std::vector<uint8_t> gradient_unwritten_;
  uint32_t last_sample_tick_[2] = {};  // the last tick of each modelled sample's pass

  // Whether `event` (a kEvent* bit) goes to an attached observer in the step being run.
  bool Wants(uint32_t event) const { return (step_wanted_ & event) != 0; }

  TrainingObserver* observer_ = nullptr;
  uint32_t wanted_ = 0;       // observer_->wanted_events(), 0 without an observer
  uint32_t step_wanted_ = 0;  // wanted_ less the detail the observer left out of this step
  ExecutionGate* gate_ = nullptr;
  uint32_t optimizer_step_ = 0;
  uint32_t epoch_ = 0;
  uint32_t batch_index_ = 0;  // the sample being run, within its batch (what events report)
  std::vector<std::string> warnings_;
};

}  // namespace trainscope
