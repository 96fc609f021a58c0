// SPDX-License-Identifier: Apache-2.0
//
// LOGICAL_NOT: y = !x on a BOOL tensor (boolean_ops.h), the output of the input's shape.
// Forward only.
#include "engine/kernels/boolean_ops.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(ExpectSameShapeUnary(check));
  TS_RETURN_IF_ERROR(check.ExpectInputType(0, ElementType::kBool));
  return check.ExpectOutputType(0, ElementType::kBool);
}

Status Eval(const KernelIo& io) {
  const uint8_t* x = InputBools(io, 0);
  uint8_t* y = MutableOutputBools(io);
  const size_t count = OutputTensor(io).element_count();
  for (size_t i = 0; i < count; ++i) y[i] = x[i] != 0 ? 0 : 1;
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationLogicalNot() {
  static constexpr OpRegistration kRegistration =
      BooleanRegistration(op::kLogicalNot, Prepare, Eval);
  return kRegistration;
}

}  // namespace trainscope
