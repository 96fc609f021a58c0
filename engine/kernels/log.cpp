// SPDX-License-Identifier: Apache-2.0
//
// LOG: the natural logarithm; -Inf at 0 and NaN for x < 0. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return std::log(x); });
}

}  // namespace

const OpRegistration& RegistrationLog() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kLog, Eval);
  return kRegistration;
}

}  // namespace trainscope
