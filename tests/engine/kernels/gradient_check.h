// SPDX-License-Identifier: Apache-2.0
//
// Finite-difference checks of the backward kernels.
//
// CheckGradients builds the model, fills every float tensor no operator produces (graph inputs,
// weights, biases, other constants) with seeded random values, and defines the loss
// L = sum_i c_i * y_i over the graph outputs with random weights c (so dL/dy = c). It then runs
// the backward pass of every operator in reverse order the way an executor would (zero-filled
// intermediate gradients, NaN-filled scratch, forward tensors the op did not declare in
// BackwardNeedsOf() replaced by NaN) and compares each leaf gradient with double-precision
// central differences of L. Leaf gradient buffers start at a random prior, so the comparison
// also proves accumulation (+=), and every buffer carries a guard tail that must stay intact.
//
// Per-rank expectations: trained weights get a compact buffer of WeightGradientRows() rows that
// must equal the numeric gradient of exactly those rows; kOnlyBias gets no weight buffer; params
// of a non-trainable pass and the input gradients of a last layer must stay at their prior.
//
//   GradientCheck check;
//   check.rank = TrainRank::kLowerHalf;
//   CheckGradients(builder, check);  // gtest failures name tensor, element and both values
#pragma once

#include <cstdint>

#include "engine/core/events.h"
#include "engine/model/model_builder.h"

namespace trainscope::testing {

enum class ValueStyle : uint8_t {
  kUniform,       // uniform in [-1, 1]
  kAwayFromZero,  // magnitude in [0.1, 1], random sign: keeps piecewise ops off their kinks
  kDistinct,      // a shuffled grid with spacing 0.05: no ties for max pooling
};

struct GradientCheck {
  bool trainable = true;
  TrainRank rank = TrainRank::kAll;
  bool is_last_layer = false;  // applies to operator 0; use with single-operator models
  ValueStyle values = ValueStyle::kUniform;
  float scale = 1.0f;  // leaf values are multiplied by this (reach RELU6's upper clamp, ...)
  uint32_t seed = 1;
};

void CheckGradients(const ModelBuilder& builder, const GradientCheck& check);

}  // namespace trainscope::testing
