// SPDX-License-Identifier: Apache-2.0
//
// SOFTMAX over the last dimension with temperature beta:
//   y_i = exp(beta * (x_i - max_j x_j)) / sum_k exp(beta * (x_k - max_j x_j)).
// Backward (with beta, any number of rows, unlike onert-micro's [1, N] only):
//   dx_i += beta * y_i * (g_i - sum_j y_j g_j), reading the saved forward output.
// BackwardAsOnertMicro leaves beta out, as onert-micro does (research §7.5).
#include <cmath>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

template <typename Io>
void RowsOf(const Io& io, size_t* rows, size_t* depth) {
  const Tensor& output = OutputTensor(io);
  *depth = output.shape.empty() ? 1 : static_cast<size_t>(output.shape.back());
  *rows = output.element_count() / *depth;
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  return ExpectSameShapeUnary(OpCheck(subgraph, op, op_index));
}

Status Eval(const KernelIo& io) {
  size_t rows = 0;
  size_t depth = 0;
  RowsOf(io, &rows, &depth);
  const float beta = io.op->options.beta;
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  for (size_t r = 0; r < rows; ++r) {
    const float* x_row = x + r * depth;
    float* y_row = y + r * depth;
    float max = x_row[0];
    for (size_t i = 1; i < depth; ++i) max = x_row[i] > max ? x_row[i] : max;
    float sum = 0.0f;
    for (size_t i = 0; i < depth; ++i) {
      y_row[i] = std::exp(beta * (x_row[i] - max));
      sum += y_row[i];
    }
    for (size_t i = 0; i < depth; ++i) y_row[i] /= sum;
  }
  return Status::Ok();
}

Status BackwardScaled(const BackwardIo& io, float beta) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  size_t rows = 0;
  size_t depth = 0;
  RowsOf(io, &rows, &depth);
  const float* y = OutputFloats(io);
  for (size_t r = 0; r < rows; ++r) {
    const float* y_row = y + r * depth;
    const float* g_row = dy + r * depth;
    float dot = 0.0f;
    for (size_t i = 0; i < depth; ++i) dot += y_row[i] * g_row[i];
    for (size_t i = 0; i < depth; ++i) dx[r * depth + i] += beta * y_row[i] * (g_row[i] - dot);
  }
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  return BackwardScaled(io, io.op->options.beta);
}

Status BackwardAsOnertMicro(const BackwardIo& io) {
  return BackwardScaled(io, 1.0f);
}

}  // namespace

const OpRegistration& RegistrationSoftmax() {
  static constexpr OpRegistration kRegistration =
      WithOnertBackward({op::kSoftmax, Prepare, Eval, Backward, nullptr, /*int32_inputs=*/0,
                         /*backward_reads_inputs=*/0, OutputUse::kAlways, /*weights_input=*/-1,
                         /*bias_input=*/-1, /*half_rank=*/false},
                        BackwardAsOnertMicro);
  return kRegistration;
}

}  // namespace trainscope
