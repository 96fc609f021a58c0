// SPDX-License-Identifier: Apache-2.0
//
// SGD and Adam updates of one parameter tensor, with onert-micro's batch semantics: a batch is
// `batch_size` single-sample passes whose weight gradients are SUMMED; the optimizer receives
// that sum once per step.
//
//  SGD   w -= lr * g_sum / batch_size
//  Adam  m = b1*m + (1-b1)*g_sum;  v = b2*v + (1-b2)*g_sum²
//        w -= lr * (m / (1-b1^t)) / sqrt(v / (1-b2^t) + eps)
//        (no division by the batch size, eps inside the square root, t = optimizer step, 1 on
//        the first step; t is the caller's counter, so resetting it restarts bias correction)
//
// A half rank (UP_1_2_PART / LOWER_1_2_PART) trains only a range of dim-0 rows (TrainedRows() in
// engine/kernels/trained_rows.h): the gradient and the Adam state are compact (trained rows only)
// and land on rows [first_row, first_row + row_count) of the weights. onert-micro applies the LOWER
// half wrongly (SGD updates the upper rows, Adam shifts by the row offset in elements); we update
// the rows the rank names.
//
// Ownership: the caller owns every buffer (weights, gradient, Adam m and v, sized with
// TrainedElementCount() and zero-filled before the first step); the update allocates nothing.
//
//   ParameterSlice p{weights, 8, 4, /*first_row=*/1, /*row_count=*/1, grad_sum, m, v};
//   UpdateNorms norms;
//   TS_RETURN_IF_ERROR(ApplyAdam(adam, /*step=*/1, p, &norms));
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "engine/core/training_options.h"

namespace trainscope {

struct ParameterSlice {
  float* weights = nullptr;         // the whole tensor
  size_t element_count = 0;         // of the whole tensor
  size_t row_elements = 0;          // elements per dim-0 row (element_count for a 1-row tensor)
  size_t first_row = 0;             // first trained row
  size_t row_count = 0;             // trained rows
  const float* gradient = nullptr;  // compact batch sum, row_count * row_elements values
  float* adam_m = nullptr;          // compact first moment, same size (Adam only)
  float* adam_v = nullptr;          // compact second moment, same size (Adam only)
};

inline size_t TrainedElementCount(const ParameterSlice& p) {
  return p.row_count * p.row_elements;
}

struct SgdSettings {
  float learning_rate = 0.001f;
};

struct AdamSettings {
  float learning_rate = 0.001f;
  float beta1 = 0.9f;
  float beta2 = 0.9f;
  float epsilon = 1e-7f;
};

// Norms for UpdateRatioEvent: ||dW|| of the update actually applied, ||W|| of the whole tensor
// before it (so untrained rows count, which is what the tensor's scale is). Summed as
// engine/train/square_sums.h describes: to about 1e-5 relative, whatever the values' range.
struct UpdateNorms {
  float update_norm = 0.0f;
  float weight_norm = 0.0f;
};

Status ApplySgd(const SgdSettings& settings, uint32_t batch_size, const ParameterSlice& p,
                UpdateNorms* norms);
Status ApplyAdam(const AdamSettings& settings, uint32_t step, const ParameterSlice& p,
                 UpdateNorms* norms);

// The elements onert-micro's optimizers update for the same trained rows (research §9.2, §9.3),
// for BackwardMath::kOnertMicro: SGD ignores the row offset, so a LOWER half's gradient lands on
// the first rows; Adam adds the row offset as an ELEMENT offset. Slices starting at row 0 (ALL,
// UP_1_2_PART) are returned as they are. The norms of the result cover only what it updates.
ParameterSlice AsOnertMicroUpdates(OptimizerKind optimizer, ParameterSlice p);

// One optimizer step's settings for every tensor it updates: options.optimizer with its learning
// rate, betas, epsilon and batch size, and Adam's bias corrections for the step, computed once
// (two powers in double: about 13,000 instructions on a Cortex-M4F, which has no double unit).
struct OptimizerStep {
  OptimizerKind kind = OptimizerKind::kSgd;
  uint32_t batch_size = 1;
  SgdSettings sgd;
  AdamSettings adam;
  float correction1 = 1.0f;  // 1 - beta1^t
  float correction2 = 1.0f;  // 1 - beta2^t
  // Adam's step with one division and one square root instead of the formula's three and one: the
  // same moments to the bit, weights within a few float roundings. The fast kernels' choice (the
  // trainer sets it from --kernels); the reference path, the firmware and a board keep the formula.
  bool fast_adam = false;
};
// Fails for a step of 0 with Adam, betas outside [0, 1), a batch size of 0 or an unknown kind.
Status PrepareOptimizerStep(const TrainingOptions& options, uint32_t step, OptimizerStep* out);
Status ApplyOptimizerStep(const OptimizerStep& step, const ParameterSlice& p, UpdateNorms* norms);

// PrepareOptimizerStep and ApplyOptimizerStep for a single tensor.
Status ApplyOptimizer(const TrainingOptions& options, uint32_t step, const ParameterSlice& p,
                      UpdateNorms* norms);

UpdateRatioEvent MakeUpdateRatioEvent(uint32_t optimizer_step, int32_t tensor,
                                      const UpdateNorms& norms);

}  // namespace trainscope
