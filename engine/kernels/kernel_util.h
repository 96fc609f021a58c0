// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the kernel files (internal to engine/kernels): fixed-capacity shapes, the
// Prepare-time checker that formats "operator k (NAME): ..." messages, typed tensor access for
// Eval/Backward, and fused activations with their derivatives.
//
// Nothing here allocates at run time: shapes are fixed arrays of kMaxKernelRank dimensions
// (CheckRunnable rejects higher ranks before any kernel sees a tensor).
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>

#include "engine/kernels/kernel.h"

namespace trainscope {

struct Dims {
  int rank = 0;
  int32_t d[kMaxKernelRank] = {};

  size_t Count() const;
  bool operator==(const Dims& other) const;
  bool operator!=(const Dims& other) const { return !(*this == other); }
};
Dims DimsOf(const Tensor& tensor);  // tensor rank must be <= kMaxKernelRank
// "[1, 4, 4, 3]" into `out` (always terminated).
void FormatDims(const Dims& dims, char* out, size_t size);

// Prepare-time view of one operator: bounds-checked access and uniformly labelled errors.
class OpCheck {
 public:
  OpCheck(const Subgraph& subgraph, const Operator& op, uint32_t op_index)
      : subgraph_(subgraph), op_(op), op_index_(op_index) {}

  // kInvalidModel / kUnsupported errors prefixed with "operator k (NAME): ".
  Status Error(const char* format, ...) const __attribute__((format(printf, 2, 3)));
  Status Unsupported(const char* format, ...) const __attribute__((format(printf, 2, 3)));

  // Exactly one output; between min and max inputs, the first `required` of them present.
  Status ExpectArity(size_t min_inputs, size_t max_inputs, size_t required) const;
  // The same with `outputs` outputs (SPLIT, UNPACK, ...).
  Status ExpectArity(size_t min_inputs, size_t max_inputs, size_t required, size_t outputs) const;
  bool HasInput(size_t i) const { return i < op_.inputs.size() && op_.inputs[i] >= 0; }
  const Tensor& Input(size_t i) const { return subgraph_.tensors[op_.inputs[i]]; }
  const Tensor& Output() const { return subgraph_.tensors[op_.outputs[0]]; }
  Dims InputDims(size_t i) const { return DimsOf(Input(i)); }
  Dims OutputDims() const { return DimsOf(Output()); }
  const Tensor& OutputAt(size_t k) const { return subgraph_.tensors[op_.outputs[k]]; }

  // "output tensor 7 'y' has shape [1, 3], expected [1, 2] (why)".
  Status ExpectOutputDims(const Dims& expected, const char* why) const;
  Status ExpectOutputDimsAt(size_t k, const Dims& expected, const char* why) const;
  Status ExpectInputRank(size_t i, int rank) const;
  // Element types, for ops whose registration sets prepare_checks_types:
  // "input 0 (tensor 5 'x') is INT8; expected FLOAT32".
  Status ExpectInputType(size_t i, ElementType type) const;
  Status ExpectOutputType(size_t k, ElementType type) const;
  // Fused activations the kernels implement (NONE, RELU, RELU_N1_TO_1, RELU6, TANH).
  Status ExpectSupportedActivation() const;

  const Subgraph& subgraph() const { return subgraph_; }
  const Operator& op() const { return op_; }
  const OpOptions& options() const { return op_.options; }

 private:
  Status MakeError(StatusCode code, const char* format, va_list args) const;

  const Subgraph& subgraph_;
  const Operator& op_;
  uint32_t op_index_;
};

// "operator 3 (CONV_2D)" into `out`.
void FormatOpLabel(uint32_t op_index, int32_t opcode, char* out, size_t size);
// Run-time errors about tensor contents (axes, indices, ...), labelled like OpCheck's.
Status KernelError(uint32_t op_index, const Operator& op, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

// Typed access for Eval and Backward; the indices were validated by Prepare.
template <typename Io>
const Tensor& InputTensor(const Io& io, size_t i) {
  return io.subgraph->tensors[io.op->inputs[i]];
}
template <typename Io>
const Tensor& OutputTensor(const Io& io) {
  return io.subgraph->tensors[io.op->outputs[0]];
}
template <typename Io>
bool HasInput(const Io& io, size_t i) {
  return i < io.op->inputs.size() && io.op->inputs[i] >= 0;
}
template <typename Io>
const float* InputFloats(const Io& io, size_t i) {
  return static_cast<const float*>(io.tensor_data[io.op->inputs[i]]);
}
template <typename Io>
const int32_t* InputInts(const Io& io, size_t i) {
  return static_cast<const int32_t*>(io.tensor_data[io.op->inputs[i]]);
}
template <typename Io>
const float* OutputFloats(const Io& io) {
  return static_cast<const float*>(io.tensor_data[io.op->outputs[0]]);
}
inline float* MutableOutputFloats(const KernelIo& io) {
  return static_cast<float*>(io.tensor_data[io.op->outputs[0]]);
}
// BOOL tensors hold one byte (0 or 1) per element; INT32 outputs (ARG_MAX, CAST).
template <typename Io>
const uint8_t* InputBools(const Io& io, size_t i) {
  return static_cast<const uint8_t*>(io.tensor_data[io.op->inputs[i]]);
}
inline uint8_t* MutableOutputBools(const KernelIo& io) {
  return static_cast<uint8_t*>(io.tensor_data[io.op->outputs[0]]);
}
inline int32_t* MutableOutputInts(const KernelIo& io) {
  return static_cast<int32_t*>(io.tensor_data[io.op->outputs[0]]);
}
// Output k of an op with several outputs.
inline const Tensor& OutputTensorAt(const KernelIo& io, size_t k) {
  return io.subgraph->tensors[io.op->outputs[k]];
}
inline float* MutableOutputFloatsAt(const KernelIo& io, size_t k) {
  return static_cast<float*>(io.tensor_data[io.op->outputs[k]]);
}

// dL/d(input i) to accumulate into, or nullptr when it is not wanted (last layer, absent input,
// no buffer: constants have none unless they are trained parameters).
float* InputGradient(const BackwardIo& io, size_t i);
// dL/d(output); a missing buffer is an executor error.
Status OutputGradient(const BackwardIo& io, const float** gradient);
// The weight (or bias) gradient buffer a trainable op must fill, or nullptr when not wanted.
// Fails when the op is trainable for this parameter but the buffer is missing.
Status ParamGradient(const BackwardIo& io, size_t input, bool wanted, float** gradient);

// Fused activations.
float ApplyActivation(Activation activation, float x);
void ApplyActivationInPlace(Activation activation, float* data, size_t count);
// dL/d(pre-activation) from the forward output y and dL/dy: returns `gradient` itself for NONE,
// else writes into `scratch` (count floats) and returns it.
const float* PreActivationGradient(Activation activation, const float* y, const float* gradient,
                                   size_t count, float* scratch);
// Scratch for PreActivationGradient: the output's element count when the op has an activation.
size_t FusedActivationScratch(const Subgraph& subgraph, const Operator& op);

// Unary ops whose output has the input's shape: one input, one output, equal shapes.
Status ExpectSameShapeUnary(const OpCheck& check);

// Reshape-like ops: output = input bytes; backward dX += dY.
Status CopyEval(const KernelIo& io);
Status CopyBackward(const BackwardIo& io);
Status ExpectSameElementCount(const OpCheck& check);

// Element strides of a row-major tensor of shape `dims`.
void RowMajorStrides(const Dims& dims, int* strides);

// Visits every index of `dims` in row-major order as visit(flat, mapped), where
// mapped = base + sum_d index[d] * strides[d]: one loop for every strided view of a tensor
// (transposes, slices, padding, reductions).
template <typename Visit>
void ForEachIndex(const Dims& dims, const int* strides, int base, Visit&& visit) {
  const int count = static_cast<int>(dims.Count());
  int index[kMaxKernelRank] = {};
  int mapped = base;
  for (int i = 0; i < count; ++i) {
    visit(i, mapped);
    for (int d = dims.rank - 1; d >= 0; --d) {
      ++index[d];
      mapped += strides[d];
      if (index[d] < dims.d[d]) break;
      mapped -= strides[d] * dims.d[d];
      index[d] = 0;
    }
  }
}

// Slabs along one axis (SPLIT, SPLIT_V, UNPACK, PACK): `whole` has shape `dims`, the slab covers
// indices [offset, offset + size) of dimension `axis` and is stored densely in `slab`.
void CopySlabOut(const Dims& dims, int axis, int offset, int size, const float* whole, float* slab);
void CopySlabIn(const Dims& dims, int axis, int offset, int size, const float* slab, float* whole);

// Normalises a possibly negative axis; false when out of [-rank, rank).
bool NormalizeAxis(int32_t axis, int rank, int* out);

}  // namespace trainscope
