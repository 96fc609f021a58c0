// SPDX-License-Identifier: Apache-2.0
//
// DIV with numpy broadcasting and a fused activation: y = act(a / b); a zero divisor gives
// +-Inf or NaN as IEEE division does. Forward only.
#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalBinary(io, [](float a, float b) { return a / b; });
}

}  // namespace

const OpRegistration& RegistrationDiv() {
  static constexpr OpRegistration kRegistration = ForwardBinaryRegistration(op::kDiv, Eval);
  return kRegistration;
}

}  // namespace trainscope
