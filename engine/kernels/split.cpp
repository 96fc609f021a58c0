// SPDX-License-Identifier: Apache-2.0
//
// SPLIT: input 1 cut into num_splits equal parts along the axis held by the INT32 scalar input 0
// (negative counts from the end), one output per part in order. The axis lives in a tensor, so
// it is checked at run time: in range, and dividing its dimension evenly into the outputs'
// shape. Forward only.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  const int parts = op.options.num_splits;
  if (parts < 1) return check.Error("num_splits is %d; it must be at least 1", parts);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2, static_cast<size_t>(parts)));
  if (check.Input(0).element_count() != 1) {
    return check.Error("the axis operand holds %zu values; it must hold one",
                       check.Input(0).element_count());
  }
  const size_t in_count = check.Input(1).element_count();
  for (size_t k = 0; k < op.outputs.size(); ++k) {
    if (check.OutputAt(k).element_count() * static_cast<size_t>(parts) != in_count) {
      return check.Error("output %zu has %zu elements; %d equal parts of %zu elements need %zu", k,
                         check.OutputAt(k).element_count(), parts, in_count,
                         in_count / static_cast<size_t>(parts));
    }
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  const Dims in = DimsOf(InputTensor(io, 1));
  const int parts = io.op->options.num_splits;
  int axis = 0;
  if (!NormalizeAxis(InputInts(io, 0)[0], in.rank, &axis)) {
    return KernelError(io.op_index, *io.op, "axis %d is out of range for rank %d",
                       static_cast<int>(InputInts(io, 0)[0]), in.rank);
  }
  if (in.d[axis] % parts != 0) {
    return KernelError(io.op_index, *io.op, "dimension %d (%d) does not split into %d equal parts",
                       axis, static_cast<int>(in.d[axis]), static_cast<int>(parts));
  }
  Dims part = in;
  part.d[axis] = in.d[axis] / parts;
  for (size_t k = 0; k < io.op->outputs.size(); ++k) {
    if (DimsOf(OutputTensorAt(io, k)) != part) {
      char have[96];
      char want[96];
      FormatDims(DimsOf(OutputTensorAt(io, k)), have, sizeof(have));
      FormatDims(part, want, sizeof(want));
      return KernelError(io.op_index, *io.op, "output %zu has shape %s; the split gives %s", k,
                         have, want);
    }
  }
  const float* x = InputFloats(io, 1);
  for (size_t k = 0; k < io.op->outputs.size(); ++k) {
    CopySlabOut(in, axis, static_cast<int>(k) * part.d[axis], part.d[axis], x,
                MutableOutputFloatsAt(io, k));
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationSplit() {
  static constexpr OpRegistration kRegistration = {op::kSplit,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/1u << 0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
