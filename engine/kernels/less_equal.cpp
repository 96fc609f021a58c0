// SPDX-License-Identifier: Apache-2.0
//
// LESS_EQUAL: the BOOL y = a <= b with numpy broadcasting, on two FLOAT32 or two INT32 inputs
// (boolean_ops.h). Forward only.
#include "engine/kernels/boolean_ops.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalComparison(io, [](auto a, auto b) { return a <= b; });
}

}  // namespace

const OpRegistration& RegistrationLessEqual() {
  static constexpr OpRegistration kRegistration =
      BooleanRegistration(op::kLessEqual, PrepareComparison, Eval);
  return kRegistration;
}

}  // namespace trainscope
