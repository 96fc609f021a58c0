// SPDX-License-Identifier: Apache-2.0
//
// Where a board running onert-micro would compute something different from TrainScope for a
// given model and trainability (research/onert-micro-training.md §17). TrainScope computes the
// correct result; these notes tell the user, per operator, what the board would do instead, so
// a difference between the debugger and the device is never a surprise.
//
//   for (const OnertDifference& d : FindOnertDifferences(graph.main(), selection, optimizer))
//     panel.setOpWarning(d.op_index, QString::fromStdString(d.text));
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/training_options.h"
#include "engine/plan/trainability.h"

namespace trainscope {

enum class DifferenceKind : uint8_t {
  kNoOnertKernel,          // the op runs backward but onert-micro has no backward kernel
  kUnsupportedActivation,  // fused activation onert-micro cannot differentiate
  kConvPadding,            // SAME padding: onert-micro trains as if VALID
  kConvStrideDilation,     // stride/dilation > 1: weight gradient roles swapped upstream
  kConvInputGradient,      // onert-micro's Conv2D input gradient is not a transposed convolution
  kLowerHalfConv,          // LOWER_1_2_PART on CONV_2D computes the upper half's gradient
  kLowerHalfUpdate,        // SGD/Adam apply the LOWER half to the wrong weights
  kOverlappingMaxPool,     // overlapping windows overwrite instead of accumulate
  kSoftmaxBeta,            // softmax backward ignores beta
  kNotListedAsserts,       // FC/Conv in range but not trainable: debug builds assert
  kGruBiasGradient,        // GRU biases: onert-micro applies gradients it never wrote
  kGruInputGradient,       // GRU computes no input gradient on onert-micro
  kGruStateGradient,       // a constant GRU initial state: onert-micro zeroes its gradient
};

struct OnertDifference {
  uint32_t op_index = 0;
  DifferenceKind kind = DifferenceKind::kNoOnertKernel;
  std::string text;  // one sentence for the user
};

// Whether BackwardMath::kOnertMicro computes `kind` as a board would (the other kinds are
// failures on the board, or values the research does not pin down, such as GRU's uninitialised
// bias gradients).
bool ReproducedByOnertMath(DifferenceKind kind);

std::vector<OnertDifference> FindOnertDifferences(const Subgraph& subgraph,
                                                  const BackwardSelection& selection,
                                                  OptimizerKind optimizer);

}  // namespace trainscope
