// SPDX-License-Identifier: Apache-2.0
#include "engine/memory/memory_timeline.h"

#include <map>
#include <set>

namespace trainscope {
namespace {

constexpr uint32_t kOpenLifetime = 0xffffffffu;

// Replays the plans against onert-micro's storages: tensor index -> buffer, per storage.
class StepSimulator {
 public:
  StepSimulator(const Subgraph& subgraph, const TimelineOptions& options, MemoryTimeline* timeline)
      : subgraph_(subgraph), options_(options), timeline_(*timeline) {}

  void BeginTick(TickKind kind, uint32_t sample, uint32_t step, int32_t op_index) {
    Tick tick;
    tick.kind = kind;
    tick.sample = sample;
    tick.step = step;
    tick.op_index = op_index;
    timeline_.ticks.push_back(tick);
  }

  uint32_t current_tick() const { return static_cast<uint32_t>(timeline_.ticks.size() - 1); }

  void AllocateGraphInputs(uint32_t sample) {
    for (int32_t input : subgraph_.inputs) {
      if (subgraph_.tensors[static_cast<size_t>(input)].constant) continue;
      Allocate(&forward_, BufferStorage::kForward, input, MemoryCategory::kInput, sample,
               TensorBytes(input));
    }
  }

  void AllocateForward(const std::vector<int32_t>& tensors, uint32_t sample) {
    for (int32_t tensor : tensors) {
      Allocate(&forward_, BufferStorage::kForward, tensor, MemoryCategory::kActivation, sample,
               TensorBytes(tensor));
    }
  }

  void FreeForward(const std::vector<int32_t>& tensors) {
    for (int32_t tensor : tensors) Release(&forward_, tensor);
  }

  void AllocateLossGradients(uint32_t sample) {
    for (int32_t output : subgraph_.outputs) {
      Allocate(&backward_, BufferStorage::kBackward, output, MemoryCategory::kLossGradient, sample,
               TensorBytes(output));
    }
  }

  // `gradient_bytes`: GradientBufferBytesByTensor().
  void AllocateGradients(const std::vector<int32_t>& tensors,
                         const std::vector<size_t>& gradient_bytes, uint32_t sample) {
    for (int32_t tensor : tensors) {
      const bool constant = subgraph_.tensors[static_cast<size_t>(tensor)].constant;
      Allocate(&backward_, BufferStorage::kBackward, tensor,
               constant ? MemoryCategory::kWeightGradient : MemoryCategory::kActivationGradient,
               sample,
               constant ? gradient_bytes[static_cast<size_t>(tensor)] : TensorBytes(tensor));
    }
  }

  void AddTemporary(uint32_t op_index, uint64_t bytes, uint32_t sample) {
    if (bytes == 0) return;
    TimelineBuffer buffer;
    buffer.op_index = static_cast<int32_t>(op_index);
    buffer.storage = BufferStorage::kKernel;
    buffer.category = MemoryCategory::kTemporary;
    buffer.sample = sample;
    buffer.bytes = bytes;
    buffer.first_tick = buffer.last_tick = current_tick();
    timeline_.buffers.push_back(buffer);
  }

  // The backward plan's free list is applied to both storages (runBackward).
  void FreeBackwardStep(const std::vector<int32_t>& tensors) {
    for (int32_t tensor : tensors) {
      Release(&backward_, tensor);
      Release(&forward_, tensor);
    }
  }

  // OMTrainingHandler::updateOptimizerState: the first sample's buffers move to the optimizer;
  // later samples are summed into them and released by the graph reset.
  void HandOverGradients(uint32_t sample) {
    for (const auto& entry : backward_) {
      const TimelineBuffer& buffer = timeline_.buffers[entry.second];
      if (buffer.category != MemoryCategory::kWeightGradient && sample == 0) {
        const Tensor& tensor = subgraph_.tensors[static_cast<size_t>(entry.first)];
        Warn("tensor " + std::to_string(entry.first) + " '" + tensor.name + "': its " +
             MemoryCategoryName(buffer.category) +
             " is still in the backward storage after the backward pass; onert-micro's "
             "optimizer takes it as a parameter gradient");
      }
    }
    if (sample != 0) return;
    if (options_.optimizer == OptimizerKind::kAdam) {
      for (const auto& entry : backward_) {
        const uint64_t bytes = timeline_.buffers[entry.second].bytes;
        for (int moment = 0; moment < 2; ++moment) AddPersistentState(entry.first, bytes);
      }
    }
    optimizer_ = backward_;
    backward_.clear();
  }

  void ResetStorages() {
    for (auto* storage : {&backward_, &forward_}) {
      for (const auto& entry : *storage) timeline_.buffers[entry.second].last_tick = current_tick();
      storage->clear();
    }
  }

  void FinishOptimizerStep() {
    for (const auto& entry : optimizer_) timeline_.buffers[entry.second].last_tick = current_tick();
    optimizer_.clear();
    for (TimelineBuffer& buffer : timeline_.buffers) {
      if (buffer.persistent) buffer.last_tick = current_tick();
    }
  }

  // Inference: whatever the plan never frees lives to the end.
  void CloseRemaining() {
    for (TimelineBuffer& buffer : timeline_.buffers) {
      if (buffer.last_tick == kOpenLifetime) buffer.last_tick = current_tick();
    }
    forward_.clear();
    backward_.clear();
  }

  // Forward buffers still live when the loss gradient is computed were kept for backward.
  void MarkKeptActivations() {
    for (TimelineBuffer& buffer : timeline_.buffers) {
      if (buffer.storage != BufferStorage::kForward ||
          buffer.category != MemoryCategory::kActivation) {
        continue;
      }
      const uint32_t last = buffer.last_tick;
      if (last < timeline_.ticks.size() && timeline_.ticks[last].kind != TickKind::kForwardOp) {
        buffer.category = MemoryCategory::kActivationKept;
      }
    }
  }

 private:
  using Storage = std::map<int32_t, size_t>;

  uint64_t TensorBytes(int32_t tensor) const {
    return subgraph_.tensors[static_cast<size_t>(tensor)].bytes;
  }

  void Warn(const std::string& message) {
    if (warned_.insert(message).second) timeline_.warnings.push_back(message);
  }

  void Allocate(Storage* storage, BufferStorage kind, int32_t tensor, MemoryCategory category,
                uint32_t sample, uint64_t bytes) {
    const Tensor& t = subgraph_.tensors[static_cast<size_t>(tensor)];
    if (storage->count(tensor) != 0) {
      Warn("tensor " + std::to_string(tensor) + " '" + t.name +
           "' is allocated again while its buffer is live; onert-micro would leak the first one");
      return;
    }
    if (bytes == 0) {
      Warn("tensor " + std::to_string(tensor) + " '" + t.name +
           "' needs 0 bytes; onert-micro refuses zero-size allocations");
      return;
    }
    TimelineBuffer buffer;
    buffer.tensor = tensor;
    buffer.storage = kind;
    buffer.category = category;
    buffer.sample = sample;
    buffer.bytes = bytes;
    buffer.first_tick = current_tick();
    buffer.last_tick = kOpenLifetime;
    (*storage)[tensor] = timeline_.buffers.size();
    timeline_.buffers.push_back(buffer);
  }

  void Release(Storage* storage, int32_t tensor) {
    auto found = storage->find(tensor);
    if (found == storage->end()) return;  // onert-micro skips missing entries
    timeline_.buffers[found->second].last_tick = current_tick();
    storage->erase(found);
  }

  void AddPersistentState(int32_t tensor, uint64_t bytes) {
    TimelineBuffer buffer;
    buffer.tensor = tensor;
    buffer.storage = BufferStorage::kOptimizer;
    buffer.category = MemoryCategory::kOptimizerState;
    buffer.bytes = bytes;
    buffer.first_tick = 0;
    buffer.last_tick = kOpenLifetime;
    buffer.persistent = true;
    timeline_.buffers.push_back(buffer);
  }

  const Subgraph& subgraph_;
  const TimelineOptions& options_;
  MemoryTimeline& timeline_;
  Storage forward_;
  Storage backward_;
  Storage optimizer_;
  std::set<std::string> warned_;
};

Status CheckOptions(const TimelineOptions& options) {
  if (options.batch_size == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "memory timeline: batch size must be >= 1");
  }
  return Status::Ok();
}

}  // namespace

const char* TickKindName(TickKind kind) {
  switch (kind) {
    case TickKind::kForwardOp:
      return "forward";
    case TickKind::kLossGradient:
      return "loss";
    case TickKind::kBackwardStep:
      return "backward";
    case TickKind::kOptimizerStep:
      return "optimizer";
  }
  return "unknown";
}

Phase Tick::phase() const {
  switch (kind) {
    case TickKind::kForwardOp:
      return Phase::kForward;
    case TickKind::kLossGradient:
    case TickKind::kBackwardStep:
      return Phase::kBackward;
    case TickKind::kOptimizerStep:
      return Phase::kOptimizer;
  }
  return Phase::kForward;
}

int32_t MemoryTimeline::Find(BufferStorage storage, int32_t tensor, uint32_t sample) const {
  for (size_t i = 0; i < buffers.size(); ++i) {
    const TimelineBuffer& b = buffers[i];
    if (b.storage != storage || b.sample != sample) continue;
    const int32_t key = storage == BufferStorage::kKernel ? b.op_index : b.tensor;
    if (key == tensor) return static_cast<int32_t>(i);
  }
  return -1;
}

uint64_t OnertBackwardTemporaryBytes(const Subgraph& subgraph, uint32_t op_index,
                                     const OpTrainability& trainability) {
  if (op_index >= subgraph.operators.size() || trainability.is_last_layer) return 0;
  const Operator& op = subgraph.operators[op_index];
  if (op.opcode != op::kSoftmax || op.outputs.empty()) return 0;
  const int32_t output = op.outputs[0];
  if (output < 0 || static_cast<size_t>(output) >= subgraph.tensors.size()) return 0;
  return subgraph.tensors[static_cast<size_t>(output)].element_count() * sizeof(float);
}

Status BuildTrainingTimeline(const Subgraph& subgraph, const BackwardSelection& selection,
                             const TimelineOptions& options, MemoryTimeline* timeline) {
  TS_RETURN_IF_ERROR(CheckOptions(options));
  PlanOptions plan_options;
  plan_options.keep_input = options.keep_input;
  ForwardPlan forward;
  BackwardPlan backward;
  TS_RETURN_IF_ERROR(BuildTrainingForwardPlan(subgraph, selection, plan_options, &forward));
  TS_RETURN_IF_ERROR(BuildBackwardPlan(subgraph, selection, &backward));

  MemoryTimeline result;
  result.training = true;
  const uint32_t n = static_cast<uint32_t>(subgraph.operators.size());
  if (n == 0) {
    result.warnings.push_back("the subgraph has no operators; nothing to plan");
    *timeline = std::move(result);
    return Status::Ok();
  }
  result.modelled_samples = options.batch_size >= 2 ? 2 : 1;
  StepSimulator sim(subgraph, options, &result);
  const std::vector<size_t> gradient_bytes = GradientBufferBytesByTensor(subgraph, selection);
  for (uint32_t sample = 0; sample < result.modelled_samples; ++sample) {
    for (uint32_t k = 0; k < n; ++k) {
      sim.BeginTick(TickKind::kForwardOp, sample, k, static_cast<int32_t>(k));
      if (k == 0) sim.AllocateGraphInputs(sample);
      sim.AllocateForward(forward.alloc[k], sample);
      sim.FreeForward(forward.free[k]);
    }
    sim.BeginTick(TickKind::kLossGradient, sample, 0, -1);
    sim.AllocateLossGradients(sample);
    for (uint32_t i = 0; i < backward.alloc.size(); ++i) {
      const uint32_t k = n - 1 - i;
      sim.BeginTick(TickKind::kBackwardStep, sample, i, static_cast<int32_t>(k));
      sim.AllocateGradients(backward.alloc[i], gradient_bytes, sample);
      if (options.backward_temporary_bytes != nullptr) {
        sim.AddTemporary(k, options.backward_temporary_bytes(subgraph, k, selection.ops[k]),
                         sample);
      }
      sim.FreeBackwardStep(backward.free[i]);
    }
    sim.HandOverGradients(sample);
    sim.ResetStorages();
  }
  sim.BeginTick(TickKind::kOptimizerStep, 0, 0, -1);
  sim.FinishOptimizerStep();
  sim.MarkKeptActivations();
  *timeline = std::move(result);
  return Status::Ok();
}

Status BuildInferenceTimeline(const Subgraph& subgraph, const TimelineOptions& options,
                              MemoryTimeline* timeline) {
  PlanOptions plan_options;
  plan_options.keep_input = options.keep_input;
  ForwardPlan plan;
  TS_RETURN_IF_ERROR(BuildInferencePlan(subgraph, plan_options, &plan));

  MemoryTimeline result;
  const uint32_t n = static_cast<uint32_t>(subgraph.operators.size());
  if (n == 0) {
    result.warnings.push_back("the subgraph has no operators; nothing to plan");
    *timeline = std::move(result);
    return Status::Ok();
  }
  result.modelled_samples = 1;
  StepSimulator sim(subgraph, options, &result);
  for (uint32_t k = 0; k < n; ++k) {
    sim.BeginTick(TickKind::kForwardOp, 0, k, static_cast<int32_t>(k));
    if (k == 0) sim.AllocateGraphInputs(0);
    sim.AllocateForward(plan.alloc[k], 0);
    sim.FreeForward(plan.free[k]);
  }
  sim.CloseRemaining();
  *timeline = std::move(result);
  return Status::Ok();
}

}  // namespace trainscope
