// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/reduction.h"

namespace trainscope {

Status ResolveReduction(const Subgraph& subgraph, const Operator& op, uint32_t op_index,
                        const int32_t* axes, Reduction* r) {
  *r = Reduction();
  r->input = DimsOf(subgraph.tensors[op.inputs[0]]);
  const int rank = r->input.rank;
  bool reduced[kMaxKernelRank] = {};
  const size_t axis_count = subgraph.tensors[op.inputs[1]].element_count();
  for (size_t i = 0; i < axis_count; ++i) {
    int axis = 0;
    if (!NormalizeAxis(axes[i], rank, &axis)) {
      return KernelError(op_index, op, "axis %d is out of range for rank %d",
                         static_cast<int>(axes[i]), rank);
    }
    reduced[axis] = true;
  }
  Dims expected;
  int stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    r->out_strides[d] = reduced[d] ? 0 : stride;
    if (!reduced[d]) stride *= r->input.d[d];
  }
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) r->divisor *= r->input.d[d];
    if (!reduced[d] || op.options.keep_dims) {
      expected.d[expected.rank++] = reduced[d] ? 1 : r->input.d[d];
    }
  }
  const Dims actual = DimsOf(subgraph.tensors[op.outputs[0]]);
  if (actual != expected) {
    char have[96];
    char want[96];
    FormatDims(actual, have, sizeof(have));
    FormatDims(expected, want, sizeof(want));
    return KernelError(op_index, op, "the axes give output shape %s but the graph's output is %s",
                       want, have);
  }
  return Status::Ok();
}

Status PrepareReduction(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  if (check.Input(1).shape.size() > 1) {
    return check.Error("axes operand must be a scalar or 1-D, it has rank %zu",
                       check.Input(1).shape.size());
  }
  if (check.Input(0).element_count() % check.Output().element_count() != 0) {
    return check.Error("output has %zu elements, which does not divide the input's %zu",
                       check.Output().element_count(), check.Input(0).element_count());
  }
  return Status::Ok();
}

}  // namespace trainscope
