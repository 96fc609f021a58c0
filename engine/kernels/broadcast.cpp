// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/broadcast.h"

namespace trainscope {

void BroadcastStrides(const Dims& operand, const Dims& out, int* strides) {
  int stride = 1;
  for (int i = out.rank - 1; i >= 0; --i) {
    const int j = i - (out.rank - operand.rank);
    if (j < 0) {
      strides[i] = 0;
      continue;
    }
    strides[i] = operand.d[j] == 1 && out.d[i] != 1 ? 0 : stride;
    stride *= operand.d[j];
  }
}

bool PlanBroadcast(const Dims& a, const Dims& b, BroadcastPlan* plan) {
  *plan = BroadcastPlan();
  plan->out.rank = a.rank > b.rank ? a.rank : b.rank;
  for (int i = 0; i < plan->out.rank; ++i) {
    const int ja = i - (plan->out.rank - a.rank);
    const int jb = i - (plan->out.rank - b.rank);
    const int da = ja >= 0 ? a.d[ja] : 1;
    const int db = jb >= 0 ? b.d[jb] : 1;
    if (da != db && da != 1 && db != 1) return false;
    plan->out.d[i] = da == 1 ? db : da;
  }
  plan->same_shape = a == b;
  BroadcastStrides(a, plan->out, plan->stride_a);
  BroadcastStrides(b, plan->out, plan->stride_b);
  return true;
}

Status PrepareBinary(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  TS_RETURN_IF_ERROR(check.ExpectSupportedActivation());
  BroadcastPlan plan;
  if (!PlanBroadcast(check.InputDims(0), check.InputDims(1), &plan)) {
    char a[96];
    char b[96];
    FormatDims(check.InputDims(0), a, sizeof(a));
    FormatDims(check.InputDims(1), b, sizeof(b));
    return check.Error("input shapes %s and %s do not broadcast", a, b);
  }
  return check.ExpectOutputDims(plan.out, "the broadcast of the input shapes");
}

}  // namespace trainscope
