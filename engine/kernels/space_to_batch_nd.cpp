// SPDX-License-Identifier: Apache-2.0
//
// SPACE_TO_BATCH_ND: the spatial dimensions, zero-padded by input 2, are cut into block_shape
// tiles whose offsets become batch entries (batch_space.h):
//   y[(sh * block_w + sw) * N + n, bh, bw, c] = x[n, bh * block_h + sh - pad_top,
//                                                  bw * block_w + sw - pad_left, c]
// and 0 where that falls in the padding. Forward only.
#include "engine/kernels/batch_space.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  return PrepareBatchSpace(OpCheck(subgraph, op, op_index));
}

Status Eval(const KernelIo& io) {
  BatchSpaceGeometry g;
  TS_RETURN_IF_ERROR(ResolveBatchSpace(io, /*space_is_output=*/false, &g));
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const int batches = g.space_batch * g.block_h * g.block_w;
  int i = 0;
  for (int b = 0; b < batches; ++b) {
    const int n = b % g.space_batch;
    const int shift = b / g.space_batch;
    for (int bh = 0; bh < g.batch_h; ++bh) {
      const int h = bh * g.block_h + shift / g.block_w - g.before_h;
      for (int bw = 0; bw < g.batch_w; ++bw) {
        const int w = bw * g.block_w + shift % g.block_w - g.before_w;
        const bool inside = h >= 0 && h < g.space_h && w >= 0 && w < g.space_w;
        const int from = inside ? ((n * g.space_h + h) * g.space_w + w) * g.depth : 0;
        for (int c = 0; c < g.depth; ++c, ++i) y[i] = inside ? x[from + c] : 0.0f;
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationSpaceToBatchNd() {
  static constexpr OpRegistration kRegistration = {op::kSpaceToBatchNd,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/1u << 1 | 1u << 2,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
