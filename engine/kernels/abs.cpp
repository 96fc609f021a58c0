// SPDX-License-Identifier: Apache-2.0
//
// ABS: y = |x|. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return std::fabs(x); });
}

}  // namespace

const OpRegistration& RegistrationAbs() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kAbs, Eval);
  return kRegistration;
}

}  // namespace trainscope
