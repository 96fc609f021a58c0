// SPDX-License-Identifier: Apache-2.0
//
// BATCH_TO_SPACE_ND, the inverse of SPACE_TO_BATCH_ND: batch entries become block_shape tile
// offsets of the spatial dimensions, and input 2 crops the result (batch_space.h):
//   y[n, bh * block_h + sh - crop_top, bw * block_w + sw - crop_left, c]
//     = x[(sh * block_w + sw) * N + n, bh, bw, c]
// for every position that survives the crop. Forward only.
#include "engine/kernels/batch_space.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  return PrepareBatchSpace(OpCheck(subgraph, op, op_index));
}

Status Eval(const KernelIo& io) {
  BatchSpaceGeometry g;
  TS_RETURN_IF_ERROR(ResolveBatchSpace(io, /*space_is_output=*/true, &g));
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const int batches = g.space_batch * g.block_h * g.block_w;
  int i = 0;
  for (int b = 0; b < batches; ++b) {
    const int n = b % g.space_batch;
    const int shift = b / g.space_batch;
    for (int bh = 0; bh < g.batch_h; ++bh) {
      const int h = bh * g.block_h + shift / g.block_w - g.before_h;
      for (int bw = 0; bw < g.batch_w; ++bw, i += g.depth) {
        const int w = bw * g.block_w + shift % g.block_w - g.before_w;
        if (h < 0 || h >= g.space_h || w < 0 || w >= g.space_w) continue;
        float* to = y + ((n * g.space_h + h) * g.space_w + w) * g.depth;
        for (int c = 0; c < g.depth; ++c) to[c] = x[i + c];
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationBatchToSpaceNd() {
  static constexpr OpRegistration kRegistration = {op::kBatchToSpaceNd,
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
