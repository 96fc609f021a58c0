// SPDX-License-Identifier: Apache-2.0
//
// ComputeMemoryReport: everything the memory views and exported reports show for one model and
// training setup, computed without running anything. It selects the backward range, builds the
// onert-micro plans and the timeline of a train step (or of one inference), accounts it as heap
// blocks (onert-micro-compatible peak) and plans it as one arena (GreedyArenaPlanner).
//
// Quantized models plan too (tensors' own byte sizes); the report then warns that onert-micro
// trains float32 models only. Only subgraph 0 is planned, as onert-micro trains only it.
//
//   MemoryReport report;
//   TS_RETURN_IF_ERROR(ComputeMemoryReport(model.graph(), config, OptimizerKind::kAdam,
//                                          /*inference=*/false, &report));
//   printf("heap peak %llu, arena %llu\n", report.heap_peak_bytes, report.arena_bytes);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/memory/heap_accounting.h"
#include "engine/memory/memory_timeline.h"
#include "engine/memory/train_step_timeline.h"
#include "engine/model/graph.h"
#include "engine/plan/trainability.h"

namespace trainscope {

struct MemoryReportOptions {
  OptimizerKind optimizer = OptimizerKind::kSgd;
  bool inference = false;
  uint32_t batch_size = 1;
  bool keep_input = false;
  // Whose step is planned: the Trainer's (every figure the tool shows) or onert-micro's own.
  StepModel step_model = StepModel::kTrainScope;
};

// One row per tick.
struct MemoryStepRow {
  Tick tick;
  int32_t opcode = -1;               // of tick.op_index, -1 for loss and optimizer ticks
  uint64_t live_bytes = 0;           // heap accounting: bytes live during the tick
  uint64_t peak_bytes = 0;           // heap accounting: running peak up to this tick
  uint64_t arena_planned_bytes = 0;  // planned arena: highest byte in use during the tick
};

struct MemoryReportBuffer {
  TimelineBuffer buffer;
  uint64_t offset = 0;  // in the planned arena
  std::string name;     // tensor name, with " (Adam m)" etc., or "SOFTMAX temporary (op 5)"
};

struct MemoryReport {
  bool inference = false;
  OptimizerKind optimizer = OptimizerKind::kSgd;
  uint32_t batch_size = 1;
  StepModel step_model = StepModel::kTrainScope;
  BackwardSelection selection;  // empty ops for inference
  std::vector<MemoryStepRow> rows;
  std::vector<MemoryReportBuffer> buffers;

  uint64_t heap_peak_bytes = 0;
  uint32_t heap_peak_tick = 0;
  uint64_t heap_peak_by_category[kMemoryCategoryCount] = {};  // live at heap_peak_tick
  uint64_t arena_bytes = 0;
  uint64_t lower_bound_bytes = 0;  // max over ticks of live bytes, each rounded up to 16
  double fragmentation = 0.0;      // 1 - lower bound / arena
  std::string arena_strategy;
  // Training with the TrainScope step: onert-micro's own heap peak for the same setup, what a
  // board running onert-micro would hold (0 for inference and for the onert-micro step itself).
  uint64_t onert_heap_peak_bytes = 0;

  std::vector<std::string> warnings;
};

Status ComputeMemoryReport(const Graph& graph, const TrainabilityConfig& config,
                           const MemoryReportOptions& options, MemoryReport* report);

// Batch size 1: a trainer running batches of 2 or more needs the overload above with
// options.batch_size set, or its heap peak (which holds the later samples' weight gradients next
// to the accumulated ones) is larger than this report's.
Status ComputeMemoryReport(const Graph& graph, const TrainabilityConfig& config,
                           OptimizerKind optimizer, bool inference, MemoryReport* report);

// The heap of one train step, accounted exactly as ComputeMemoryReport does it (the step model's
// timeline for that optimizer, batch and keep_input; options.inference is ignored): the fit
// search uses it. `timeline` (may be null) receives the accounted timeline; tick t of `heap` is
// its tick t.
Status AccountTrainingHeap(const Subgraph& subgraph, const BackwardSelection& selection,
                           const MemoryReportOptions& options, HeapAccounting* heap,
                           MemoryTimeline* timeline = nullptr);

}  // namespace trainscope
