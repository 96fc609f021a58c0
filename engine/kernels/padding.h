// SPDX-License-Identifier: Apache-2.0
//
// The shared part of the padding ops (PAD, PADV2, MIRROR_PAD): input 0 grows by the (before,
// after) counts of the INT32 [rank, 2] paddings operand (input 1). The counts live in a tensor,
// so they are checked at run time: non-negative and turning every input dimension into the
// graph's output dimension.
//
//   PadView view;
//   TS_RETURN_IF_ERROR(ResolvePadding(io, &view));
//   ForEachIndex(view.input, view.out_strides, view.base, [&](int i, int o) { y[o] = x[i]; });
#pragma once

#include "engine/kernels/kernel_util.h"

namespace trainscope {

// The input shape, the output shape and strides, the counts before every dimension, and the
// output offset of input element 0.
struct PadView {
  Dims input;
  Dims output;
  int out_strides[kMaxKernelRank] = {};
  int before[kMaxKernelRank] = {};
  int base = 0;
};

Status ResolvePadding(const Subgraph& subgraph, const Operator& op, uint32_t op_index,
                      const int32_t* paddings, PadView* view);

template <typename Io>
Status ResolvePadding(const Io& io, PadView* view) {
  return ResolvePadding(*io.subgraph, *io.op, io.op_index, InputInts(io, 1), view);
}

// Between min_inputs and max_inputs inputs (the first two required), paddings of shape
// [rank, 2], an output of the input's rank.
Status PreparePadding(const OpCheck& check, size_t min_inputs, size_t max_inputs);

}  // namespace trainscope
