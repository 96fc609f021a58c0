// SPDX-License-Identifier: Apache-2.0
//
// The shared part of the operators with BOOL results: the comparisons (LESS, GREATER, EQUAL,
// NOT_EQUAL, LESS_EQUAL, GREATER_EQUAL: two FLOAT32 or two INT32 inputs) and the logical ops
// (LOGICAL_AND, LOGICAL_OR on BOOL inputs), all with numpy broadcasting (broadcast.h). BOOL
// tensors hold one byte per element, 0 or 1.
//
//   Status Eval(const KernelIo& io) {
//     return EvalComparison(io, [](auto a, auto b) { return a < b; });
//   }
//   static constexpr OpRegistration kRegistration = BooleanRegistration(op::kLess,
//   PrepareComparison, Eval);
#pragma once

#include "engine/kernels/broadcast.h"

namespace trainscope {

// Two inputs of one type, FLOAT32 or INT32, broadcasting to a BOOL output.
Status PrepareComparison(const Subgraph& subgraph, const Operator& op, uint32_t op_index);
// Two BOOL inputs broadcasting to a BOOL output.
Status PrepareLogicalBinary(const Subgraph& subgraph, const Operator& op, uint32_t op_index);

// A forward-only registration whose Prepare checks the element types.
constexpr OpRegistration BooleanRegistration(int32_t opcode, PrepareFn prepare, EvalFn eval) {
  return {opcode,
          prepare,
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

template <typename T, typename Compare>
void CompareAll(const KernelIo& io, Compare compare) {
  const BroadcastPlan plan = BinaryPlanOf(io);
  const T* a = static_cast<const T*>(io.tensor_data[io.op->inputs[0]]);
  const T* b = static_cast<const T*>(io.tensor_data[io.op->inputs[1]]);
  uint8_t* y = MutableOutputBools(io);
  ForEachBroadcast(plan, [&](int i, int ia, int ib) { y[i] = compare(a[ia], b[ib]) ? 1 : 0; });
}

// y = compare(a, b) for every output element; `compare` takes two floats or two int32s.
template <typename Compare>
Status EvalComparison(const KernelIo& io, Compare compare) {
  if (InputTensor(io, 0).type == ElementType::kInt32) {
    CompareAll<int32_t>(io, compare);
  } else {
    CompareAll<float>(io, compare);
  }
  return Status::Ok();
}

// y = combine(a, b) on BOOL inputs (each read as true when non-zero).
template <typename Combine>
Status EvalLogicalBinary(const KernelIo& io, Combine combine) {
  CompareAll<uint8_t>(io, [&](uint8_t a, uint8_t b) { return combine(a != 0, b != 0); });
  return Status::Ok();
}

}  // namespace trainscope
