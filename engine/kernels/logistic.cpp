// SPDX-License-Identifier: Apache-2.0
//
// LOGISTIC: y = 1 / (1 + exp(-x)), evaluated without overflow for large |x|. Backward uses the
// saved output: dx += dy * y * (1 - y).
#include <cmath>

#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float x) {
    if (x >= 0.0f) return 1.0f / (1.0f + std::exp(-x));
    const float e = std::exp(x);
    return e / (1.0f + e);
  });
}

Status Backward(const BackwardIo& io) {
  return BackwardElementwise(io, SavedForward::kOutput,
                             [](float& dx, float dy, float y) { dx += dy * y * (1.0f - y); });
}

}  // namespace

const OpRegistration& RegistrationLogistic() {
  static constexpr OpRegistration kRegistration =
      ElementwiseRegistration(op::kLogistic, Eval, Backward, SavedForward::kOutput);
  return kRegistration;
}

}  // namespace trainscope
