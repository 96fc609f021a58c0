// SPDX-License-Identifier: Apache-2.0
//
// REDUCE_MAX over the axes of the INT32 operand (reduction.h). Forward only.
#include <limits>

#include "engine/kernels/reduction.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalReduction(io, -std::numeric_limits<float>::infinity(),
                       [](float acc, float x) { return x > acc ? x : acc; });
}

}  // namespace

const OpRegistration& RegistrationReduceMax() {
  static constexpr OpRegistration kRegistration =
      ForwardReductionRegistration(op::kReduceMax, Eval);
  return kRegistration;
}

}  // namespace trainscope
