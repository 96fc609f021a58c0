// SPDX-License-Identifier: Apache-2.0
//
// RSQRT: y = 1 / sqrt(x); +Inf at 0 and NaN for x < 0. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return 1.0f / std::sqrt(x); });
}

}  // namespace

const OpRegistration& RegistrationRsqrt() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kRsqrt, Eval);
  return kRegistration;
}

}  // namespace trainscope
