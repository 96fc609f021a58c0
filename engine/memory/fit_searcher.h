// SPDX-License-Identifier: Apache-2.0
//
// FitSearcher: the machinery behind FindBestFit and ComputeFitCurve (fit_search.h), internal to
// trainscope_memory. It owns the candidate list and a cache of planned heap peaks, so several
// searches over one model (the budgets of a curve) plan each configuration once.
//
// A configuration is a Choice: one byte per candidate, 0 = off, r + 1 = candidates[c].ranks[r].
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/memory/fit_search.h"

namespace trainscope {

using FitChoice = std::vector<uint8_t>;

// The fields the ranking reads, without the configuration's op_ranks map (cheap to copy).
struct FitKey {
  uint64_t trained_parameters = 0;
  uint32_t first_op = 0;
  uint64_t heap_peak_bytes = 0;  // 0 until planned
};

// The search's ranking without the peak: the part known before planning.
template <typename A, typename B>
bool FitBetterKey(const A& a, const B& b) {
  if (a.trained_parameters != b.trained_parameters) {
    return a.trained_parameters > b.trained_parameters;
  }
  return a.first_op > b.first_op;
}

// The full ranking: more parameters, then closer to the output, then the lower peak.
template <typename A, typename B>
bool FitBetter(const A& a, const B& b) {
  if (FitBetterKey(a, b)) return true;
  if (FitBetterKey(b, a)) return false;
  return a.heap_peak_bytes < b.heap_peak_bytes;
}

struct FitPlanned {
  FitChoice choice;
  FitKey key;
};

struct FitOutcome {
  bool fits = false;
  FitPlanned best;
  bool has_smallest = false;
  FitPlanned smallest;
};

class FitSearcher {
 public:
  FitSearcher(const Graph& graph, const FitOptions& options) : graph_(graph), options_(options) {}

  // Finds the candidates; kUnsupported when there are none.
  Status Prepare(std::vector<std::string>* notes);

  const std::vector<FitCandidate>& candidates() const { return candidates_; }
  uint64_t evaluated() const { return evaluated_; }
  void FillSpaceStats(FitSearchStats* stats) const;
  bool SmallEnoughForExhaustive() const;

  // Parameters and closeness, known without planning.
  FitKey KeyOf(const FitChoice& choice) const;
  // KeyOf() plus the planned heap peak (cached).
  Status Plan(const FitChoice& choice, FitPlanned* out);
  // The configuration itself, for results.
  FitConfiguration Describe(const FitPlanned& planned) const;
  FitChoice AllOff() const { return FitChoice(candidates_.size(), 0); }
  FitChoice AllFull() const { return FitChoice(candidates_.size(), 1); }

  // Exact: plans configurations in ranking order until none left can beat the best fitting one
  // (or all of them with `plan_all`; `planned` then receives every configuration).
  Status Exhaustive(uint64_t budget, bool plan_all, FitOutcome* outcome,
                    std::vector<FitPlanned>* planned = nullptr);
  // Approximate: beam search from the output towards the input, then single changes.
  Status Beam(uint64_t budget, FitOutcome* outcome);

 private:
  uint64_t PrunedSpaceSize(bool* saturated) const;
  static void Track(const FitPlanned& planned, uint64_t budget, FitOutcome* outcome);
  Status Improve(uint64_t budget, FitOutcome* outcome);

  const Graph& graph_;
  FitOptions options_;
  std::vector<FitCandidate> candidates_;
  std::unordered_map<std::string, uint64_t> peaks_;
  uint64_t evaluated_ = 0;
};

}  // namespace trainscope
