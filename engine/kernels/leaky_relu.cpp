// SPDX-License-Identifier: Apache-2.0
//
// LEAKY_RELU: y = x for x > 0, alpha * x otherwise. Backward reads the saved input (the output
// cannot tell the sign of x when alpha <= 0): dx += dy for x > 0, alpha * dy otherwise.
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
  const float alpha = io.op->options.alpha;
  for (size_t i = 0; i < count; ++i) y[i] = x[i] > 0.0f ? x[i] : alpha * x[i];
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  const size_t count = OutputTensor(io).element_count();
  const float alpha = io.op->options.alpha;
  const float* x = InputFloats(io, 0);
  for (size_t i = 0; i < count; ++i) dx[i] += x[i] > 0.0f ? dy[i] : alpha * dy[i];
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationLeakyRelu() {
  static constexpr OpRegistration kRegistration = {op::kLeakyRelu,
                                                   Prepare,
                                                   Eval,
                                                   Backward,
                                                   nullptr,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/1u << 0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
