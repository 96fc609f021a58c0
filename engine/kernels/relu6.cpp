// SPDX-License-Identifier: Apache-2.0
//
// RELU6: y = min(max(x, 0), 6). Backward passes the gradient where 0 < y < 6 (the saved
// output).
#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x); });
}

Status Backward(const BackwardIo& io) {
  return BackwardElementwise(io, SavedForward::kOutput, [](float& dx, float dy, float y) {
    if (y > 0.0f && y < 6.0f) dx += dy;
  });
}

}  // namespace

const OpRegistration& RegistrationRelu6() {
  static constexpr OpRegistration kRegistration =
      ElementwiseRegistration(op::kRelu6, Eval, Backward, SavedForward::kOutput);
  return kRegistration;
}

}  // namespace trainscope
