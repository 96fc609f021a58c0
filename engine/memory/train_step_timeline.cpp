// SPDX-License-Identifier: Apache-2.0
#include "engine/memory/train_step_timeline.h"

#include <string>
#include <vector>

#include "engine/kernels/kernel.h"

namespace trainscope {
namespace {

// TrainScope's backward kernels ask for their scratch (not onert-micro's temporaries).
uint64_t KernelScratchBytes(const Subgraph& subgraph, uint32_t op_index,
                            const OpTrainability& trainability) {
  if (!trainability.in_backward_range) return 0;
  return BackwardScratchFloats(subgraph, subgraph.operators[op_index]) * sizeof(float);
}

std::string TensorLabel(const Subgraph& subgraph, int32_t tensor) {
  return "tensor " + std::to_string(tensor) + " '" +
         subgraph.tensors[static_cast<size_t>(tensor)].name + "'";
}

// Where the timeline's ticks and forward buffers are, looked up once instead of searched for
// every operator: the first backward tick of each operator and the first forward buffer of each
// tensor, per modelled sample (what Find() would return).
struct TimelineIndex {
  std::vector<int32_t> backward_tick[2];
  std::vector<int32_t> forward_buffer[2];

  TimelineIndex(const Subgraph& sg, const MemoryTimeline& timeline) {
    for (int sample = 0; sample < 2; ++sample) {
      backward_tick[sample].assign(sg.operators.size(), -1);
      forward_buffer[sample].assign(sg.tensors.size(), -1);
    }
    for (size_t t = 0; t < timeline.ticks.size(); ++t) {
      const Tick& tick = timeline.ticks[t];
      if (tick.kind != TickKind::kBackwardStep || tick.sample >= 2 || tick.op_index < 0) continue;
      int32_t& first = backward_tick[tick.sample][static_cast<size_t>(tick.op_index)];
      if (first < 0) first = static_cast<int32_t>(t);
    }
    for (size_t b = 0; b < timeline.buffers.size(); ++b) {
      const TimelineBuffer& buffer = timeline.buffers[b];
      if (buffer.storage != BufferStorage::kForward || buffer.sample >= 2 || buffer.tensor < 0) {
        continue;
      }
      int32_t& first = forward_buffer[buffer.sample][static_cast<size_t>(buffer.tensor)];
      if (first < 0) first = static_cast<int32_t>(b);
    }
  }
};

// onert-micro keeps exactly what its own kernels read for backward; TrainScope's kernels cover
// more ops (and fused activations), so a value they read is kept until its backward step.
Status KeepValuesBackwardReads(const Subgraph& sg, const BackwardSelection& selection,
                               MemoryTimeline* timeline) {
  const TimelineIndex index(sg, *timeline);
  for (uint32_t k = selection.first_op; k < sg.operators.size(); ++k) {
    const Operator& op = sg.operators[k];
    const BackwardNeeds needs = BackwardNeedsOf(op);
    std::vector<int32_t> read;
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const int32_t input = op.inputs[i];
      if (NeedsInput(needs, i) && input >= 0 && !sg.tensors[static_cast<size_t>(input)].constant) {
        read.push_back(input);
      }
    }
    if (needs.output && !op.outputs.empty()) read.push_back(op.outputs[0]);
    for (uint32_t sample = 0; sample < timeline->modelled_samples && sample < 2; ++sample) {
      const int32_t tick = index.backward_tick[sample][k];
      if (tick < 0) continue;
      for (int32_t tensor : read) {
        const int32_t id = index.forward_buffer[sample][static_cast<size_t>(tensor)];
        if (id < 0) {
          return Status::Error(
              StatusCode::kUnsupported, "operator %u (%s): backward needs %s, which no plan keeps",
              static_cast<unsigned>(k), OpcodeName(op.opcode), TensorLabel(sg, tensor).c_str());
        }
        TimelineBuffer& buffer = timeline->buffers[static_cast<size_t>(id)];
        if (buffer.last_tick >= static_cast<uint32_t>(tick)) continue;
        buffer.last_tick = static_cast<uint32_t>(tick);
        buffer.category = MemoryCategory::kActivationKept;
        if (sample == 0) {
          timeline->warnings.push_back("operator " + std::to_string(k) + " (" +
                                       OpcodeName(op.opcode) + "): backward reads " +
                                       TensorLabel(sg, tensor) +
                                       ", which onert-micro frees after the forward pass; kept");
        }
      }
    }
  }
  return Status::Ok();
}

// onert-micro sizes a half-rank gradient as floor(d0/2) rows for both halves; the lower half of
// an odd d0 has one row more, and TrainScope computes all of its rows.
void WidenCompactGradients(const Subgraph& sg, const BackwardSelection& selection,
                           MemoryTimeline* timeline) {
  std::vector<std::vector<uint32_t>> buffers_of_tensor(sg.tensors.size());
  for (uint32_t b = 0; b < timeline->buffers.size(); ++b) {
    const int32_t tensor = timeline->buffers[b].tensor;
    if (tensor >= 0) buffers_of_tensor[static_cast<size_t>(tensor)].push_back(b);
  }
  for (const ParameterGradient& p : ListParameterGradients(sg, selection)) {
    const uint64_t needed = p.trained_bytes();
    for (uint32_t b : buffers_of_tensor[static_cast<size_t>(p.tensor)]) {
      TimelineBuffer& buffer = timeline->buffers[b];
      if (buffer.bytes >= needed) continue;
      if (buffer.storage != BufferStorage::kBackward &&
          buffer.storage != BufferStorage::kOptimizer) {
        continue;
      }
      if (buffer.sample == 0 && buffer.storage == BufferStorage::kBackward) {
        timeline->warnings.push_back(TensorLabel(sg, p.tensor) + ": onert-micro allocates " +
                                     std::to_string(buffer.bytes) + " gradient bytes for " +
                                     std::to_string(needed) + " bytes of trained rows");
      }
      buffer.bytes = needed;
    }
  }
}

}  // namespace

const char* StepModelName(StepModel model) {
  return model == StepModel::kOnertMicro ? "onert-micro" : "trainscope";
}

Status BuildTrainStepTimeline(const Subgraph& subgraph, const BackwardSelection& selection,
                              const TrainStepOptions& options, MemoryTimeline* timeline) {
  const bool onert = options.model == StepModel::kOnertMicro;
  TimelineOptions timeline_options;
  timeline_options.optimizer = options.optimizer;
  timeline_options.batch_size = options.batch_size;
  timeline_options.keep_input = options.keep_input;
  timeline_options.backward_temporary_bytes =
      onert ? &OnertBackwardTemporaryBytes : &KernelScratchBytes;
  MemoryTimeline built;
  TS_RETURN_IF_ERROR(BuildTrainingTimeline(subgraph, selection, timeline_options, &built));
  if (!onert && !built.ticks.empty()) {
    TS_RETURN_IF_ERROR(KeepValuesBackwardReads(subgraph, selection, &built));
    WidenCompactGradients(subgraph, selection, &built);
  }
  *timeline = std::move(built);
  return Status::Ok();
}

}  // namespace trainscope
