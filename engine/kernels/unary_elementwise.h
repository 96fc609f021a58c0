// SPDX-License-Identifier: Apache-2.0
//
// The shared skeleton of the unary element-wise ops (EXP, TANH, LOGISTIC, RELU, RELU6,
// LEAKY_RELU, and the forward-only ABS, NEG, SQRT, LOG, ...): one input and one output of the same
// shape, a forward map applied to every element, and a backward pass that accumulates into dX from
// dY and one saved forward tensor. Each op file keeps its own math (the per-element function and
// its derivative) and its own registration; these templates only walk the elements, in index order.
//
//   Status Eval(const KernelIo& io) {
//     return EvalElementwise(io, [](float x) { return std::exp(x); });
//   }
//   Status Backward(const BackwardIo& io) {
//     return BackwardElementwise(io, SavedForward::kOutput,
//                                [](float& dx, float dy, float y) { dx += dy * y; });
//   }
//   static constexpr OpRegistration kRegistration =
//       ElementwiseRegistration(op::kExp, Eval, Backward, SavedForward::kOutput);
//
// The derivative accumulates itself (dx += ...) rather than returning a factor, so a piecewise
// op can skip elements entirely instead of adding a signed zero or a NaN times zero.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/kernels/kernel_util.h"

namespace trainscope {

// Which forward tensor Backward reads; pass the same value to ElementwiseRegistration.
enum class SavedForward : uint8_t { kOutput, kInput };

inline Status PrepareElementwise(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  return ExpectSameShapeUnary(OpCheck(subgraph, op, op_index));
}

// The registration of a unary element-wise op: what Backward reads follows from `saved`.
constexpr OpRegistration ElementwiseRegistration(int32_t opcode, EvalFn eval, BackwardFn backward,
                                                 SavedForward saved) {
  return {opcode,
          PrepareElementwise,
          eval,
          backward,
          nullptr,
          /*int32_inputs=*/0,
          /*backward_reads_inputs=*/saved == SavedForward::kInput ? 1u << 0 : 0u,
          saved == SavedForward::kOutput ? OutputUse::kAlways : OutputUse::kNever,
          /*weights_input=*/-1,
          /*bias_input=*/-1,
          /*half_rank=*/false};
}

// The registration of a unary element-wise op that runs forward only (no backward kernel, so
// nothing is kept for a backward pass).
constexpr OpRegistration ForwardElementwiseRegistration(int32_t opcode, EvalFn eval) {
  return {opcode,
          PrepareElementwise,
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

// y[i] = forward(x[i]).
template <typename Forward>
Status EvalElementwise(const KernelIo& io, Forward forward) {
  const size_t count = OutputTensor(io).element_count();
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  for (size_t i = 0; i < count; ++i) y[i] = forward(x[i]);
  return Status::Ok();
}

// accumulate(dx[i], dy[i], saved[i]) for every element; nothing when dX is not wanted.
template <typename Accumulate>
Status BackwardElementwise(const BackwardIo& io, SavedForward saved_tensor, Accumulate accumulate) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  const size_t count = OutputTensor(io).element_count();
  const float* saved =
      saved_tensor == SavedForward::kOutput ? OutputFloats(io) : InputFloats(io, 0);
  for (size_t i = 0; i < count; ++i) accumulate(dx[i], dy[i], saved[i]);
  return Status::Ok();
}

}  // namespace trainscope
