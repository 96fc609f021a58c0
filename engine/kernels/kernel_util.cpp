// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/kernel_util.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace trainscope {

size_t Dims::Count() const {
  size_t count = 1;
  for (int i = 0; i < rank; ++i) count *= static_cast<size_t>(d[i]);
  return count;
}

bool Dims::operator==(const Dims& other) const {
  if (rank != other.rank) return false;
  for (int i = 0; i < rank; ++i) {
    if (d[i] != other.d[i]) return false;
  }
  return true;
}

Dims DimsOf(const Tensor& tensor) {
  Dims dims;
  const size_t rank = tensor.shape.size() < static_cast<size_t>(kMaxKernelRank)
                          ? tensor.shape.size()
                          : static_cast<size_t>(kMaxKernelRank);
  dims.rank = static_cast<int>(rank);
  for (size_t i = 0; i < rank; ++i) dims.d[i] = tensor.shape[i];
  return dims;
}

void FormatDims(const Dims& dims, char* out, size_t size) {
  if (size == 0) return;
  size_t used = 0;
  auto append = [&](const char* text) {
    const size_t length = std::strlen(text);
    const size_t room = size - 1 - used;
    const size_t n = length < room ? length : room;
    std::memcpy(out + used, text, n);
    used += n;
  };
  append("[");
  for (int i = 0; i < dims.rank; ++i) {
    char number[16];
    std::snprintf(number, sizeof(number), i == 0 ? "%d" : ", %d", static_cast<int>(dims.d[i]));
    append(number);
  }
  append("]");
  out[used] = '\0';
}

void FormatOpLabel(uint32_t op_index, int32_t opcode, char* out, size_t size) {
  const char* name = OpcodeName(opcode);
  if (name != nullptr) {
    std::snprintf(out, size, "operator %u (%s)", static_cast<unsigned>(op_index), name);
  } else {
    std::snprintf(out, size, "operator %u (opcode %d)", static_cast<unsigned>(op_index),
                  static_cast<int>(opcode));
  }
}

Status KernelError(uint32_t op_index, const Operator& op, const char* format, ...) {
  char label[64];
  FormatOpLabel(op_index, op.opcode, label, sizeof(label));
  char detail[400];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  return Status::Error(StatusCode::kInvalidArgument, "%s: %s", label, detail);
}

Status OpCheck::MakeError(StatusCode code, const char* format, va_list args) const {
  char label[64];
  FormatOpLabel(op_index_, op_.opcode, label, sizeof(label));
  char detail[400];
  std::vsnprintf(detail, sizeof(detail), format, args);
  return Status::Error(code, "%s: %s", label, detail);
}

Status OpCheck::Error(const char* format, ...) const {
  va_list args;
  va_start(args, format);
  Status status = MakeError(StatusCode::kInvalidModel, format, args);
  va_end(args);
  return status;
}

Status OpCheck::Unsupported(const char* format, ...) const {
  va_list args;
  va_start(args, format);
  Status status = MakeError(StatusCode::kUnsupported, format, args);
  va_end(args);
  return status;
}

Status OpCheck::ExpectArity(size_t min_inputs, size_t max_inputs, size_t required) const {
  return ExpectArity(min_inputs, max_inputs, required, 1);
}

Status OpCheck::ExpectArity(size_t min_inputs, size_t max_inputs, size_t required,
                            size_t outputs) const {
  if (op_.inputs.size() < min_inputs || op_.inputs.size() > max_inputs) {
    if (min_inputs == max_inputs) {
      return Error("has %zu inputs, expected %zu", op_.inputs.size(), min_inputs);
    }
    return Error("has %zu inputs, expected %zu to %zu", op_.inputs.size(), min_inputs, max_inputs);
  }
  for (size_t i = 0; i < required; ++i) {
    if (op_.inputs[i] < 0) return Error("required input %zu is absent", i);
  }
  if (op_.outputs.size() != outputs) {
    return Error("has %zu outputs, expected %zu", op_.outputs.size(), outputs);
  }
  return Status::Ok();
}

Status OpCheck::ExpectOutputDimsAt(size_t k, const Dims& expected, const char* why) const {
  const Dims actual = DimsOf(OutputAt(k));
  if (actual == expected) return Status::Ok();
  char have[96];
  char want[96];
  FormatDims(actual, have, sizeof(have));
  FormatDims(expected, want, sizeof(want));
  return Error("output %zu (tensor %d '%s') has shape %s, expected %s (%s)", k,
               static_cast<int>(op_.outputs[k]), OutputAt(k).name.c_str(), have, want, why);
}

Status OpCheck::ExpectOutputDims(const Dims& expected, const char* why) const {
  const Dims actual = OutputDims();
  if (actual == expected) return Status::Ok();
  char have[96];
  char want[96];
  FormatDims(actual, have, sizeof(have));
  FormatDims(expected, want, sizeof(want));
  return Error("output tensor %d '%s' has shape %s, expected %s (%s)",
               static_cast<int>(op_.outputs[0]), Output().name.c_str(), have, want, why);
}

Status OpCheck::ExpectInputRank(size_t i, int rank) const {
  const Tensor& tensor = Input(i);
  if (static_cast<int>(tensor.shape.size()) == rank) return Status::Ok();
  char have[96];
  FormatDims(DimsOf(tensor), have, sizeof(have));
  return Error("input %zu (tensor %d '%s') has shape %s, expected rank %d", i,
               static_cast<int>(op_.inputs[i]), tensor.name.c_str(), have, rank);
}

Status OpCheck::ExpectInputType(size_t i, ElementType type) const {
  const Tensor& tensor = Input(i);
  if (tensor.type == type) return Status::Ok();
  return Unsupported("input %zu (tensor %d '%s') is %s; expected %s", i,
                     static_cast<int>(op_.inputs[i]), tensor.name.c_str(),
                     ElementTypeName(tensor.type), ElementTypeName(type));
}

Status OpCheck::ExpectOutputType(size_t k, ElementType type) const {
  const Tensor& tensor = OutputAt(k);
  if (tensor.type == type) return Status::Ok();
  return Unsupported("output %zu (tensor %d '%s') is %s; expected %s", k,
                     static_cast<int>(op_.outputs[k]), tensor.name.c_str(),
                     ElementTypeName(tensor.type), ElementTypeName(type));
}

Status OpCheck::ExpectSupportedActivation() const {
  switch (op_.options.activation) {
    case Activation::kNone:
    case Activation::kRelu:
    case Activation::kReluN1To1:
    case Activation::kRelu6:
    case Activation::kTanh:
      return Status::Ok();
    case Activation::kSignBit:
      break;
  }
  return Unsupported("fused activation %s is not supported",
                     ActivationName(op_.options.activation));
}

float* InputGradient(const BackwardIo& io, size_t i) {
  if (io.is_last_layer || !HasInput(io, i)) return nullptr;
  return io.gradients[io.op->inputs[i]];
}

Status OutputGradient(const BackwardIo& io, const float** gradient) {
  const int32_t output = io.op->outputs[0];
  *gradient = io.gradients[output];
  if (*gradient == nullptr) {
    return KernelError(io.op_index, *io.op, "no gradient buffer for output tensor %d '%s'",
                       static_cast<int>(output), io.subgraph->tensors[output].name.c_str());
  }
  return Status::Ok();
}

Status ParamGradient(const BackwardIo& io, size_t input, bool wanted, float** gradient) {
  *gradient = nullptr;
  if (!wanted || !HasInput(io, input)) return Status::Ok();
  const int32_t tensor = io.op->inputs[input];
  *gradient = io.gradients[tensor];
  if (*gradient == nullptr) {
    return KernelError(io.op_index, *io.op,
                       "trainable with rank %s but tensor %d '%s' has no gradient buffer",
                       TrainRankName(io.rank), static_cast<int>(tensor),
                       io.subgraph->tensors[tensor].name.c_str());
  }
  return Status::Ok();
}

float ApplyActivation(Activation activation, float x) {
  switch (activation) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x > 0.0f ? x : 0.0f;
    case Activation::kReluN1To1:
      return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x);
    case Activation::kRelu6:
      return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
    case Activation::kTanh:
      return std::tanh(x);
    case Activation::kSignBit:
      break;  // rejected by Prepare
  }
  return x;
}

// One loop per activation, each reading every value unconditionally, so the compiler turns the
// comparisons into vector selects: a branch on the sign of each value mispredicts about half the
// time on real activations.
void ApplyActivationInPlace(Activation activation, float* data, size_t count) {
  switch (activation) {
    case Activation::kNone:
    case Activation::kSignBit:
      return;
    case Activation::kRelu:
      for (size_t i = 0; i < count; ++i) {
        const float x = data[i];
        data[i] = x > 0.0f ? x : 0.0f;
      }
      return;
    case Activation::kReluN1To1:
      for (size_t i = 0; i < count; ++i) {
        const float x = data[i];
        const float low = x < -1.0f ? -1.0f : x;
        data[i] = low > 1.0f ? 1.0f : low;
      }
      return;
    case Activation::kRelu6:
      for (size_t i = 0; i < count; ++i) {
        const float x = data[i];
        const float low = x < 0.0f ? 0.0f : x;
        data[i] = low > 6.0f ? 6.0f : low;
      }
      return;
    case Activation::kTanh:
      for (size_t i = 0; i < count; ++i) data[i] = std::tanh(data[i]);
      return;
  }
}

// The clamping activations pass the gradient only strictly inside their linear range, which is
// where the forward output y lies strictly between the clamp bounds.
const float* PreActivationGradient(Activation activation, const float* y, const float* gradient,
                                   size_t count, float* scratch) {
  switch (activation) {
    case Activation::kNone:
    case Activation::kSignBit:
      return gradient;
    case Activation::kRelu:
      for (size_t i = 0; i < count; ++i) {
        const float v = y[i], g = gradient[i];
        scratch[i] = v > 0.0f ? g : 0.0f;
      }
      break;
    case Activation::kReluN1To1:
      for (size_t i = 0; i < count; ++i) {
        const float v = y[i], g = gradient[i];
        scratch[i] = (v > -1.0f && v < 1.0f) ? g : 0.0f;
      }
      break;
    case Activation::kRelu6:
      for (size_t i = 0; i < count; ++i) {
        const float v = y[i], g = gradient[i];
        scratch[i] = (v > 0.0f && v < 6.0f) ? g : 0.0f;
      }
      break;
    case Activation::kTanh:
      for (size_t i = 0; i < count; ++i) scratch[i] = gradient[i] * (1.0f - y[i] * y[i]);
      break;
  }
  return scratch;
}

size_t FusedActivationScratch(const Subgraph& subgraph, const Operator& op) {
  if (op.options.activation == Activation::kNone || op.outputs.empty()) return 0;
  return subgraph.tensors[op.outputs[0]].element_count();
}

Status CopyEval(const KernelIo& io) {
  const void* in = io.tensor_data[io.op->inputs[0]];
  void* out = io.tensor_data[io.op->outputs[0]];
  if (in != out) std::memmove(out, in, OutputTensor(io).bytes);
  return Status::Ok();
}

Status CopyBackward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  if (dx == dy) return Status::Ok();
  const size_t count = OutputTensor(io).element_count();
  for (size_t i = 0; i < count; ++i) dx[i] += dy[i];
  return Status::Ok();
}

Status ExpectSameShapeUnary(const OpCheck& check) {
  TS_RETURN_IF_ERROR(check.ExpectArity(1, 1, 1));
  return check.ExpectOutputDims(check.InputDims(0), "same shape as the input");
}

Status ExpectSameElementCount(const OpCheck& check) {
  const size_t in = check.Input(0).element_count();
  const size_t out = check.Output().element_count();
  if (in == out) return Status::Ok();
  return check.Error("input has %zu elements but output tensor %d '%s' has %zu", in,
                     static_cast<int>(check.op().outputs[0]), check.Output().name.c_str(), out);
}

void RowMajorStrides(const Dims& dims, int* strides) {
  int stride = 1;
  for (int d = dims.rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= dims.d[d];
  }
}

namespace {

// Elements before and after `axis`: the slab is `outer` runs of size * inner elements.
void SlabGeometry(const Dims& dims, int axis, size_t* outer, size_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int d = 0; d < axis; ++d) *outer *= static_cast<size_t>(dims.d[d]);
  for (int d = axis + 1; d < dims.rank; ++d) *inner *= static_cast<size_t>(dims.d[d]);
}

}  // namespace

void CopySlabOut(const Dims& dims, int axis, int offset, int size, const float* whole,
                 float* slab) {
  size_t outer = 0;
  size_t inner = 0;
  SlabGeometry(dims, axis, &outer, &inner);
  const size_t run = static_cast<size_t>(size) * inner;
  for (size_t o = 0; o < outer; ++o) {
    const float* from = whole + (o * static_cast<size_t>(dims.d[axis]) + offset) * inner;
    std::memcpy(slab + o * run, from, run * sizeof(float));
  }
}

void CopySlabIn(const Dims& dims, int axis, int offset, int size, const float* slab, float* whole) {
  size_t outer = 0;
  size_t inner = 0;
  SlabGeometry(dims, axis, &outer, &inner);
  const size_t run = static_cast<size_t>(size) * inner;
  for (size_t o = 0; o < outer; ++o) {
    float* to = whole + (o * static_cast<size_t>(dims.d[axis]) + offset) * inner;
    std::memcpy(to, slab + o * run, run * sizeof(float));
  }
}

bool NormalizeAxis(int32_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

}  // namespace trainscope
