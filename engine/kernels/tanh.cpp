// SPDX-License-Identifier: Apache-2.0
//
// TANH: y = tanh(x). Backward uses the saved output: dx += dy * (1 - y^2).
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return std::tanh(x); });
}

Status Backward(const BackwardIo& io) {
  return BackwardElementwise(io, SavedForward::kOutput,
                             [](float& dx, float dy, float y) { dx += dy * (1.0f - y * y); });
}

}  // namespace

const OpRegistration& RegistrationTanh() {
  static constexpr OpRegistration kRegistration =
      ElementwiseRegistration(op::kTanh, Eval, Backward, SavedForward::kOutput);
  return kRegistration;
}

}  // namespace trainscope
