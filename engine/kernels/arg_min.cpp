// SPDX-License-Identifier: Apache-2.0
//
// ARG_MIN: the INT32 index of the smallest value along the axis of input 1 (arg_reduce.h); ties
// go to the first index. Forward only.
#include "engine/kernels/arg_reduce.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalArgReduce(io, [](float a, float b) { return a < b; });
}

}  // namespace

const OpRegistration& RegistrationArgMin() {
  static constexpr OpRegistration kRegistration = ArgReduceRegistration(op::kArgMin, Eval);
  return kRegistration;
}

}  // namespace trainscope
