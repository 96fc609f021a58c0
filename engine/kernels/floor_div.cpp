// SPDX-License-Identifier: Apache-2.0
//
// FLOOR_DIV with numpy broadcasting: y = floor(a / b), rounding toward -Inf (-7 / 2 = -4).
// Forward only.
#include <cmath>

#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalBinary(io, [](float a, float b) { return std::floor(a / b); });
}

}  // namespace

const OpRegistration& RegistrationFloorDiv() {
  static constexpr OpRegistration kRegistration = ForwardBinaryRegistration(op::kFloorDiv, Eval);
  return kRegistration;
}

}  // namespace trainscope
