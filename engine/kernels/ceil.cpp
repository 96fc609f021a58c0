// SPDX-License-Identifier: Apache-2.0
//
// CEIL: the smallest integer not below x. Forward only.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return std::ceil(x); });
}

}  // namespace

const OpRegistration& RegistrationCeil() {
  static constexpr OpRegistration kRegistration = ForwardElementwiseRegistration(op::kCeil, Eval);
  return kRegistration;
}

}  // namespace trainscope
