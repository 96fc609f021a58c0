// SPDX-License-Identifier: Apache-2.0
//
// CompareStep: the board's readings of one optimizer step beside the reference engine's, tensor
// by tensor, in the order the step reached them (backward order within each sample, then the
// update). The first tensor beyond the thresholds names the first divergent operator; the
// largest difference seen is kept either way, so "no divergence" still says how close it was.
//
// An updated parameter is compared twice: as values, and, given the step's start readings, as
// the update each side applied (after - start), which is measured against the update's own size.
// A wrong update on large weights (onert-micro's LOWER half, say) is a small error relative to
// the weights but a large one relative to the update.
//
//   StepComparison c = CompareStep(board, reference, thresholds, &start);
//   if (c.first_divergent >= 0) Report(c.tensors[c.first_divergent]);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "serial/compare/probe_plan.h"
#include "serial/compare/tensor_metrics.h"

namespace trainscope {

struct TensorComparison {
  ProbePoint point;
  ProbeRead read;
  bool board_held = false;
  bool reference_held = false;
  std::string board_reason;      // why the board did not send it
  std::string reference_reason;  // why the reference did not hold it
  bool shape_matches = false;    // both held, same shape
  std::vector<int32_t> shape;
  TensorDifference difference;  // when both held with the same shape
  bool divergent = false;       // beyond a threshold, NaN/Inf mismatch, or shapes differ
  // Indices of the paired readings in CompareStep's `board` and `reference` (-1: none), so a
  // caller shows the values without the comparison copying them.
  int64_t board_reading = -1;
  int64_t reference_reading = -1;
  // An update comparison (read.role starts with "update of "): after - start on each side.
  std::vector<float> board_update;
  std::vector<float> reference_update;
};

struct StepComparison {
  std::vector<TensorComparison> tensors;
  int64_t first_divergent = -1;   // index into tensors
  int64_t largest = -1;           // the largest relative L2 error among the compared ones
  uint64_t compared = 0;          // tensors held on both sides
  uint64_t held_on_one_side = 0;  // what one side held and the other did not
};

// An update comparison's role is "update of " + the value's role; its max_ulp is the weights'
// distance in floats (after the update), not the updates'.
inline constexpr const char* kUpdateRolePrefix = "update of ";
bool IsUpdateComparison(const TensorComparison& pair);
// Weights within this many floats of each other are rounding, however small their update.
inline constexpr uint64_t kUpdateRoundingUlps = 16;

// Whether one pair diverges: read on both sides, its shapes differ or its figures are beyond
// `thresholds` (Diverges), an update only when its weights are more than kUpdateRoundingUlps
// apart; a tensor held on one side only is counted apart, not as a divergence.
// CompareStep decides with it, and so does anything that re-reads a comparison (the app's
// comparison view under thresholds the user changes).
bool Diverges(const TensorComparison& pair, const DivergenceThresholds& thresholds);

// Pairs `board` and `reference` by (point, tensor, aspect); a reading without a partner counts
// as held on one side. With `start` (the step-start readings both sides began from), each
// updated parameter value is followed by its update comparison.
StepComparison CompareStep(const std::vector<ProbeReading>& board,
                           const std::vector<ProbeReading>& reference,
                           const DivergenceThresholds& thresholds,
                           const std::vector<ProbeReading>* start = nullptr);

}  // namespace trainscope
