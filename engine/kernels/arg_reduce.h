// SPDX-License-Identifier: Apache-2.0
//
// The shared part of ARG_MAX and ARG_MIN: the INT32 index of the extreme FLOAT32 value along
// the axis held by the INT32 scalar input 1 (negative counts from the end, checked at run time);
// the output (INT32; INT64 outputs are not supported) has the input's shape without that axis.
// Ties go to the first index.
#pragma once

#include "engine/kernels/kernel_util.h"

namespace trainscope {

Status PrepareArgReduce(const Subgraph& subgraph, const Operator& op, uint32_t op_index);

constexpr OpRegistration ArgReduceRegistration(int32_t opcode, EvalFn eval) {
  return {opcode,
          PrepareArgReduce,
          eval,
          /*backward=*/nullptr,
          nullptr,
          /*int32_inputs=*/0,
          /*backward_reads_inputs=*/0,
          OutputUse::kNever,
          /*weights_input=*/-1,
          /*bias_input=*/-1,
          /*half_rank=*/false,
          /*prepare_checks_types=*/true};
}

// The axis of `io`, checked against the input's rank and the output's shape.
Status ResolveArgAxis(const KernelIo& io, int* axis);

// y[o] = the first k along the axis for which no later value is `better` than x[k].
template <typename Better>
Status EvalArgReduce(const KernelIo& io, Better better) {
  int axis = 0;
  TS_RETURN_IF_ERROR(ResolveArgAxis(io, &axis));
  const Dims in = DimsOf(InputTensor(io, 0));
  int outer = 1;
  int inner = 1;
  for (int d = 0; d < axis; ++d) outer *= in.d[d];
  for (int d = axis + 1; d < in.rank; ++d) inner *= in.d[d];
  const int length = in.d[axis];
  const float* x = InputFloats(io, 0);
  int32_t* y = MutableOutputInts(io);
  for (int o = 0; o < outer; ++o) {
    for (int i = 0; i < inner; ++i) {
      const float* row = x + o * length * inner + i;
      int best = 0;
      for (int k = 1; k < length; ++k) {
        if (better(row[k * inner], row[best * inner])) best = k;
      }
      y[o * inner + i] = best;
    }
  }
  return Status::Ok();
}

}  // namespace trainscope
