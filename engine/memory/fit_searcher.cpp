// SPDX-License-Identifier: Apache-2.0
#include "engine/memory/fit_searcher.h"

#include <algorithm>
#include <map>

namespace trainscope {
namespace {

constexpr int kMaxImproveRounds = 16;

bool AnyOn(const FitChoice& choice) {
  return std::any_of(choice.begin(), choice.end(), [](uint8_t v) { return v != 0; });
}

}  // namespace

void FitSearcher::Track(const FitPlanned& planned, uint64_t budget, FitOutcome* outcome) {
  if (!outcome->has_smallest ||
      planned.key.heap_peak_bytes < outcome->smallest.key.heap_peak_bytes) {
    outcome->has_smallest = true;
    outcome->smallest = planned;
  }
  if (planned.key.heap_peak_bytes <= budget &&
      (!outcome->fits || FitBetter(planned.key, outcome->best.key))) {
    outcome->fits = true;
    outcome->best = planned;
  }
}

Status FitSearcher::Exhaustive(uint64_t budget, bool plan_all, FitOutcome* outcome,
                               std::vector<FitPlanned>* planned) {
  std::vector<FitPlanned> entries;
  FitChoice choice = AllOff();
  // Mixed-radix counting over the candidates' choices, skipping "all off".
  while (true) {
    size_t c = 0;
    while (c < choice.size() && choice[c] == candidates_[c].ranks.size()) choice[c++] = 0;
    if (c == choice.size()) break;
    ++choice[c];
    entries.push_back(FitPlanned{choice, KeyOf(choice)});
  }
  // Parameters are known without planning, so the best fitting configuration is the first one
  // in this order that fits, once its ties on (parameters, closeness) were planned too.
  std::stable_sort(entries.begin(), entries.end(), [](const FitPlanned& a, const FitPlanned& b) {
    return FitBetterKey(a.key, b.key);
  });
  *outcome = FitOutcome();
  for (const FitPlanned& entry : entries) {
    if (!plan_all && outcome->fits && FitBetterKey(outcome->best.key, entry.key)) break;
    FitPlanned result;
    TS_RETURN_IF_ERROR(Plan(entry.choice, &result));
    Track(result, budget, outcome);
    if (planned != nullptr) planned->push_back(std::move(result));
  }
  return Status::Ok();
}

Status FitSearcher::Beam(uint64_t budget, FitOutcome* outcome) {
  *outcome = FitOutcome();
  std::vector<FitPlanned> beam;  // configurations that fit; "all off" is implicit
  const size_t width = std::max<uint32_t>(options_.beam_width, 1);
  // The backward range grows from the output, so decide the operators nearest to it first.
  for (size_t c = candidates_.size(); c-- > 0;) {
    std::vector<FitPlanned> next = beam;  // this candidate stays off
    std::vector<FitChoice> bases{AllOff()};
    for (const FitPlanned& state : beam) bases.push_back(state.choice);
    for (const FitChoice& base : bases) {
      for (uint8_t r = 1; r <= candidates_[c].ranks.size(); ++r) {
        FitChoice choice = base;
        choice[c] = r;
        FitPlanned state;
        TS_RETURN_IF_ERROR(Plan(choice, &state));
        Track(state, budget, outcome);
        // Listing a lower operator is assumed never to lower the peak: drop what does not fit.
        if (state.key.heap_peak_bytes <= budget) next.push_back(std::move(state));
      }
    }
    // Keep the states no other with the same lowest listed operator beats on both parameters
    // and peak (a small, heavily trained head may leave no room for the operators below it,
    // and a cheap state lower down may be the base the best answer grows from), spread evenly
    // when too many.
    std::stable_sort(next.begin(), next.end(), [](const FitPlanned& a, const FitPlanned& b) {
      if (a.key.heap_peak_bytes != b.key.heap_peak_bytes) {
        return a.key.heap_peak_bytes < b.key.heap_peak_bytes;
      }
      return FitBetter(a.key, b.key);
    });
    std::vector<FitPlanned> frontier;
    std::map<uint32_t, uint64_t> most_parameters;  // by lowest listed operator, so far
    for (FitPlanned& state : next) {
      auto [best, added] = most_parameters.emplace(state.key.first_op, 0);
      if (added || state.key.trained_parameters > best->second) {
        best->second = state.key.trained_parameters;
        frontier.push_back(std::move(state));
      }
    }
    beam.clear();
    for (size_t i = 0; i < std::min(width, frontier.size()); ++i) {
      const size_t pick =
          width >= frontier.size() || width == 1 ? i : i * (frontier.size() - 1) / (width - 1);
      beam.push_back(frontier[pick]);
    }
  }
  if (!outcome->fits) return Status::Ok();
  return Improve(budget, outcome);
}

// Single changes (one candidate to another choice) while one improves the ranking.
Status FitSearcher::Improve(uint64_t budget, FitOutcome* outcome) {
  for (int round = 0; round < kMaxImproveRounds; ++round) {
    const FitChoice start = outcome->best.choice;
    for (size_t c = 0; c < candidates_.size(); ++c) {
      for (uint8_t v = 0; v <= candidates_[c].ranks.size(); ++v) {
        if (v == start[c]) continue;
        FitChoice changed = start;
        changed[c] = v;
        if (!AnyOn(changed)) continue;
        FitPlanned planned;
        TS_RETURN_IF_ERROR(Plan(changed, &planned));
        Track(planned, budget, outcome);
      }
    }
    if (outcome->best.choice == start) break;
  }
  return Status::Ok();
}

}  // namespace trainscope
