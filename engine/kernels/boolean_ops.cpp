// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/boolean_ops.h"

namespace trainscope {

Status PrepareComparison(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(PrepareBinary(subgraph, op, op_index));
  const ElementType type = check.Input(0).type;
  if (type != ElementType::kFloat32 && type != ElementType::kInt32) {
    return check.Unsupported("input 0 (tensor %d '%s') is %s; comparisons take FLOAT32 or INT32",
                             static_cast<int>(op.inputs[0]), check.Input(0).name.c_str(),
                             ElementTypeName(type));
  }
  TS_RETURN_IF_ERROR(check.ExpectInputType(1, type));
  return check.ExpectOutputType(0, ElementType::kBool);
}

Status PrepareLogicalBinary(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(PrepareBinary(subgraph, op, op_index));
  TS_RETURN_IF_ERROR(check.ExpectInputType(0, ElementType::kBool));
  TS_RETURN_IF_ERROR(check.ExpectInputType(1, ElementType::kBool));
  return check.ExpectOutputType(0, ElementType::kBool);
}

}  // namespace trainscope
