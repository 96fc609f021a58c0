// SPDX-License-Identifier: Apache-2.0
//
// REDUCE_MIN over the axes of the INT32 operand (reduction.h). Forward only.
#include <limits>

#include "engine/kernels/reduction.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalReduction(io, std::numeric_limits<float>::infinity(),
                       [](float acc, float x) { return x < acc ? x : acc; });
}

}  // namespace

const OpRegistration& RegistrationReduceMin() {
  static constexpr OpRegistration kRegistration =
      ForwardReductionRegistration(op::kReduceMin, Eval);
  return kRegistration;
}

}  // namespace trainscope
