// SPDX-License-Identifier: Apache-2.0
//
// CONCATENATION of any number of inputs along `axis` (negative counts from the end), with a fused
// activation. All inputs have the output's rank and equal dimensions except along the axis.
// Backward hands each input its slice of the pre-activation gradient (+=); it reads the output
// only when an activation is fused.
#include <cstring>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

// The output seen as [outer, axis * inner]: input k owns `chunk` floats of every outer row.
template <typename Io>
void Layout(const Io& io, int* outer, int* inner, int* axis) {
  const Dims out = DimsOf(OutputTensor(io));
  NormalizeAxis(io.op->options.axis, out.rank, axis);
  *outer = 1;
  *inner = 1;
  for (int d = 0; d < *axis; ++d) *outer *= out.d[d];
  for (int d = *axis + 1; d < out.rank; ++d) *inner *= out.d[d];
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  const size_t inputs = op.inputs.size();
  TS_RETURN_IF_ERROR(check.ExpectArity(1, inputs < 1 ? 1 : inputs, inputs));
  TS_RETURN_IF_ERROR(check.ExpectSupportedActivation());
  const Dims first = check.InputDims(0);
  int axis = 0;
  if (!NormalizeAxis(op.options.axis, first.rank, &axis)) {
    return check.Error("axis %d is out of range for rank %d", static_cast<int>(op.options.axis),
                       first.rank);
  }
  Dims expected = first;
  expected.d[axis] = 0;
  for (size_t k = 0; k < inputs; ++k) {
    const Dims dims = check.InputDims(k);
    bool compatible = dims.rank == first.rank;
    for (int d = 0; compatible && d < first.rank; ++d) {
      compatible = d == axis || dims.d[d] == first.d[d];
    }
    if (!compatible) {
      char have[96];
      char want[96];
      FormatDims(dims, have, sizeof(have));
      FormatDims(first, want, sizeof(want));
      return check.Error(
          "input %zu has shape %s, which does not match input 0's %s outside "
          "axis %d",
          k, have, want, axis);
    }
    expected.d[axis] += dims.d[axis];
  }
  return check.ExpectOutputDims(expected, "the inputs joined along the axis");
}

Status Eval(const KernelIo& io) {
  int outer = 0;
  int inner = 0;
  int axis = 0;
  Layout(io, &outer, &inner, &axis);
  float* y = MutableOutputFloats(io);
  const int row = OutputTensor(io).shape[axis] * inner;
  int offset = 0;
  for (size_t k = 0; k < io.op->inputs.size(); ++k) {
    const int chunk = InputTensor(io, k).shape[axis] * inner;
    const float* x = InputFloats(io, k);
    for (int o = 0; o < outer; ++o) {
      std::memcpy(y + o * row + offset, x + o * chunk, static_cast<size_t>(chunk) * sizeof(float));
    }
    offset += chunk;
  }
  ApplyActivationInPlace(io.op->options.activation, y, OutputTensor(io).element_count());
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  int outer = 0;
  int inner = 0;
  int axis = 0;
  Layout(io, &outer, &inner, &axis);
  const float* dz = PreActivationGradient(io.op->options.activation, OutputFloats(io), dy,
                                          OutputTensor(io).element_count(), io.scratch);
  const int row = OutputTensor(io).shape[axis] * inner;
  int offset = 0;
  for (size_t k = 0; k < io.op->inputs.size(); ++k) {
    const int chunk = InputTensor(io, k).shape[axis] * inner;
    float* dx = InputGradient(io, k);
    if (dx != nullptr) {
      for (int o = 0; o < outer; ++o) {
        for (int j = 0; j < chunk; ++j) dx[o * chunk + j] += dz[o * row + offset + j];
      }
    }
    offset += chunk;
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationConcatenation() {
  static constexpr OpRegistration kRegistration = {op::kConcatenation,
                                                   Prepare,
                                                   Eval,
                                                   Backward,
                                                   FusedActivationScratch,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kFusedActivation,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
