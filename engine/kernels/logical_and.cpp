// SPDX-License-Identifier: Apache-2.0
//
// LOGICAL_AND: y = a && b on BOOL inputs with numpy broadcasting (boolean_ops.h). Forward only.
#include "engine/kernels/boolean_ops.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalLogicalBinary(io, [](bool a, bool b) { return a && b; });
}

}  // namespace

const OpRegistration& RegistrationLogicalAnd() {
  static constexpr OpRegistration kRegistration =
      BooleanRegistration(op::kLogicalAnd, PrepareLogicalBinary, Eval);
  return kRegistration;
}

}  // namespace trainscope
