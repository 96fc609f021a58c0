// SPDX-License-Identifier: Apache-2.0
//
// The kernel interface: what one operator invocation sees, and the registration that maps an
// opcode to its Prepare / Eval / Backward functions.
//
// Ownership: tensor storage belongs to the caller (an executor placing buffers in an arena, or the
// reference runner); kernels never allocate and keep no state between calls. Every pointer in
// KernelIo / BackwardIo is borrowed for the duration of the call.
//
// Validation happens once: CheckRunnable() checks every operator of a subgraph (registration,
// element types, shapes, options) before anything runs, and Eval/Backward then trust the graph.
// Only values that live in tensors (axes, permutations, paddings, slice bounds, gather indices)
// are checked at run time, because Prepare sees the graph but not tensor contents.
//
//   TS_RETURN_IF_ERROR(CheckRunnable(subgraph));
//   for (uint32_t k = 0; k < subgraph.operators.size(); ++k) {
//     const Operator& op = subgraph.operators[k];
//     KernelIo io{&subgraph, &op, k, tensor_data};
//     TS_RETURN_IF_ERROR(FindRegistration(op.opcode)->eval(io));
//   }
//
// Gradient contract: the caller zero-fills every gradient buffer when it allocates it, and
// Backward ACCUMULATES (+=) into input, weight and bias gradients, so a tensor consumed by several
// operators, and a batch of samples, sum correctly. Gradient buffers of different tensors never
// alias, except that a copy op (RESHAPE, SQUEEZE, EXPAND_DIMS) whose input and output gradient
// share one buffer leaves it as it is. Weight gradients of FULLY_CONNECTED and CONV_2D for
// kUpperHalf / kLowerHalf are compact (see trained_rows.h); for kOnlyBias no weight gradient is
// computed and gradients[weights] may be nullptr. Bias gradients are always full.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/kernels/trained_rows.h"
#include "engine/model/graph.h"

namespace trainscope {

// Everything a kernel sees of one forward invocation. tensor_data is indexed by tensor index;
// every tensor the op touches must be non-null (constants point at 16-byte aligned copies).
struct KernelIo {
  const Subgraph* subgraph = nullptr;
  const Operator* op = nullptr;
  uint32_t op_index = 0;
  void* const* tensor_data = nullptr;
};

struct BackwardIo {
  const Subgraph* subgraph = nullptr;
  const Operator* op = nullptr;
  uint32_t op_index = 0;
  // Forward values: constants, and the inputs/outputs BackwardNeedsOf() asks for.
  void* const* tensor_data = nullptr;
  // dL/dT indexed by tensor index; nullptr where not allocated. The output gradient is required,
  // and so are the weight/bias buffers a trainable op's rank asks for (a missing one is an error
  // Status, returned before any buffer is written). An input gradient is written only when its
  // buffer is present and is_last_layer is false.
  float* const* gradients = nullptr;
  bool is_last_layer = false;  // compute no input gradients (last op of the backward range)
  bool trainable = false;      // compute weight/bias gradients
  TrainRank rank = TrainRank::kAll;
  float* scratch = nullptr;  // at least scratch_floats(...) floats, or nullptr if it asked for 0
  // The weight and bias gradient buffers hold stale bytes, not zeros: write them whole instead of
  // adding into them. Only for registrations with sets_parameter_gradients (the executor then
  // skips zero-filling them in a batch's first sample, whose buffers later samples add into).
  bool parameter_gradients_unset = false;
};

using PrepareFn = Status (*)(const Subgraph&, const Operator&, uint32_t op_index);
using EvalFn = Status (*)(const KernelIo&);
using BackwardFn = Status (*)(const BackwardIo&);
using ScratchFloatsFn = size_t (*)(const Subgraph&, const Operator&);

// When the backward pass of an op reads its forward output.
enum class OutputUse : uint8_t {
  kNever = 0,
  kFusedActivation,  // only when the op has a fused activation other than NONE
  kAlways,
};

struct OpRegistration {
  int32_t opcode = 0;
  PrepareFn prepare = nullptr;
  EvalFn eval = nullptr;
  BackwardFn backward = nullptr;
  ScratchFloatsFn scratch_floats = nullptr;  // nullptr: backward needs no scratch
  uint32_t int32_inputs = 0;                 // bit i: input i is an INT32 operand
  uint32_t backward_reads_inputs = 0;        // bit i: backward reads the forward value of input i
  OutputUse backward_reads_output = OutputUse::kNever;
  int8_t weights_input = -1;  // input position of trainable weights, -1 if none
  int8_t bias_input = -1;     // input position of the trainable bias, -1 if none
  bool half_rank = false;     // kUpperHalf / kLowerHalf give a compact weight gradient
  // Operands of other element types (BOOL results of comparisons, CAST, INT32 indices of
  // ARG_MAX): CheckRunnable leaves every element-type check of the op to its Prepare.
  bool prepare_checks_types = false;
  // For op::kCustom: the custom_code this kernel implements; other custom ops stay unsupported.
  const char* custom_code = nullptr;
  // Trainable inputs beyond weights_input and bias_input, bit i = input i (GRU's hidden-state
  // weights and bias, and its initial state when that is a constant). Their gradients are always
  // full: weights train with every rank but ONLY_BIAS, biases with every rank.
  uint32_t more_weight_inputs = 0;
  uint32_t more_bias_inputs = 0;
  // The backward pass as onert-micro computes it, for BackwardMath::kOnertMicro; nullptr where
  // onert-micro computes what `backward` does (or where the research does not say precisely
  // enough what it computes instead). Same contract as `backward`.
  BackwardFn onert_backward = nullptr;
  // `backward` honours BackwardIo::parameter_gradients_unset.
  bool sets_parameter_gradients = false;
};

// `registration` whose backward can write its parameter gradients whole.
constexpr OpRegistration SettingParameterGradients(OpRegistration registration) {
  registration.sets_parameter_gradients = true;
  return registration;
}

// `registration` with its onert-micro backward (C++17 has no designated initialisers).
constexpr OpRegistration WithOnertBackward(OpRegistration registration, BackwardFn backward) {
  registration.onert_backward = backward;
  return registration;
}

// The backward function `math` asks for.
inline BackwardFn BackwardOf(const OpRegistration& registration, BackwardMath math) {
  return math == BackwardMath::kOnertMicro && registration.onert_backward != nullptr
             ? registration.onert_backward
             : registration.backward;
}

// nullptr when the opcode has no kernel.
const OpRegistration* FindRegistration(int32_t opcode);
// Every registration, index 0 .. RegisteredOperatorCount() - 1 (what docs/operators.md lists).
size_t RegisteredOperatorCount();
const OpRegistration& RegisteredOperator(size_t index);

// Every op has a registration, every tensor an op touches is FLOAT32 (INT32 for shape, axis and
// index operands; BOOL or INT32 where a prepare_checks_types op says so) with at most
// kMaxKernelRank dimensions and at least one element, graph inputs and outputs are FLOAT32 (the
// executors exchange float32 samples), and the Prepare of every op passes. Errors name the op and
// tensor:
//   "unsupported operator SVDF at index 4"
//   "operator 3 (CONV_2D): tensor 5 'w' is INT8; only FLOAT32 models can run"
inline constexpr int kMaxKernelRank = 6;
Status CheckRunnable(const Subgraph& subgraph);

// Forward tensors the backward pass of `op` reads (beyond constants, which stay available).
struct BackwardNeeds {
  uint32_t inputs = 0;  // bit i: the forward value of input i
  bool output = false;  // the forward value of output 0
};
BackwardNeeds BackwardNeedsOf(const Operator& op);
inline bool NeedsInput(const BackwardNeeds& needs, size_t input) {
  return input < 32 && (needs.inputs >> input & 1u) != 0;
}

// Trainable parameters of an op as tensor indices (-1 when the op has none or the optional bias
// is absent): FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D use inputs 1 and 2.
struct TrainableParams {
  int32_t weights = -1;
  int32_t bias = -1;
};
TrainableParams TrainableParamsOf(const Operator& op);
// Whether input `input` of `op` is a trainable weight (weights_input or more_weight_inputs) or
// bias (bias_input or more_bias_inputs) of its registration.
bool IsWeightInput(const Operator& op, size_t input);
bool IsBiasInput(const Operator& op, size_t input);

// Rows of the weights whose gradient an op computes for `rank`; their count is dim 0 of the
// weight-gradient buffer. Ops without half ranks (DEPTHWISE_CONV_2D) train every row for
// kUpperHalf/kLowerHalf, as onert-micro does. Empty when the op has no weights or for kOnlyBias.
RowRange WeightGradientRows(const Subgraph& subgraph, const Operator& op, TrainRank rank);

// Floats of scratch the op's Backward needs (0 when none).
size_t BackwardScratchFloats(const Subgraph& subgraph, const Operator& op);

}  // namespace trainscope
