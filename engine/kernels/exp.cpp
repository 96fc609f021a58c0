// SPDX-License-Identifier: Apache-2.0
//
// EXP: y = exp(x). Backward uses the saved output: dx += dy * y.
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) { return std::exp(x); });
}

Status Backward(const BackwardIo& io) {
  return BackwardElementwise(io, SavedForward::kOutput,
                             [](float& dx, float dy, float y) { dx += dy * y; });
}

}  // namespace

const OpRegistration& RegistrationExp() {
  static constexpr OpRegistration kRegistration =
      ElementwiseRegistration(op::kExp, Eval, Backward, SavedForward::kOutput);
  return kRegistration;
}

}  // namespace trainscope
