// SPDX-License-Identifier: Apache-2.0
//
// FLOOR_MOD with numpy broadcasting: the remainder of FLOOR_DIV, a - floor(a / b) * b, which
// takes the sign of the divisor (-7 mod 2 = 1, 7 mod -2 = -1). Computed from fmod, exact for
// every float, then moved by b when the signs differ. Forward only.
#include <cmath>

#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

float FloorMod(float a, float b) {
  const float remainder = std::fmod(a, b);
  if (remainder != 0.0f && (remainder < 0.0f) != (b < 0.0f)) return remainder + b;
  return remainder;
}

Status Eval(const KernelIo& io) {
  return EvalBinary(io, FloorMod);
}

}  // namespace

const OpRegistration& RegistrationFloorMod() {
  static constexpr OpRegistration kRegistration = ForwardBinaryRegistration(op::kFloorMod, Eval);
  return kRegistration;
}

}  // namespace trainscope
