// SPDX-License-Identifier: Apache-2.0
//
// RESHAPE: the output (shape fixed by the graph) holds the input's elements in the same order.
// The optional shape operand (input 1, INT32) and the new_shape option are not read: the static
// output shape already decides, and Prepare only requires equal element counts. Backward copies
// the gradient back (+=) and reads no forward tensor.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(1, 2, 1));
  return ExpectSameElementCount(check);
}

}  // namespace

const OpRegistration& RegistrationReshape() {
  static constexpr OpRegistration kRegistration = {op::kReshape,
                                                   Prepare,
                                                   CopyEval,
                                                   CopyBackward,
                                                   nullptr,
                                                   /*int32_inputs=*/1u << 1,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
