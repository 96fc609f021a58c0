// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/arg_reduce.h"

namespace trainscope {

Status PrepareArgReduce(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  TS_RETURN_IF_ERROR(check.ExpectInputType(0, ElementType::kFloat32));
  TS_RETURN_IF_ERROR(check.ExpectInputType(1, ElementType::kInt32));
  TS_RETURN_IF_ERROR(check.ExpectOutputType(0, ElementType::kInt32));
  if (check.Input(1).element_count() != 1) {
    return check.Error("the axis operand holds %zu values; it must hold one",
                       check.Input(1).element_count());
  }
  if (check.InputDims(0).rank < 1) return check.Error("the input must have a dimension");
  return Status::Ok();
}

Status ResolveArgAxis(const KernelIo& io, int* axis) {
  const Dims in = DimsOf(InputTensor(io, 0));
  const int32_t given = InputInts(io, 1)[0];
  if (!NormalizeAxis(given, in.rank, axis)) {
    return KernelError(io.op_index, *io.op, "axis %d is out of range for rank %d",
                       static_cast<int>(given), in.rank);
  }
  Dims expected;
  for (int d = 0; d < in.rank; ++d) {
    if (d != *axis) expected.d[expected.rank++] = in.d[d];
  }
  if (DimsOf(OutputTensor(io)) != expected) {
    char have[96];
    char want[96];
    FormatDims(DimsOf(OutputTensor(io)), have, sizeof(have));
    FormatDims(expected, want, sizeof(want));
    return KernelError(io.op_index, *io.op, "the axis gives output shape %s but the graph's is %s",
                       want, have);
  }
  return Status::Ok();
}

}  // namespace trainscope
