// SPDX-License-Identifier: Apache-2.0
#include "engine/memory/memory_report.h"

#include <algorithm>
#include <map>

#include "engine/memory/greedy_arena_planner.h"
#include "engine/memory/heap_accounting.h"
#include "engine/memory/memory_events.h"

namespace trainscope {
namespace {

std::string OpLabel(const Subgraph& subgraph, size_t k) {
  const char* name = OpcodeName(subgraph.operators[k].opcode);
  return "operator " + std::to_string(k) + " (" + (name != nullptr ? name : "?") + ")";
}

std::string TensorLabel(const Subgraph& subgraph, int32_t index) {
  return "tensor " + std::to_string(index) + " '" +
         subgraph.tensors[static_cast<size_t>(index)].name + "'";
}

// Things a user training this model on onert-micro would run into.
void AddTrainingWarnings(const Subgraph& subgraph, const BackwardSelection& selection,
                         std::vector<std::string>* warnings) {
  for (const Tensor& tensor : subgraph.tensors) {
    if (!tensor.constant && tensor.type != ElementType::kFloat32) {
      warnings->push_back("the model is not float32 (tensor '" + tensor.name + "' is " +
                          ElementTypeName(tensor.type) +
                          "); onert-micro trains float32 models only");
      break;
    }
  }
  bool gru = false;
  for (size_t k = selection.first_op; k < subgraph.operators.size(); ++k) {
    const Operator& op = subgraph.operators[k];
    const OpTrainability& trainability = selection.ops[k];
    gru = gru || op.opcode == op::kGru;
    if (!HasOnertBackwardKernel(op.opcode)) {
      warnings->push_back(OpLabel(subgraph, k) +
                          " runs backward but onert-micro has no backward kernel for it");
    }
    if (!trainability.has_parameter_gradients) continue;
    for (int32_t input : op.inputs) {
      if (input < 0) continue;
      const Tensor& tensor = subgraph.tensors[static_cast<size_t>(input)];
      if (tensor.constant && tensor.type != ElementType::kFloat32) {
        warnings->push_back(OpLabel(subgraph, k) +
                            " is trainable: onert-micro allocates a "
                            "gradient for its " +
                            ElementTypeName(tensor.type) + " constant " +
                            TensorLabel(subgraph, input));
      }
    }
    const bool only_bias = selection.uses_op_ranks && trainability.rank == TrainRank::kOnlyBias;
    if (only_bias && (op.inputs.size() <= 2 || op.inputs[2] < 0)) {
      warnings->push_back(OpLabel(subgraph, k) + " is ONLY_BIAS but has no bias: nothing trains");
    }
  }
  for (const ParameterGradient& p : ListParameterGradients(subgraph, selection)) {
    if (p.half_rank && p.allocated_rows != p.row_end - p.row_begin) {
      warnings->push_back(OpLabel(subgraph, p.op_index) + ": " + TensorLabel(subgraph, p.tensor) +
                          " has " + std::to_string(p.rows) + " rows; the trained half has " +
                          std::to_string(p.row_end - p.row_begin) +
                          " but onert-micro's gradient buffer holds " +
                          std::to_string(p.allocated_rows));
    }
  }
  if (gru) warnings->push_back("GRU temporaries are not included in the memory numbers");
}

std::string BufferName(const Subgraph& subgraph, const TimelineBuffer& buffer,
                       std::map<int32_t, int>* moments_seen) {
  if (buffer.tensor < 0) {
    const char* name =
        buffer.op_index >= 0
            ? OpcodeName(subgraph.operators[static_cast<size_t>(buffer.op_index)].opcode)
            : nullptr;
    return std::string(name != nullptr ? name : "kernel") + " temporary (op " +
           std::to_string(buffer.op_index) + ")";
  }
  std::string name = subgraph.tensors[static_cast<size_t>(buffer.tensor)].name;
  if (buffer.category == MemoryCategory::kOptimizerState) {
    name += (*moments_seen)[buffer.tensor]++ == 0 ? " (Adam m)" : " (Adam v)";
  } else if (buffer.storage == BufferStorage::kBackward) {
    name += " (gradient)";
  }
  return name;
}

TimelineOptions InferenceTimelineOptions(const MemoryReportOptions& options) {
  TimelineOptions timeline_options;
  timeline_options.keep_input = options.keep_input;
  return timeline_options;
}

TrainStepOptions StepOptions(const MemoryReportOptions& options) {
  TrainStepOptions step;
  step.optimizer = options.optimizer;
  step.batch_size = options.batch_size;
  step.keep_input = options.keep_input;
  step.model = options.step_model;
  return step;
}

}  // namespace

Status ComputeMemoryReport(const Graph& graph, const TrainabilityConfig& config,
                           const MemoryReportOptions& options, MemoryReport* report) {
  if (graph.subgraphs.empty()) {
    return Status::Error(StatusCode::kInvalidModel, "memory report: the model has no subgraph");
  }
  const Subgraph& subgraph = graph.main();
  MemoryReport result;
  result.inference = options.inference;
  result.optimizer = options.optimizer;
  result.batch_size = options.batch_size;
  result.step_model = options.step_model;
  if (graph.subgraphs.size() > 1) {
    result.warnings.push_back("only subgraph 0 ('" + subgraph.name + "') is planned");
  }

  MemoryTimeline timeline;
  HeapAccounting heap;
  if (options.inference) {
    TS_RETURN_IF_ERROR(
        BuildInferenceTimeline(subgraph, InferenceTimelineOptions(options), &timeline));
    TS_RETURN_IF_ERROR(AddTimeline(timeline, &heap));
    TS_RETURN_IF_ERROR(heap.Plan());
  } else {
    TS_RETURN_IF_ERROR(ValidateTrainabilityConfig(subgraph, config));
    result.selection = SelectBackwardRange(subgraph, config);
    AddTrainingWarnings(subgraph, result.selection, &result.warnings);
    // The timeline the Trainer runs in (BuildTrainStepTimeline), so the two agree tick by tick.
    TS_RETURN_IF_ERROR(AccountTrainingHeap(subgraph, result.selection, options, &heap, &timeline));
    if (options.step_model == StepModel::kTrainScope) {
      MemoryReportOptions onert = options;
      onert.step_model = StepModel::kOnertMicro;
      HeapAccounting onert_heap;
      TS_RETURN_IF_ERROR(AccountTrainingHeap(subgraph, result.selection, onert, &onert_heap));
      result.onert_heap_peak_bytes = onert_heap.peak_bytes();
    }
  }
  result.warnings.insert(result.warnings.end(), timeline.warnings.begin(), timeline.warnings.end());

  GreedyArenaPlanner arena;
  TS_RETURN_IF_ERROR(AddTimeline(timeline, &arena));
  TS_RETURN_IF_ERROR(arena.Plan());

  result.heap_peak_bytes = heap.peak_bytes();
  result.heap_peak_tick = heap.peak_tick();
  result.arena_bytes = arena.arena_bytes();
  result.lower_bound_bytes = arena.lower_bound_bytes();
  result.fragmentation = arena.fragmentation();
  result.arena_strategy = arena.strategy();

  result.rows.resize(timeline.ticks.size());
  for (uint32_t t = 0; t < timeline.ticks.size(); ++t) {
    MemoryStepRow& row = result.rows[t];
    row.tick = timeline.ticks[t];
    if (row.tick.op_index >= 0) {
      row.opcode = subgraph.operators[static_cast<size_t>(row.tick.op_index)].opcode;
    }
    row.live_bytes = heap.current_bytes(t);
    row.peak_bytes = heap.peak_bytes_until(t);
  }
  std::map<int32_t, int> moments_seen;
  for (uint32_t id = 0; id < timeline.buffers.size(); ++id) {
    const TimelineBuffer& buffer = timeline.buffers[id];
    MemoryReportBuffer entry;
    entry.buffer = buffer;
    entry.offset = arena.offset(id);
    entry.name = BufferName(subgraph, buffer, &moments_seen);
    result.buffers.push_back(entry);
    const uint64_t top = entry.offset + AlignUp(buffer.bytes, ArenaPlanner::kAlignment);
    for (uint32_t t = buffer.first_tick; t <= buffer.last_tick && t < result.rows.size(); ++t) {
      result.rows[t].arena_planned_bytes = std::max(result.rows[t].arena_planned_bytes, top);
    }
    if (buffer.first_tick <= result.heap_peak_tick && result.heap_peak_tick <= buffer.last_tick) {
      result.heap_peak_by_category[static_cast<size_t>(buffer.category)] += buffer.bytes;
    }
  }
  *report = std::move(result);
  return Status::Ok();
}

Status ComputeMemoryReport(const Graph& graph, const TrainabilityConfig& config,
                           OptimizerKind optimizer, bool inference, MemoryReport* report) {
  MemoryReportOptions options;
  options.optimizer = optimizer;
  options.inference = inference;
  return ComputeMemoryReport(graph, config, options, report);
}

Status AccountTrainingHeap(const Subgraph& subgraph, const BackwardSelection& selection,
                           const MemoryReportOptions& options, HeapAccounting* heap,
                           MemoryTimeline* timeline) {
  MemoryTimeline built;
  TS_RETURN_IF_ERROR(BuildTrainStepTimeline(subgraph, selection, StepOptions(options), &built));
  HeapAccounting accounted;
  TS_RETURN_IF_ERROR(AddTimeline(built, &accounted));
  TS_RETURN_IF_ERROR(accounted.Plan());
  *heap = std::move(accounted);
  if (timeline != nullptr) *timeline = std::move(built);
  return Status::Ok();
}

}  // namespace trainscope
