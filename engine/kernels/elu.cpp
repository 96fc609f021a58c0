// SPDX-License-Identifier: Apache-2.0
//
// ELU with alpha 1 (the operator has no options): y = x for x > 0, exp(x) - 1 otherwise.
// Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return x > 0.0f ? x : std::expm1(x); });
}

}  // namespace

const OpRegistration& RegistrationElu() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kElu, Eval);
  return kRegistration;
}

}  // namespace trainscope
