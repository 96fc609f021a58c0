// SPDX-License-Identifier: Apache-2.0
#include "engine/core/events.h"

#include <cmath>

namespace trainscope {

const char* TrainRankName(TrainRank rank) {
  switch (rank) {
    case TrainRank::kAll: return "ALL";
    case TrainRank::kOnlyBias: return "ONLY_BIAS";
    case TrainRank::kUpperHalf: return "UP_1_2_PART";
    case TrainRank::kLowerHalf: return "LOWER_1_2_PART";
  }
  return "UNKNOWN";
}

const char* PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kForward: return "forward";
    case Phase::kBackward: return "backward";
    case Phase::kOptimizer: return "optimizer";
  }
  return "unknown";
}

const char* MemoryCategoryName(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::kInput: return "input";
    case MemoryCategory::kActivation: return "activation";
    case MemoryCategory::kActivationKept: return "activation_kept";
    case MemoryCategory::kActivationGradient: return "activation_gradient";
    case MemoryCategory::kWeightGradient: return "weight_gradient";
    case MemoryCategory::kOptimizerState: return "optimizer_state";
    case MemoryCategory::kLossGradient: return "loss_gradient";
    case MemoryCategory::kTemporary: return "temporary";
  }
  return "unknown";
}

int GradientHistogramBin(float magnitude) {
  if (!(magnitude > 0.0f)) return 0;
  const int bin = static_cast<int>(std::floor(std::log10(magnitude))) + 12;
  if (bin < 0) return 0;
  if (bin >= kGradientHistogramBins) return kGradientHistogramBins - 1;
  return bin;
}

}  // namespace trainscope
