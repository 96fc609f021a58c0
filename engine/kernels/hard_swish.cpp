// SPDX-License-Identifier: Apache-2.0
//
// HARD_SWISH: y = x * relu6(x + 3) / 6 (0 below -3, x above 3). Forward only.
#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

float HardSwish(float x) {
  const float shifted = x + 3.0f;
  const float relu6 = shifted < 0.0f ? 0.0f : (shifted > 6.0f ? 6.0f : shifted);
  return x * relu6 / 6.0f;
}

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, HardSwish);
}

}  // namespace

const OpRegistration& RegistrationHardSwish() {
  static constexpr OpRegistration kRegistration =
      ForwardElementwiseRegistration(op::kHardSwish, Eval);
  return kRegistration;
}

}  // namespace trainscope
