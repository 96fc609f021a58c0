// SPDX-License-Identifier: Apache-2.0
//
// Per-sample losses: the value and the gradient with respect to the model output, for one sample
// (the model always runs with batch 1; a batch is a sum of per-sample passes, see optimizers.h).
//
// Contract:
//  - `output` holds `size` values of one sample. `target` holds TargetElementCount(kind, size)
//    values: `size` for every loss except SPARSE_CROSS_ENTROPY, whose target is one float class
//    index (onert-micro's convention).
//  - The gradient is ADDED to `gradient` (size elements); the caller zero-fills it once per sample.
//  - Nothing is allocated; `double` overloads exist so tests can check the gradients against
//    finite differences with the same code.
//
//   std::vector<float> grad(n, 0.0f);
//   float loss = 0;
//   TS_RETURN_IF_ERROR(ComputeLoss(LossKind::kMse, y, t, n, &loss, grad.data()));
//
// Math (N = size, ε = kProbabilityEpsilon, clamp(p) = max(p, ε)):
//  MSE   L = Σ(y-t)²/N               g = 2(y-t)/N (same as onert-micro)
//  MAE   L = Σ|y-t|/N                g = sign(y-t)/N (0 where y == t)
//  CE    L = -Σ t·ln clamp(y)        g = -t / clamp(y)         (y are probabilities)
//  SCE   L = -ln clamp(y[c])         g[c] = -1 / clamp(y[c])   (c = target[0])
//  BCE   L = -Σ[t ln q + (1-t) ln(1-q)]/N with q = y clamped to [ε, 1-ε]
//        g = (q - t) / (q (1-q) N)
//
// Where a board running onert-micro differs:
//  - onert-micro adds 1e-31 (CE) or 1e-19 (sparse CE) to y instead of clamping at ε = 1e-7. Both
//    give the same float result for y >= 1e-7. Below that onert-micro's gradient reaches 1e31
//    (1e19), whose square overflows float in Adam's v (v becomes Inf and the update collapses
//    to 0 or NaN); our clamp bounds |g| by 1e7 and still pushes the probability up.
//  - onert-micro has no MAE or BCE gradient (the step fails); we compute both.
//  - onert-micro reads the sparse label as (uint32)target[0] without checks; we refuse a label
//    that is not an integer in [0, N).
#pragma once

#include <cstddef>

#include "engine/core/status.h"
#include "engine/core/training_options.h"

namespace trainscope {

// Keras' backend epsilon: small enough to leave every realistic probability alone, large enough
// that 1/ε² (the Adam second moment of the gradient) stays far from float overflow.
inline constexpr double kProbabilityEpsilon = 1e-7;

// Number of target values one sample needs: 1 for SPARSE_CROSS_ENTROPY, else output_size.
size_t TargetElementCount(LossKind kind, size_t output_size);

// Computes the per-sample loss into *loss (if not null) and adds its gradient to `gradient` (if
// not null). Fails with kInvalidArgument for size 0, a bad sparse label, or a null output/target.
Status ComputeLoss(LossKind kind, const float* output, const float* target, size_t size,
                   float* loss, float* gradient);
Status ComputeLoss(LossKind kind, const double* output, const double* target, size_t size,
                   double* loss, double* gradient);

// Checks that a sparse target is an integer class index in [0, class_count), the rule shared by
// the sparse loss and the sparse accuracy metric.
Status ValidateSparseLabel(double label, size_t class_count, size_t* index);

}  // namespace trainscope
