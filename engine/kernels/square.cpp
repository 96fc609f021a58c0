// SPDX-License-Identifier: Apache-2.0
//
// SQUARE: y = x * x. Forward only.
#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return x * x; });
}

}  // namespace

const OpRegistration& RegistrationSquare() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kSquare, Eval);
  return kRegistration;
}

}  // namespace trainscope
