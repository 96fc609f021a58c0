// SPDX-License-Identifier: Apache-2.0
//
// TANH: y = tanh(x). Backward uses the saved output: dx += dy * (1 - y^2).
#include <cmath>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  return ExpectSameShapeUnary(OpCheck(subgraph, op, op_index));
}

Status Eval(const KernelIo& io) {
  const size_t count = OutputTensor(io).element_count();
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  for (size_t i = 0; i < count; ++i) y[i] = std::tanh(x[i]);
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  const size_t count = OutputTensor(io).element_count();
  const float* y = OutputFloats(io);
  for (size_t i = 0; i < count; ++i) dx[i] += dy[i] * (1.0f - y[i] * y[i]);
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationTanh() {
  static constexpr OpRegistration kRegistration = {op::kTanh,
                                                   Prepare,
                                                   Eval,
                                                   Backward,
                                                   nullptr,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kAlways,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
