// SPDX-License-Identifier: Apache-2.0
//
// SQUARED_DIFFERENCE with numpy broadcasting: y = (a - b)^2. Forward only.
#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalBinary(io, [](float a, float b) { return (a - b) * (a - b); });
}

}  // namespace

const OpRegistration& RegistrationSquaredDifference() {
  static constexpr OpRegistration kRegistration =
      ForwardBinaryRegistration(op::kSquaredDifference, Eval);
  return kRegistration;
}

}  // namespace trainscope
