// SPDX-License-Identifier: Apache-2.0
//
// SPACE_TO_DEPTH on NHWC: every block_size x block_size patch of pixels becomes one pixel with
// the patch's channels side by side, row-major over the patch:
//   y[n, h, w, (dy * b + dx) * C + c] = x[n, h * b + dy, w * b + dx, c].
// Forward only.
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
  if (in.d[1] % b != 0 || in.d[2] % b != 0) {
    return check.Error("height %d and width %d must be multiples of block_size %d",
                       static_cast<int>(in.d[1]), static_cast<int>(in.d[2]), b);
  }
  Dims expected = in;
  expected.d[1] = in.d[1] / b;
  expected.d[2] = in.d[2] / b;
  expected.d[3] = in.d[3] * b * b;
  return check.ExpectOutputDims(expected, "height and width divided by the block, depth times");
}

Status Eval(const KernelIo& io) {
  const Dims out = DimsOf(OutputTensor(io));
  const Dims in = DimsOf(InputTensor(io, 0));
  const int b = io.op->options.block_size;
  const int channels = in.d[3];
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  int i = 0;
  for (int n = 0; n < out.d[0]; ++n) {
    for (int h = 0; h < out.d[1]; ++h) {
      for (int w = 0; w < out.d[2]; ++w) {
        for (int depth = 0; depth < out.d[3]; ++depth, ++i) {
          const int patch = depth / channels;
          const int c = depth % channels;
          const int src_h = h * b + patch / b;
          const int src_w = w * b + patch % b;
          y[i] = x[((n * in.d[1] + src_h) * in.d[2] + src_w) * channels + c];
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationSpaceToDepth() {
  static constexpr OpRegistration kRegistration = {
      op::kSpaceToDepth,           Prepare,           Eval,
      /*backward=*/nullptr,        nullptr,
      /*int32_inputs=*/0,
      /*backward_reads_inputs=*/0, OutputUse::kNever,
      /*weights_input=*/-1,
      /*bias_input=*/-1,
      /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
