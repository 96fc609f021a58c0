// SPDX-License-Identifier: Apache-2.0
//
// LOG_SOFTMAX over the last dimension: y_i = x_i - max - log(sum_k exp(x_k - max)), with the
// row maximum subtracted first so no exp overflows. Forward only.
#include <cmath>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  return ExpectSameShapeUnary(OpCheck(subgraph, op, op_index));
}

Status Eval(const KernelIo& io) {
  const Tensor& output = OutputTensor(io);
  const size_t depth = output.shape.empty() ? 1 : static_cast<size_t>(output.shape.back());
  const size_t rows = output.element_count() / depth;
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  for (size_t r = 0; r < rows; ++r) {
    const float* x_row = x + r * depth;
    float* y_row = y + r * depth;
    float max = x_row[0];
    for (size_t i = 1; i < depth; ++i) max = x_row[i] > max ? x_row[i] : max;
    float sum = 0.0f;
    for (size_t i = 0; i < depth; ++i) sum += std::exp(x_row[i] - max);
    const float log_sum = std::log(sum);
    for (size_t i = 0; i < depth; ++i) y_row[i] = x_row[i] - max - log_sum;
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationLogSoftmax() {
  static constexpr OpRegistration kRegistration = {op::kLogSoftmax,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
