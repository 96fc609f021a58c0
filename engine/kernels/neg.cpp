// SPDX-License-Identifier: Apache-2.0
//
// NEG: y = -x. Forward only.
#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return -x; });
}

}  // namespace

const OpRegistration& RegistrationNeg() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kNeg, Eval);
  return kRegistration;
}

}  // namespace trainscope
