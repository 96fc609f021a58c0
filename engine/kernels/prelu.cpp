// SPDX-License-Identifier: Apache-2.0
//
// PRELU: y = x for x >= 0, alpha * x otherwise, with alpha (input 1) broadcast against x the
// numpy way (usually one slope per channel). Forward only.
#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalBinary(io, [](float a, float b) { return a >= 0.0f ? a : a * b; });
}

}  // namespace

const OpRegistration& RegistrationPrelu() {
  static constexpr OpRegistration kRegistration = ForwardBinaryRegistration(op::kPrelu, Eval);
  return kRegistration;
}

}  // namespace trainscope
