// SPDX-License-Identifier: Apache-2.0
//
// The shared part of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR on NHWC: input 1 is the INT32
// [2] new size (height, width), checked at run time against the graph's output; the scale from
// output to input coordinates follows TFLite: in / out, or (in - 1) / (out - 1) with
// align_corners (and an output of more than one pixel). align_corners and half_pixel_centers
// cannot both be set.
#pragma once

#include "engine/kernels/kernel_util.h"

namespace trainscope {

struct ResizeGeometry {
  int batch = 0, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  float scale_h = 1.0f, scale_w = 1.0f;
};

Status PrepareResize(const Subgraph& subgraph, const Operator& op, uint32_t op_index);
Status ResolveResize(const KernelIo& io, ResizeGeometry* g);

// The registration of a resize op (input 1 is INT32, forward only).
constexpr OpRegistration ResizeRegistration(int32_t opcode, EvalFn eval) {
  return {opcode,
          PrepareResize,
          eval,
          /*backward=*/nullptr,
          nullptr,
          /*int32_inputs=*/1u << 1,
          /*backward_reads_inputs=*/0,
          OutputUse::kNever,
          /*weights_input=*/-1,
          /*bias_input=*/-1,
          /*half_rank=*/false};
}

}  // namespace trainscope
