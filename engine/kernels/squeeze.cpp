// SPDX-License-Identifier: Apache-2.0
//
// SQUEEZE: removes the size-1 dimensions listed in squeeze_dims (negative values count from the
// end), or every size-1 dimension when the list is empty. Data is copied unchanged; backward
// copies the gradient back (+=) and reads no forward tensor.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(1, 1, 1));
  const Dims input = check.InputDims(0);
  bool squeeze[kMaxKernelRank] = {};
  if (op.options.squeeze_dims.empty()) {
    for (int i = 0; i < input.rank; ++i) squeeze[i] = input.d[i] == 1;
  }
  for (int32_t raw : op.options.squeeze_dims) {
    int axis = 0;
    if (!NormalizeAxis(raw, input.rank, &axis)) {
      return check.Error("squeeze dimension %d is out of range for rank %d", static_cast<int>(raw),
                         input.rank);
    }
    if (input.d[axis] != 1) {
      return check.Error("cannot squeeze dimension %d of size %d", axis,
                         static_cast<int>(input.d[axis]));
    }
    squeeze[axis] = true;
  }
  Dims expected;
  for (int i = 0; i < input.rank; ++i) {
    if (!squeeze[i]) expected.d[expected.rank++] = input.d[i];
  }
  return check.ExpectOutputDims(expected, "the input without the squeezed dimensions");
}

}  // namespace

const OpRegistration& RegistrationSqueeze() {
  static constexpr OpRegistration kRegistration = {op::kSqueeze,
                                                   Prepare,
                                                   CopyEval,
                                                   CopyBackward,
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
