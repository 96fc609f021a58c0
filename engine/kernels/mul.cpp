// SPDX-License-Identifier: Apache-2.0
//
// MUL with numpy broadcasting and a fused activation: y = act(a * b). Backward reads both inputs:
// da += dz * b, db += dz * a, summed over each operand's broadcast dimensions.
#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalBinary(io, [](float a, float b) { return a * b; });
}

Status Backward(const BackwardIo& io) {
  const float* a = InputFloats(io, 0);
  const float* b = InputFloats(io, 1);
  return BackwardBinary(io, [a, b](float dz, int ia, int ib, float* da, float* db) {
    if (da != nullptr) da[ia] += dz * b[ib];
    if (db != nullptr) db[ib] += dz * a[ia];
  });
}

}  // namespace

const OpRegistration& RegistrationMul() {
  static constexpr OpRegistration kRegistration =
      BinaryRegistration(op::kMul, Eval, Backward, /*backward_reads_inputs=*/(1u << 0) | (1u << 1));
  return kRegistration;
}

}  // namespace trainscope
