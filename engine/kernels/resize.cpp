// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/resize.h"

namespace trainscope {
namespace {

float Scale(int in, int out, bool align_corners) {
  if (align_corners && out > 1) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
  return static_cast<float>(in) / static_cast<float>(out);
}

}  // namespace

Status PrepareResize(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  TS_RETURN_IF_ERROR(check.ExpectInputRank(0, 4));
  if (check.Input(1).shape.size() != 1 || check.Input(1).element_count() != 2) {
    return check.Error("size must be 1-D with two entries (height, width)");
  }
  if (op.options.align_corners && op.options.half_pixel_centers) {
    return check.Error("align_corners and half_pixel_centers cannot both be set");
  }
  const Dims in = check.InputDims(0);
  const Dims out = check.OutputDims();
  if (out.rank != 4 || out.d[0] != in.d[0] || out.d[3] != in.d[3]) {
    return check.Error("the output must be [%d, height, width, %d]", static_cast<int>(in.d[0]),
                       static_cast<int>(in.d[3]));
  }
  return Status::Ok();
}

Status ResolveResize(const KernelIo& io, ResizeGeometry* g) {
  const Dims in = DimsOf(InputTensor(io, 0));
  const Dims out = DimsOf(OutputTensor(io));
  const int32_t* size = InputInts(io, 1);
  if (size[0] != out.d[1] || size[1] != out.d[2]) {
    return KernelError(io.op_index, *io.op,
                       "size (%d, %d) is not the graph's output height and width (%d, %d)",
                       static_cast<int>(size[0]), static_cast<int>(size[1]),
                       static_cast<int>(out.d[1]), static_cast<int>(out.d[2]));
  }
  g->batch = in.d[0];
  g->in_h = in.d[1];
  g->in_w = in.d[2];
  g->channels = in.d[3];
  g->out_h = out.d[1];
  g->out_w = out.d[2];
  g->scale_h = Scale(g->in_h, g->out_h, io.op->options.align_corners);
  g->scale_w = Scale(g->in_w, g->out_w, io.op->options.align_corners);
  return Status::Ok();
}

}  // namespace trainscope
