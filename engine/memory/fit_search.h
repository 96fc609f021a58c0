// SPDX-License-Identifier: Apache-2.0
//
// "Does it fit?": given a RAM budget, find the onert-micro trainability configuration (a
// train-config: operator indices with ranks) whose heap peak fits and that trains the most
// parameters. Nothing is trained: every candidate is judged by its exact plans, with the heap
// accounting of ComputeMemoryReport (same MemoryReportOptions), which replaces onert-micro's
// brute-force training-configure-tool (research/onert-micro-training.md §6.5).
//
// Candidates are the operators whose constants onert-micro trains (FULLY_CONNECTED, CONV_2D,
// GRU) with at least one float32 parameter. With `onert_backward_kernels_only`, operators before
// the last operator that onert-micro cannot run backward are left out (listing one would put that
// operator into the backward range). Each candidate is off or listed with a rank:
//   ALL, ONLY_BIAS (only when the op has a float bias), LOWER_1_2_PART (FULLY_CONNECTED and
//   CONV_2D with weight dim 0 >= 2), and UP_1_2_PART when d0 is odd. For an even d0 the two halves
//   have the same plans, buffers and parameter counts, so UP is skipped. For an odd d0 LOWER
//   trains ceil(d0/2) rows and UP floor(d0/2): in TrainScope's step each half's buffers hold its
//   own rows, so UP is smaller and searched; in onert-micro's step both halves allocate
//   floor(d0/2) rows, so UP is never better and skipped.
// Ranking: more trained parameters; then the configuration closest to the output (the highest
// lowest listed operator, i.e. the shortest backward range); then the lower heap peak; then the
// first in enumeration order. A configuration that trains no parameter is never an answer.
//
// Search: when the pruned space has at most `exhaustive_limit` configurations, every one is
// ranked by parameters (separable, no planning needed) and planned in that order until no
// unplanned configuration can beat the best fitting one: exact. Larger spaces use a beam search
// from the output towards the input (assuming that listing a lower operator never lowers the
// peak) followed by single-change improvements; the result then says it is approximate.
//
//   FitOptions options;
//   options.memory.optimizer = OptimizerKind::kAdam;
//   FitResult fit;
//   TS_RETURN_IF_ERROR(FindBestFit(model.graph(), 64 * 1024, options, &fit));
//   if (fit.fits) WriteTrainConfigFile("fit.cfg", fit.best.config.op_ranks);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/memory/memory_report.h"
#include "engine/model/graph.h"
#include "engine/plan/trainability.h"

namespace trainscope {

struct FitOptions {
  MemoryReportOptions memory;  // optimizer, batch size, ...; `inference` must stay false
  bool onert_backward_kernels_only = true;
  uint64_t exhaustive_limit = uint64_t{1} << 16;  // configurations planned at most exactly
  uint32_t beam_width = 32;
  uint32_t curve_points = 16;  // budgets sampled for the curve of an approximate search
};

// One operator the search may list, with the parameters each rank trains.
struct FitCandidate {
  uint32_t op_index = 0;
  int32_t opcode = 0;
  std::vector<TrainRank> ranks;           // the ranks searched, ALL first
  std::vector<uint64_t> rank_parameters;  // trained parameters (elements) per entry of `ranks`
};

struct FitConfiguration {
  TrainabilityConfig config;  // op_ranks only
  uint64_t trained_parameters = 0;
  uint64_t heap_peak_bytes = 0;
  uint32_t first_op = 0;  // lowest listed operator: the backward range starts here
};

struct FitSearchStats {
  uint64_t space_size = 0;         // candidates x {off, 4 ranks}, all off excluded; saturates
  bool space_saturated = false;    // the true size exceeds 2^64 - 1
  uint64_t pruned_space_size = 0;  // after leaving out UP_1_2_PART and ranks training nothing
  uint64_t evaluated = 0;          // configurations planned
  double elapsed_ms = 0.0;
  bool exact = true;
  std::string method;  // "exhaustive in ranking order", "beam search (width 32) + single changes"
};

struct FitResult {
  uint64_t budget_bytes = 0;
  bool fits = false;
  FitConfiguration best;  // valid when `fits`
  // The lowest peak among the configurations planned; when nothing fits an exact search planned
  // them all, so this is the budget the model needs at least.
  FitConfiguration smallest;
  FitConfiguration full;  // every candidate with ALL: the most parameters there are
  std::vector<FitCandidate> candidates;
  FitSearchStats stats;
  std::vector<std::string> notes;  // candidates left out and why
};

struct FitCurvePoint {
  uint64_t budget_bytes = 0;
  bool fits = false;
  FitConfiguration best;
};

struct FitCurve {
  // Exact search: every budget at which the answer improves (a step function: between two
  // points the answer of the lower one holds). Approximate: `curve_points` budgets evenly spaced
  // between the smallest and the full configuration's peak. Trained parameters never decrease.
  std::vector<FitCurvePoint> points;
  std::vector<FitCandidate> candidates;
  FitSearchStats stats;
};

// kInvalidArgument for inference options, a zero batch or an empty graph; kUnsupported when no
// operator is a candidate. "Nothing fits" is not an error: `fits` is false.
Status FindBestFit(const Graph& graph, uint64_t budget_bytes, const FitOptions& options,
                   FitResult* result);

Status ComputeFitCurve(const Graph& graph, const FitOptions& options, FitCurve* curve);

// The heap peak ComputeMemoryReport reports for `config`, without the arena planning.
Status EvaluateHeapPeak(const Graph& graph, const TrainabilityConfig& config,
                        const MemoryReportOptions& options, uint64_t* peak_bytes);

// Parameter elements the configuration trains (rows a half rank trains, not its buffer rows).
uint64_t CountTrainedParameters(const Subgraph& subgraph, const TrainabilityConfig& config);

}  // namespace trainscope
