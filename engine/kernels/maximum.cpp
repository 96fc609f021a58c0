// SPDX-License-Identifier: Apache-2.0
//
// MAXIMUM with numpy broadcasting: y = max(a, b); a NaN operand gives NaN, as TFLite's
// reference does. Forward only.
#include <cmath>

#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalBinary(io, [](float a, float b) { return a > b || std::isnan(a) ? a : b; });
}

}  // namespace

const OpRegistration& RegistrationMaximum() {
  static constexpr OpRegistration kRegistration = ForwardBinaryRegistration(op::kMaximum, Eval);
  return kRegistration;
}

}  // namespace trainscope
