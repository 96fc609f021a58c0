// SPDX-License-Identifier: Apache-2.0
//
// FLOOR: the largest integer not above x. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return std::floor(x); });
}

}  // namespace

const OpRegistration& RegistrationFloor() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kFloor, Eval);
  return kRegistration;
}

}  // namespace trainscope
