// SPDX-License-Identifier: Apache-2.0
#include "engine/memory/fit_search.h"

#include <algorithm>
#include <chrono>

#include "engine/memory/fit_searcher.h"
#include "engine/memory/heap_accounting.h"
#include "engine/memory/memory_events.h"
#include "engine/memory/memory_timeline.h"

namespace trainscope {
namespace {

constexpr size_t kWeightsSlot = 1;

std::string OpLabel(const Subgraph& subgraph, uint32_t k) {
  const char* name = OpcodeName(subgraph.operators[k].opcode);
  return "operator " + std::to_string(k) + " (" + (name != nullptr ? name : "?") + ")";
}

uint64_t ParametersOfRank(const Subgraph& subgraph, uint32_t op_index, TrainRank rank) {
  TrainabilityConfig config;
  config.op_ranks[static_cast<uint16_t>(op_index)] = rank;
  return CountTrainedParameters(subgraph, config);
}

// Rows of the weights (dim 0) of an operator whose ranks can halve them, 0 otherwise.
int32_t HalvableRows(const Subgraph& subgraph, const Operator& op) {
  if (op.opcode != op::kFullyConnected && op.opcode != op::kConv2D) return 0;
  if (op.inputs.size() <= kWeightsSlot || op.inputs[kWeightsSlot] < 0) return 0;
  const Tensor& weights = subgraph.tensors[static_cast<size_t>(op.inputs[kWeightsSlot])];
  return !weights.shape.empty() && weights.shape[0] >= 2 ? weights.shape[0] : 0;
}

Status CheckFitOptions(const Graph& graph, const FitOptions& options) {
  if (options.memory.inference) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "fit search: the memory options ask for inference; the search plans "
                         "train steps");
  }
  if (options.memory.batch_size == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "fit search: the batch size must be >= 1");
  }
  if (graph.subgraphs.empty() || graph.main().operators.empty()) {
    return Status::Error(StatusCode::kInvalidArgument, "fit search: the model has no operators");
  }
  return Status::Ok();
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

uint64_t CountTrainedParameters(const Subgraph& subgraph, const TrainabilityConfig& config) {
  const BackwardSelection selection = SelectBackwardRange(subgraph, config);
  uint64_t elements = 0;
  for (const ParameterGradient& p : ListParameterGradients(subgraph, selection)) {
    elements += p.trained_bytes() / sizeof(float);  // only float32 constants are listed
  }
  return elements;
}

Status EvaluateHeapPeak(const Graph& graph, const TrainabilityConfig& config,
                        const MemoryReportOptions& options, uint64_t* peak_bytes) {
  if (graph.subgraphs.empty()) {
    return Status::Error(StatusCode::kInvalidModel, "heap peak: the model has no subgraph");
  }
  const Subgraph& subgraph = graph.main();
  TS_RETURN_IF_ERROR(ValidateTrainabilityConfig(subgraph, config));
  HeapAccounting heap;
  TS_RETURN_IF_ERROR(
      AccountTrainingHeap(subgraph, SelectBackwardRange(subgraph, config), options, &heap));
  *peak_bytes = heap.peak_bytes();
  return Status::Ok();
}

Status FitSearcher::Prepare(std::vector<std::string>* notes) {
  const Subgraph& subgraph = graph_.main();
  const uint32_t n = static_cast<uint32_t>(subgraph.operators.size());
  // Listing an operator puts every later one into the backward range.
  uint32_t lowest_allowed = 0;
  if (options_.onert_backward_kernels_only) {
    for (uint32_t k = 0; k < n; ++k) {
      if (!HasOnertBackwardKernel(subgraph.operators[k].opcode)) lowest_allowed = k + 1;
    }
  }
  candidates_.clear();
  for (uint32_t k = 0; k < n; ++k) {
    const Operator& op = subgraph.operators[k];
    if (!HasOnertTrainableWeights(op.opcode)) continue;
    const uint64_t all = ParametersOfRank(subgraph, k, TrainRank::kAll);
    if (all == 0) {
      notes->push_back(OpLabel(subgraph, k) + " has no float32 parameters");
      continue;
    }
    if (k < lowest_allowed) {
      notes->push_back(OpLabel(subgraph, k) +
                       " is left out: " + OpLabel(subgraph, lowest_allowed - 1) +
                       " after it has no onert-micro backward kernel");
      continue;
    }
    FitCandidate candidate;
    candidate.op_index = k;
    candidate.opcode = op.opcode;
    candidate.ranks.push_back(TrainRank::kAll);
    candidate.rank_parameters.push_back(all);
    const uint64_t bias = ParametersOfRank(subgraph, k, TrainRank::kOnlyBias);
    if (bias > 0) {
      candidate.ranks.push_back(TrainRank::kOnlyBias);
      candidate.rank_parameters.push_back(bias);
    }
    const int32_t rows = HalvableRows(subgraph, op);
    if (rows > 0) {
      candidate.ranks.push_back(TrainRank::kLowerHalf);
      candidate.rank_parameters.push_back(ParametersOfRank(subgraph, k, TrainRank::kLowerHalf));
    }
    // TrainScope's step holds the ceil(d0/2) rows LOWER trains, so for an odd d0 the upper half
    // needs less memory and is a candidate of its own.
    if (rows % 2 == 1 && options_.memory.step_model == StepModel::kTrainScope) {
      candidate.ranks.push_back(TrainRank::kUpperHalf);
      candidate.rank_parameters.push_back(ParametersOfRank(subgraph, k, TrainRank::kUpperHalf));
    }
    candidates_.push_back(candidate);
  }
  if (candidates_.empty()) {
    return Status::Error(StatusCode::kUnsupported,
                         "fit search: no operator has float32 parameters onert-micro can train "
                         "(FULLY_CONNECTED, CONV_2D, GRU)%s%s",
                         notes->empty() ? "" : "; ", notes->empty() ? "" : notes->front().c_str());
  }
  return Status::Ok();
}

uint64_t FitSearcher::PrunedSpaceSize(bool* saturated) const {
  uint64_t size = 1;
  *saturated = false;
  for (const FitCandidate& c : candidates_) {
    const uint64_t choices = c.ranks.size() + 1;
    if (size > UINT64_MAX / choices) {
      *saturated = true;
      return UINT64_MAX;
    }
    size *= choices;
  }
  return size - 1;
}

void FitSearcher::FillSpaceStats(FitSearchStats* stats) const {
  uint64_t size = 1;
  stats->space_saturated = false;
  for (size_t c = 0; c < candidates_.size() && !stats->space_saturated; ++c) {
    if (size > UINT64_MAX / (kTrainRankCount + 1)) {
      stats->space_saturated = true;
      size = UINT64_MAX;
    } else {
      size *= kTrainRankCount + 1;
    }
  }
  stats->space_size = stats->space_saturated ? UINT64_MAX : size - 1;
  bool saturated = false;
  stats->pruned_space_size = PrunedSpaceSize(&saturated);
}

bool FitSearcher::SmallEnoughForExhaustive() const {
  bool saturated = false;
  const uint64_t size = PrunedSpaceSize(&saturated);
  return !saturated && size <= options_.exhaustive_limit;
}

FitKey FitSearcher::KeyOf(const FitChoice& choice) const {
  FitKey key;
  key.first_op = static_cast<uint32_t>(graph_.main().operators.size());
  for (size_t c = 0; c < candidates_.size() && c < choice.size(); ++c) {
    if (choice[c] == 0) continue;
    const FitCandidate& candidate = candidates_[c];
    key.trained_parameters +=
        candidate.rank_parameters[std::min<size_t>(choice[c] - 1u, candidate.ranks.size() - 1)];
    key.first_op = std::min(key.first_op, candidate.op_index);
  }
  return key;
}

FitConfiguration FitSearcher::Describe(const FitPlanned& planned) const {
  FitConfiguration out;
  for (size_t c = 0; c < candidates_.size() && c < planned.choice.size(); ++c) {
    if (planned.choice[c] == 0) continue;
    const FitCandidate& candidate = candidates_[c];
    const size_t r = std::min<size_t>(planned.choice[c] - 1u, candidate.ranks.size() - 1);
    out.config.op_ranks[static_cast<uint16_t>(candidate.op_index)] = candidate.ranks[r];
  }
  out.trained_parameters = planned.key.trained_parameters;
  out.first_op = planned.key.first_op;
  out.heap_peak_bytes = planned.key.heap_peak_bytes;
  return out;
}

Status FitSearcher::Plan(const FitChoice& choice, FitPlanned* out) {
  out->choice = choice;
  out->key = KeyOf(choice);
  const std::string cache_key(choice.begin(), choice.end());
  const auto found = peaks_.find(cache_key);
  if (found != peaks_.end()) {
    out->key.heap_peak_bytes = found->second;
    return Status::Ok();
  }
  const FitConfiguration configuration = Describe(*out);
  TS_RETURN_IF_ERROR(
      EvaluateHeapPeak(graph_, configuration.config, options_.memory, &out->key.heap_peak_bytes));
  ++evaluated_;
  peaks_.emplace(cache_key, out->key.heap_peak_bytes);
  return Status::Ok();
}

Status FindBestFit(const Graph& graph, uint64_t budget_bytes, const FitOptions& options,
                   FitResult* result) {
  const auto start = std::chrono::steady_clock::now();
  TS_RETURN_IF_ERROR(CheckFitOptions(graph, options));
  FitResult out;
  out.budget_bytes = budget_bytes;
  FitSearcher searcher(graph, options);
  TS_RETURN_IF_ERROR(searcher.Prepare(&out.notes));
  out.candidates = searcher.candidates();
  searcher.FillSpaceStats(&out.stats);
  FitPlanned full;
  TS_RETURN_IF_ERROR(searcher.Plan(searcher.AllFull(), &full));
  out.full = searcher.Describe(full);

  FitOutcome outcome;
  out.stats.exact = searcher.SmallEnoughForExhaustive();
  if (out.stats.exact) {
    out.stats.method = "exhaustive in ranking order";
    TS_RETURN_IF_ERROR(searcher.Exhaustive(budget_bytes, false, &outcome));
  } else {
    out.stats.method =
        "beam search (width " + std::to_string(options.beam_width) + ") + single changes";
    TS_RETURN_IF_ERROR(searcher.Beam(budget_bytes, &outcome));
  }
  out.fits = outcome.fits;
  if (outcome.fits) out.best = searcher.Describe(outcome.best);
  out.smallest = searcher.Describe(outcome.has_smallest && outcome.smallest.key.heap_peak_bytes <
                                                               full.key.heap_peak_bytes
                                       ? outcome.smallest
                                       : full);
  out.stats.evaluated = searcher.evaluated();
  out.stats.elapsed_ms = MillisecondsSince(start);
  *result = std::move(out);
  return Status::Ok();
}

Status ComputeFitCurve(const Graph& graph, const FitOptions& options, FitCurve* curve) {
  const auto start = std::chrono::steady_clock::now();
  TS_RETURN_IF_ERROR(CheckFitOptions(graph, options));
  FitCurve out;
  std::vector<std::string> notes;
  FitSearcher searcher(graph, options);
  TS_RETURN_IF_ERROR(searcher.Prepare(&notes));
  out.candidates = searcher.candidates();
  searcher.FillSpaceStats(&out.stats);
  out.stats.exact = searcher.SmallEnoughForExhaustive();

  if (out.stats.exact) {
    out.stats.method = "exhaustive in ranking order";
    FitOutcome unused;
    std::vector<FitPlanned> planned;
    TS_RETURN_IF_ERROR(searcher.Exhaustive(UINT64_MAX, true, &unused, &planned));
    // At budget B the answer is the best configuration with a peak <= B, so it changes exactly
    // where a configuration with a better (parameters, closeness) key first fits.
    std::stable_sort(planned.begin(), planned.end(), [](const FitPlanned& a, const FitPlanned& b) {
      if (a.key.heap_peak_bytes != b.key.heap_peak_bytes) {
        return a.key.heap_peak_bytes < b.key.heap_peak_bytes;
      }
      return FitBetter(a.key, b.key);
    });
    FitKey current;
    for (const FitPlanned& c : planned) {
      if (!out.points.empty() && !FitBetterKey(c.key, current)) continue;
      current = c.key;
      FitCurvePoint point;
      point.budget_bytes = c.key.heap_peak_bytes;
      point.fits = true;
      point.best = searcher.Describe(c);
      out.points.push_back(point);
    }
  } else {
    out.stats.method =
        "beam search (width " + std::to_string(options.beam_width) + ") + single changes";
    FitPlanned full;
    TS_RETURN_IF_ERROR(searcher.Plan(searcher.AllFull(), &full));
    FitOutcome probe;  // a zero budget plans every single-operator configuration
    TS_RETURN_IF_ERROR(searcher.Beam(0, &probe));
    const uint64_t high = full.key.heap_peak_bytes;
    const uint64_t low =
        probe.has_smallest ? std::min(probe.smallest.key.heap_peak_bytes, high) : high;
    const uint32_t count = high > low ? std::max<uint32_t>(options.curve_points, 2) : 1;
    for (uint32_t i = 0; i < count; ++i) {
      FitCurvePoint point;
      point.budget_bytes = count == 1 ? high : low + (high - low) * i / (count - 1);
      FitOutcome outcome;
      TS_RETURN_IF_ERROR(searcher.Beam(point.budget_bytes, &outcome));
      point.fits = outcome.fits;
      if (outcome.fits) point.best = searcher.Describe(outcome.best);
      // What fits a smaller budget fits this one too.
      if (!out.points.empty() && out.points.back().fits &&
          (!point.fits || FitBetter(out.points.back().best, point.best))) {
        point.fits = true;
        point.best = out.points.back().best;
      }
      out.points.push_back(point);
    }
  }
  out.stats.evaluated = searcher.evaluated();
  out.stats.elapsed_ms = MillisecondsSince(start);
  *curve = std::move(out);
  return Status::Ok();
}

}  // namespace trainscope
