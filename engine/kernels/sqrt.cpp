// SPDX-License-Identifier: Apache-2.0
//
// SQRT: y = sqrt(x); NaN for x < 0, as in IEEE arithmetic. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return std::sqrt(x); });
}

}  // namespace

const OpRegistration& RegistrationSqrt() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kSqrt, Eval);
  return kRegistration;
}

}  // namespace trainscope
