// SPDX-License-Identifier: Apache-2.0
//
// SIN: sine of x in radians. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return std::sin(x); });
}

}  // namespace

const OpRegistration& RegistrationSin() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kSin, Eval);
  return kRegistration;
}

}  // namespace trainscope
