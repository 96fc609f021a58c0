// SPDX-License-Identifier: Apache-2.0
//
// UNPACK: the input sliced along `axis` (negative counts from the end) into `num` outputs of
// rank one less, output k holding index k of that dimension. Forward only.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  const int num = op.options.values_count;
  if (num < 1) return check.Error("num is %d; it must be at least 1", num);
  TS_RETURN_IF_ERROR(check.ExpectArity(1, 1, 1, static_cast<size_t>(num)));
  const Dims in = check.InputDims(0);
  int axis = 0;
  if (!NormalizeAxis(op.options.axis, in.rank, &axis)) {
    return check.Error("axis %d is out of range for rank %d", static_cast<int>(op.options.axis),
                       in.rank);
  }
  if (in.d[axis] != num) {
    return check.Error("dimension %d of the input is %d, but num is %d", axis,
                       static_cast<int>(in.d[axis]), num);
  }
  Dims part;
  for (int d = 0; d < in.rank; ++d) {
    if (d != axis) part.d[part.rank++] = in.d[d];
  }
  for (size_t k = 0; k < op.outputs.size(); ++k) {
    TS_RETURN_IF_ERROR(check.ExpectOutputDimsAt(k, part, "the input without the axis"));
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  const Dims in = DimsOf(InputTensor(io, 0));
  int axis = 0;
  NormalizeAxis(io.op->options.axis, in.rank, &axis);
  const float* x = InputFloats(io, 0);
  for (size_t k = 0; k < io.op->outputs.size(); ++k) {
    CopySlabOut(in, axis, static_cast<int>(k), 1, x, MutableOutputFloatsAt(io, k));
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationUnpack() {
  static constexpr OpRegistration kRegistration = {op::kUnpack,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
