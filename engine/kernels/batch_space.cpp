// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/batch_space.h"

#include <cstdint>

namespace trainscope {
namespace {

// [batch, h, w, depth] of a rank-3 or rank-4 tensor.
void AsFourDims(const Dims& dims, int* batch, int* h, int* w, int* depth) {
  *batch = dims.d[0];
  *h = dims.d[1];
  *w = dims.rank == 4 ? dims.d[2] : 1;
  *depth = dims.d[dims.rank - 1];
}

}  // namespace

Status PrepareBatchSpace(const OpCheck& check) {
  TS_RETURN_IF_ERROR(check.ExpectArity(3, 3, 3));
  const int rank = check.InputDims(0).rank;
  if (rank != 3 && rank != 4) {
    return check.Unsupported("input has rank %d; only rank 3 or 4 ([batch, spatial..., depth])",
                             rank);
  }
  if (check.OutputDims().rank != rank) {
    return check.Error("output rank %d differs from the input rank %d", check.OutputDims().rank,
                       rank);
  }
  const size_t spatial = static_cast<size_t>(rank - 2);
  if (check.Input(1).shape.size() != 1 || check.Input(1).element_count() != spatial) {
    return check.Error("block_shape must be 1-D with %zu entries", spatial);
  }
  const std::vector<int32_t>& pads = check.Input(2).shape;
  if (pads.size() != 2 || static_cast<size_t>(pads[0]) != spatial || pads[1] != 2) {
    return check.Error("paddings / crops must have shape [%zu, 2]", spatial);
  }
  return Status::Ok();
}

Status ResolveBatchSpace(const KernelIo& io, bool space_is_output, BatchSpaceGeometry* g) {
  *g = BatchSpaceGeometry();
  const Dims space = DimsOf(space_is_output ? OutputTensor(io) : InputTensor(io, 0));
  const Dims batch = DimsOf(space_is_output ? InputTensor(io, 0) : OutputTensor(io));
  int batch_n = 0;
  int batch_depth = 0;
  AsFourDims(space, &g->space_batch, &g->space_h, &g->space_w, &g->depth);
  AsFourDims(batch, &batch_n, &g->batch_h, &g->batch_w, &batch_depth);
  const int32_t* block = InputInts(io, 1);
  const int32_t* pads = InputInts(io, 2);
  const bool two_spatial = space.rank == 4;
  g->block_h = block[0];
  g->block_w = two_spatial ? block[1] : 1;
  g->before_h = pads[0];
  g->before_w = two_spatial ? pads[2] : 0;
  const int after_h = pads[1];
  const int after_w = two_spatial ? pads[3] : 0;
  if (g->block_h < 1 || g->block_w < 1) {
    return KernelError(io.op_index, *io.op, "block_shape entries must be at least 1");
  }
  if (g->before_h < 0 || after_h < 0 || g->before_w < 0 || after_w < 0) {
    return KernelError(io.op_index, *io.op, "paddings / crops must not be negative");
  }
  // Everything in 64 bits: the values come from the model.
  const int64_t blocks = int64_t{g->block_h} * g->block_w;
  const int64_t padded_h = int64_t{g->space_h} + g->before_h + after_h;
  const int64_t padded_w = int64_t{g->space_w} + g->before_w + after_w;
  const bool consistent = batch_depth == g->depth && int64_t{batch_n} == g->space_batch * blocks &&
                          padded_h == int64_t{g->batch_h} * g->block_h &&
                          padded_w == int64_t{g->batch_w} * g->block_w;
  if (!consistent) {
    char space_text[96];
    char batch_text[96];
    FormatDims(space, space_text, sizeof(space_text));
    FormatDims(batch, batch_text, sizeof(batch_text));
    return KernelError(io.op_index, *io.op,
                       "block %d x %d with paddings / crops (%d, %d, %d, %d) does not relate the "
                       "spatial shape %s to the batched shape %s",
                       g->block_h, g->block_w, g->before_h, after_h, g->before_w, after_w,
                       space_text, batch_text);
  }
  return Status::Ok();
}

}  // namespace trainscope
