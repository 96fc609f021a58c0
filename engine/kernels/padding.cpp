// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/padding.h"

#include <vector>

namespace trainscope {

Status ResolvePadding(const Subgraph& subgraph, const Operator& op, uint32_t op_index,
                      const int32_t* paddings, PadView* view) {
  *view = PadView();
  view->input = DimsOf(subgraph.tensors[op.inputs[0]]);
  view->output = DimsOf(subgraph.tensors[op.outputs[0]]);
  RowMajorStrides(view->output, view->out_strides);
  for (int d = 0; d < view->input.rank; ++d) {
    const int32_t before = paddings[2 * d];
    const int32_t after = paddings[2 * d + 1];
    if (before < 0 || after < 0 ||
        static_cast<int64_t>(view->input.d[d]) + before + after != view->output.d[d]) {
      return KernelError(op_index, op,
                         "paddings (%d, %d) of dimension %d do not turn size %d into the "
                         "output's %d",
                         static_cast<int>(before), static_cast<int>(after), d,
                         static_cast<int>(view->input.d[d]), static_cast<int>(view->output.d[d]));
    }
    view->before[d] = before;
    view->base += before * view->out_strides[d];
  }
  return Status::Ok();
}

Status PreparePadding(const OpCheck& check, size_t min_inputs, size_t max_inputs) {
  TS_RETURN_IF_ERROR(check.ExpectArity(min_inputs, max_inputs, 2));
  const size_t rank = check.Input(0).shape.size();
  const std::vector<int32_t>& paddings = check.Input(1).shape;
  if (paddings.size() != 2 || static_cast<size_t>(paddings[0]) != rank || paddings[1] != 2) {
    return check.Error("paddings operand must have shape [%zu, 2]", rank);
  }
  if (check.Output().shape.size() != rank) {
    return check.Error("output rank %zu differs from the input rank %zu",
                       check.Output().shape.size(), rank);
  }
  return Status::Ok();
}

}  // namespace trainscope
