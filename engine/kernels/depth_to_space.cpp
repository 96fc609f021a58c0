// SPDX-License-Identifier: Apache-2.0
//
// DEPTH_TO_SPACE on NHWC, the inverse of SPACE_TO_DEPTH: the channels of every pixel spread over
// a block_size x block_size patch, row-major over the patch:
//   y[n, h * b + dy, w * b + dx, c] = x[n, h, w, (dy * b + dx) * C_out + c].
// Forward only.
#include <cstdint>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(1, 1, 1));
  TS_RETURN_IF_ERROR(check.ExpectInputRank(0, 4));
  const int b = op.options.block_size;
  const Dims in = check.InputDims(0);
  if (b < 1) return check.Error("block_size is %d; it must be at least 1", b);
  if (in.d[3] % (int64_t{b} * b) != 0) {
    return check.Error("depth %d must be a multiple of block_size squared (%d x %d)",
                       static_cast<int>(in.d[3]), b, b);
  }
  // In 64 bits: height * b overflows int32 for a hostile block size.
  const int64_t height = int64_t{in.d[1]} * b;
  const int64_t width = int64_t{in.d[2]} * b;
  Dims expected = in;
  expected.d[1] = height > INT32_MAX ? -1 : static_cast<int32_t>(height);
  expected.d[2] = width > INT32_MAX ? -1 : static_cast<int32_t>(width);
  expected.d[3] = static_cast<int32_t>(in.d[3] / (int64_t{b} * b));
  return check.ExpectOutputDims(expected, "height and width times the block, depth divided");
}

Status Eval(const KernelIo& io) {
  const Dims out = DimsOf(OutputTensor(io));
  const Dims in = DimsOf(InputTensor(io, 0));
  const int b = io.op->options.block_size;
  const int channels = out.d[3];
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  int i = 0;
  for (int n = 0; n < out.d[0]; ++n) {
    for (int h = 0; h < out.d[1]; ++h) {
      for (int w = 0; w < out.d[2]; ++w) {
        for (int c = 0; c < channels; ++c, ++i) {
          const int depth = ((h % b) * b + w % b) * channels + c;
          y[i] = x[((n * in.d[1] + h / b) * in.d[2] + w / b) * in.d[3] + depth];
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationDepthToSpace() {
  static constexpr OpRegistration kRegistration = {
      op::kDepthToSpace,           Prepare,           Eval,
      /*backward=*/nullptr,        nullptr,
      /*int32_inputs=*/0,
      /*backward_reads_inputs=*/0, OutputUse::kNever,
      /*weights_input=*/-1,
      /*bias_input=*/-1,
      /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
