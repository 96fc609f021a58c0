// SPDX-License-Identifier: Apache-2.0
//
// ROUND: to the nearest integer, halves to the even neighbour (2.5 -> 2, 3.5 -> 4, -2.5 -> -2),
// as TFLite and onert-micro round. Computed from floor() so the result does not depend on the
// floating-point environment's rounding mode. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

float RoundHalfToEven(float x) {
  const float below = std::floor(x);
  const float fraction = x - below;
  if (fraction < 0.5f) return below;
  if (fraction > 0.5f) return below + 1.0f;
  return std::fmod(below, 2.0f) == 0.0f ? below : below + 1.0f;
}

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, RoundHalfToEven);
}

}  // namespace

const OpRegistration& RegistrationRound() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kRound, Eval);
  return kRegistration;
}

}  // namespace trainscope
