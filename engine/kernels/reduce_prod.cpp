// SPDX-License-Identifier: Apache-2.0
//
// REDUCE_PROD over the axes of the INT32 operand (reduction.h). Forward only.
#include "engine/kernels/reduction.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalReduction(io, 1.0f, [](float acc, float x) { return acc * x; });
}

}  // namespace

const OpRegistration& RegistrationReduceProd() {
  static constexpr OpRegistration kRegistration =
      ForwardReductionRegistration(op::kReduceProd, Eval);
  return kRegistration;
}

}  // namespace trainscope
