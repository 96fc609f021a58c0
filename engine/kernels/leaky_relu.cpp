// SPDX-License-Identifier: Apache-2.0
//
// LEAKY_RELU: y = x for x > 0, alpha * x otherwise. Backward reads the saved input (the output
// cannot tell the sign of x when alpha <= 0): dx += dy for x > 0, alpha * dy otherwise.
#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  const float alpha = io.op->options.alpha;
  return EvalElementwise(io, [alpha](float x) { return x > 0.0f ? x : alpha * x; });
}

Status Backward(const BackwardIo& io) {
  const float alpha = io.op->options.alpha;
  return BackwardElementwise(io, SavedForward::kInput, [alpha](float& dx, float dy, float x) {
    dx += x > 0.0f ? dy : alpha * dy;
  });
}

}  // namespace

const OpRegistration& RegistrationLeakyRelu() {
  static constexpr OpRegistration kRegistration =
      ElementwiseRegistration(op::kLeakyRelu, Eval, Backward, SavedForward::kInput);
  return kRegistration;
}

}  // namespace trainscope
