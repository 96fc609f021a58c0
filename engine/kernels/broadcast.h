// SPDX-License-Identifier: Apache-2.0
//
// Numpy broadcasting for the binary element-wise ops (ADD, SUB, MUL): shapes are aligned at
// their last dimension and a size-1 (or missing) dimension repeats along the other operand's.
// A BroadcastPlan is plain data on the stack; ForEachBroadcast visits every output element with
// the flat indices of the two operand elements it combines, without allocating.
//
//   BroadcastPlan plan;
//   if (!PlanBroadcast(DimsOf(a), DimsOf(b), &plan)) ...;  // shapes incompatible
//   ForEachBroadcast(plan, [&](int out, int ia, int ib) { y[out] = a[ia] + b[ib]; });
#pragma once

#include "engine/kernels/kernel_util.h"

namespace trainscope {

struct BroadcastPlan {
  Dims out;
  int stride_a[kMaxKernelRank] = {};  // 0 along dimensions where operand a repeats
  int stride_b[kMaxKernelRank] = {};
  bool same_shape = false;
};

bool PlanBroadcast(const Dims& a, const Dims& b, BroadcastPlan* plan);

template <typename Visit>
void ForEachBroadcast(const BroadcastPlan& plan, Visit&& visit) {
  const int count = static_cast<int>(plan.out.Count());
  if (plan.same_shape) {
    for (int i = 0; i < count; ++i) visit(i, i, i);
    return;
  }
  int index[kMaxKernelRank] = {};
  int ia = 0;
  int ib = 0;
  for (int i = 0; i < count; ++i) {
    visit(i, ia, ib);
    for (int d = plan.out.rank - 1; d >= 0; --d) {
      ++index[d];
      ia += plan.stride_a[d];
      ib += plan.stride_b[d];
      if (index[d] < plan.out.d[d]) break;
      ia -= plan.stride_a[d] * plan.out.d[d];
      ib -= plan.stride_b[d] * plan.out.d[d];
      index[d] = 0;
    }
  }
}

// Plan of a binary op's two inputs (valid after PrepareBinary succeeded).
template <typename Io>
BroadcastPlan BinaryPlanOf(const Io& io) {
  BroadcastPlan plan;
  PlanBroadcast(DimsOf(InputTensor(io, 0)), DimsOf(InputTensor(io, 1)), &plan);
  return plan;
}

// Prepare of ADD, SUB and MUL: two inputs that broadcast to the output's shape, a supported
// fused activation.
Status PrepareBinary(const Subgraph& subgraph, const Operator& op, uint32_t op_index);

}  // namespace trainscope
