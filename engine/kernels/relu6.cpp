// SPDX-License-Identifier: Apache-2.0
//
// RELU6: y = min(max(x, 0), 6). Backward passes the gradient where 0 < y < 6 (the saved
// output).
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
  for (size_t i = 0; i < count; ++i) y[i] = x[i] < 0.0f ? 0.0f : (x[i] > 6.0f ? 6.0f : x[i]);
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  const size_t count = OutputTensor(io).element_count();
  const float* y = OutputFloats(io);
  for (size_t i = 0; i < count; ++i) {
    if (y[i] > 0.0f && y[i] < 6.0f) dx[i] += dy[i];
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationRelu6() {
  static constexpr OpRegistration kRegistration = {op::kRelu6,
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
