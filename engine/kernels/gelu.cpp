// SPDX-License-Identifier: Apache-2.0
//
// GELU: y = x * Phi(x) with Phi the standard normal CDF, 0.5 * (1 + erf(x / sqrt(2))); with the
// `approximate` option, the tanh form 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).
// Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

constexpr float kInverseSqrt2 = 0.70710678118654752f;
constexpr float kSqrt2OverPi = 0.79788456080286536f;

float GeluExact(float x) {
  return 0.5f * x * (1.0f + std::erf(x * kInverseSqrt2));
}

float GeluTanh(float x) {
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

Status Eval(const KernelIo& io) {
  return io.op->options.approximate ? EvalElementwise(io, GeluTanh)
                                    : EvalElementwise(io, GeluExact);
}

}  // namespace

const OpRegistration& RegistrationGelu() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kGelu, Eval);
  return kRegistration;
}

}  // namespace trainscope
