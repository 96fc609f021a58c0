// SPDX-License-Identifier: Apache-2.0
//
// Numpy broadcasting for the binary element-wise ops (ADD, SUB, MUL and the forward-only DIV,
// MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, FLOOR_DIV, FLOOR_MOD, PRELU): shapes are aligned at
// their last dimension and a size-1 (or missing) dimension repeats along the other operand's.
// A BroadcastPlan is plain data on the stack; ForEachBroadcast visits every output element with
// the flat indices of the two operand elements it combines, without allocating.
//
//   BroadcastPlan plan;
//   if (!PlanBroadcast(DimsOf(a), DimsOf(b), &plan)) ...;  // shapes incompatible
//   ForEachBroadcast(plan, [&](int out, int ia, int ib) { y[out] = a[ia] + b[ib]; });
//
// EvalBinary / BackwardBinary are the whole Eval and Backward of a binary op around its own
// math, which stays in the op's file:
//
//   return EvalBinary(io, [](float a, float b) { return a + b; });
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
// Element strides of `operand` along each dimension of the broadcast shape `out`, 0 where it
// repeats (for ops with more than two broadcast operands, SELECT_V2).
void BroadcastStrides(const Dims& operand, const Dims& out, int* strides);

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

// Prepare of the binary ops: two inputs that broadcast to the output's shape, a supported
// fused activation.
Status PrepareBinary(const Subgraph& subgraph, const Operator& op, uint32_t op_index);

// The registration of ADD, SUB or MUL (bit i of backward_reads_inputs: Backward reads input i).
constexpr OpRegistration BinaryRegistration(int32_t opcode, EvalFn eval, BackwardFn backward,
                                            uint32_t backward_reads_inputs) {
  return {opcode,
          PrepareBinary,
          eval,
          backward,
          FusedActivationScratch,
          /*int32_inputs=*/0,
          backward_reads_inputs,
          OutputUse::kFusedActivation,
          /*weights_input=*/-1,
          /*bias_input=*/-1,
          /*half_rank=*/false};
}

// The registration of a forward-only binary op (DIV, MAXIMUM, PRELU, ...): PrepareBinary, no
// backward kernel and nothing kept for one.
constexpr OpRegistration ForwardBinaryRegistration(int32_t opcode, EvalFn eval) {
  return {opcode,
          PrepareBinary,
          eval,
          /*backward=*/nullptr,
          nullptr,
          /*int32_inputs=*/0,
          /*backward_reads_inputs=*/0,
          OutputUse::kNever,
          /*weights_input=*/-1,
          /*bias_input=*/-1,
          /*half_rank=*/false};
}

// Eval of the binary ops: y = act(combine(a, b)) for every output element (ops without a
// fused-activation option read kNone).
template <typename Combine>
Status EvalBinary(const KernelIo& io, Combine combine) {
  const BroadcastPlan plan = BinaryPlanOf(io);
  const float* a = InputFloats(io, 0);
  const float* b = InputFloats(io, 1);
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  ForEachBroadcast(plan, [&](int i, int ia, int ib) {
    y[i] = ApplyActivation(activation, combine(a[ia], b[ib]));
  });
  return Status::Ok();
}

// Backward of ADD, SUB and MUL: turns dY into the pre-activation gradient dz, then calls
// accumulate(dz[i], ia, ib, da, db) for every output element in order, so the sums over broadcast
// dimensions add up in one fixed order. da or db is nullptr when that gradient is not wanted.
template <typename Accumulate>
Status BackwardBinary(const BackwardIo& io, Accumulate accumulate) {
  float* da = InputGradient(io, 0);
  float* db = InputGradient(io, 1);
  if (da == nullptr && db == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  const BroadcastPlan plan = BinaryPlanOf(io);
  const float* dz = PreActivationGradient(io.op->options.activation, OutputFloats(io), dy,
                                          plan.out.Count(), io.scratch);
  ForEachBroadcast(plan, [&](int i, int ia, int ib) { accumulate(dz[i], ia, ib, da, db); });
  return Status::Ok();
}

}  // namespace trainscope
