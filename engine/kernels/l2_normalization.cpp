// SPDX-License-Identifier: Apache-2.0
//
// L2_NORMALIZATION over the last dimension: y = act(x / max(||x||, 1e-6)), the floor on the
// norm (TFLite's and onert-micro's epsilon) keeping an all-zero row at zero instead of NaN.
// Forward only.
#include <cmath>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

constexpr float kMinNorm = 1e-6f;

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(ExpectSameShapeUnary(check));
  return check.ExpectSupportedActivation();
}

Status Eval(const KernelIo& io) {
  const Tensor& output = OutputTensor(io);
  const size_t depth = output.shape.empty() ? 1 : static_cast<size_t>(output.shape.back());
  const size_t rows = output.element_count() / depth;
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  for (size_t r = 0; r < rows; ++r) {
    const float* x_row = x + r * depth;
    float squares = 0.0f;
    for (size_t i = 0; i < depth; ++i) squares += x_row[i] * x_row[i];
    const float norm = std::sqrt(squares);
    const float divisor = norm > kMinNorm ? norm : kMinNorm;
    for (size_t i = 0; i < depth; ++i) {
      y[r * depth + i] = ApplyActivation(activation, x_row[i] / divisor);
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationL2Normalization() {
  static constexpr OpRegistration kRegistration = {
      op::kL2Normalization,        Prepare,           Eval,
      /*backward=*/nullptr,        nullptr,
      /*int32_inputs=*/0,
      /*backward_reads_inputs=*/0, OutputUse::kNever,
      /*weights_input=*/-1,
      /*bias_input=*/-1,
      /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
