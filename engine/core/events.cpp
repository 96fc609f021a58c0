// SPDX-License-Identifier: Apache-2.0
#include "engine/core/events.h"

#include <algorithm>
#include <iterator>

namespace trainscope {

const char* TrainRankName(TrainRank rank) {
  switch (rank) {
    case TrainRank::kAll:
      return "ALL";
    case TrainRank::kOnlyBias:
      return "ONLY_BIAS";
    case TrainRank::kUpperHalf:
      return "UP_1_2_PART";
    case TrainRank::kLowerHalf:
      return "LOWER_1_2_PART";
  }
  return "UNKNOWN";
}

const char* PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kForward:
      return "forward";
    case Phase::kBackward:
      return "backward";
    case Phase::kOptimizer:
      return "optimizer";
  }
  return "unknown";
}

const char* MemoryCategoryName(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::kInput:
      return "input";
    case MemoryCategory::kActivation:
      return "activation";
    case MemoryCategory::kActivationKept:
      return "activation_kept";
    case MemoryCategory::kActivationGradient:
      return "activation_gradient";
    case MemoryCategory::kWeightGradient:
      return "weight_gradient";
    case MemoryCategory::kOptimizerState:
      return "optimizer_state";
    case MemoryCategory::kLossGradient:
      return "loss_gradient";
    case MemoryCategory::kTemporary:
      return "temporary";
  }
  return "unknown";
}

// Lower bounds of bins 1..15: 1e-11 .. 1e3. A comparison search instead of log10 keeps the
// statistics cheap enough to compute for every gradient element while training.
int GradientHistogramBin(float magnitude) {
  static constexpr float kLowerBounds[kGradientHistogramBins - 1] = {
      1e-11f, 1e-10f, 1e-9f, 1e-8f, 1e-7f, 1e-6f, 1e-5f, 1e-4f,
      1e-3f,  1e-2f,  1e-1f, 1e0f,  1e1f,  1e2f,  1e3f};
  if (!(magnitude > 0.0f)) return 0;
  return static_cast<int>(
      std::upper_bound(std::begin(kLowerBounds), std::end(kLowerBounds), magnitude) -
      std::begin(kLowerBounds));
}

}  // namespace trainscope
