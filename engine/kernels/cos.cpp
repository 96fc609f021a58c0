// SPDX-License-Identifier: Apache-2.0
//
// COS: cosine of x in radians. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return std::cos(x); });
}

}  // namespace

const OpRegistration& RegistrationCos() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kCos, Eval);
  return kRegistration;
}

}  // namespace trainscope
