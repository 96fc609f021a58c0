// SPDX-License-Identifier: Apache-2.0
//
// MINIMUM with numpy broadcasting: y = min(a, b); a NaN operand gives NaN. Forward only.
#include <cmath>

#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalBinary(io, [](float a, float b) { return a < b || std::isnan(a) ? a : b; });
}

}  // namespace

const OpRegistration& RegistrationMinimum() {
  static constexpr OpRegistration kRegistration = ForwardBinaryRegistration(op::kMinimum, Eval);
  return kRegistration;
}

}  // namespace trainscope
