// SPDX-License-Identifier: Apache-2.0
//
// The shared part of the reducing ops (MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD): input 0
// is reduced over the axes listed in the INT32 operand (input 1; negative axes count from the
// end, repeats count once), keeping reduced dimensions as size 1 when keep_dims is set. The axes
// live in a tensor, so they are checked at run time against the graph's output shape.
//
//   Status Eval(const KernelIo& io) {
//     return EvalReduction(io, 0.0f, [](float acc, float x) { return acc + x; });
//   }
//   static constexpr OpRegistration kRegistration = ForwardReductionRegistration(op::kSum, Eval);
#pragma once

#include "engine/kernels/kernel_util.h"

namespace trainscope {

// The input shape, and for every input dimension the output stride (0 where it is reduced).
struct Reduction {
  Dims input;
  int out_strides[kMaxKernelRank] = {};
  int divisor = 1;  // input elements per output element
};

// Resolves the axes of `op` (values in `axes`) into *reduction; fails naming the op when an axis
// is out of range or the reduced shape is not the graph's output shape.
Status ResolveReduction(const Subgraph& subgraph, const Operator& op, uint32_t op_index,
                        const int32_t* axes, Reduction* reduction);

template <typename Io>
Status ResolveReduction(const Io& io, Reduction* reduction) {
  return ResolveReduction(*io.subgraph, *io.op, io.op_index, InputInts(io, 1), reduction);
}

// Two inputs (the data and a scalar or 1-D axes operand), one output whose element count divides
// the input's.
Status PrepareReduction(const Subgraph& subgraph, const Operator& op, uint32_t op_index);

// The registration of a forward-only reduction (input 1 is the INT32 axes operand).
constexpr OpRegistration ForwardReductionRegistration(int32_t opcode, EvalFn eval) {
  return {opcode,
          PrepareReduction,
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

// y[o] = combine(... combine(combine(initial, x[i0]), x[i1]) ...) over the input elements of
// each output element, visited in row-major input order.
template <typename Combine>
Status EvalReduction(const KernelIo& io, float initial, Combine combine) {
  Reduction r;
  TS_RETURN_IF_ERROR(ResolveReduction(io, &r));
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const size_t out_count = OutputTensor(io).element_count();
  for (size_t i = 0; i < out_count; ++i) y[i] = initial;
  ForEachIndex(r.input, r.out_strides, 0, [&](int i, int o) { y[o] = combine(y[o], x[i]); });
  return Status::Ok();
}

}  // namespace trainscope
