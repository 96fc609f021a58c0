// SPDX-License-Identifier: Apache-2.0
//
// ZEROS_LIKE: a zero tensor of the input's shape (the input's values are not read). Forward
// only.
#include "engine/kernels/registrations.h"
#include "engine/kernels/unary_elementwise.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalElementwise(io, [](float /*x*/) { return 0.0f; });
}

}  // namespace

const OpRegistration& RegistrationZerosLike() {
  static constexpr OpRegistration kRegistration =
      ForwardElementwiseRegistration(op::kZerosLike, Eval);
  return kRegistration;
}

}  // namespace trainscope
