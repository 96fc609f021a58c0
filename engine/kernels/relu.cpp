// SPDX-License-Identifier: Apache-2.0
//
// RELU: y = max(x, 0). Backward passes the gradient where y > 0 (the saved output).
#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return x > 0.0f ? x : 0.0f; });
}

Status Backward(const BackwardIo& io) {
  return BackwardElementwise(io, SavedForward::kOutput, [](float& dx, float dy, float y) {
    if (y > 0.0f) dx += dy;
  });
}

}  // namespace

const OpRegistration& RegistrationRelu() {
  static constexpr OpRegistration kRegistration =
      ElementwiseRegistration(op::kRelu, Eval, Backward, SavedForward::kOutput);
  return kRegistration;
}

}  // namespace trainscope
