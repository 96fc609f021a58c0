// SPDX-License-Identifier: Apache-2.0
//
// SUB with numpy broadcasting and a fused activation: y = act(a - b). Backward sums the
// pre-activation gradient over each operand's broadcast dimensions: da += dz, db -= dz. Reads the
// output only when an activation is fused.
#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  return EvalBinary(io, [](float a, float b) { return a - b; });
}

Status Backward(const BackwardIo& io) {
  return BackwardBinary(io, [](float dz, int ia, int ib, float* da, float* db) {
    if (da != nullptr) da[ia] += dz;
    if (db != nullptr) db[ib] -= dz;
  });
}

}  // namespace

const OpRegistration& RegistrationSub() {
  static constexpr OpRegistration kRegistration =
      BinaryRegistration(op::kSub, Eval, Backward, /*backward_reads_inputs=*/0);
  return kRegistration;
}

}  // namespace trainscope
