// SPDX-License-Identifier: Apache-2.0
//
// SELECT_V2: y = condition ? x : y per element, the BOOL condition (input 0) and the FLOAT32
// x and y (inputs 1, 2) all broadcast the numpy way to the output's shape. Forward only.
#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(3, 3, 3));
  TS_RETURN_IF_ERROR(check.ExpectInputType(0, ElementType::kBool));
  TS_RETURN_IF_ERROR(check.ExpectInputType(1, ElementType::kFloat32));
  TS_RETURN_IF_ERROR(check.ExpectInputType(2, ElementType::kFloat32));
  TS_RETURN_IF_ERROR(check.ExpectOutputType(0, ElementType::kFloat32));
  BroadcastPlan values;
  BroadcastPlan all;
  if (!PlanBroadcast(check.InputDims(1), check.InputDims(2), &values) ||
      !PlanBroadcast(check.InputDims(0), values.out, &all)) {
    return check.Error("the condition, x and y shapes do not broadcast");
  }
  return check.ExpectOutputDims(all.out, "the broadcast of the three input shapes");
}

Status Eval(const KernelIo& io) {
  const Dims out = DimsOf(OutputTensor(io));
  int strides[3][kMaxKernelRank] = {};
  for (int k = 0; k < 3; ++k) BroadcastStrides(DimsOf(InputTensor(io, k)), out, strides[k]);
  const uint8_t* condition = InputBools(io, 0);
  const float* x = InputFloats(io, 1);
  const float* y_values = InputFloats(io, 2);
  float* y = MutableOutputFloats(io);
  const int count = static_cast<int>(out.Count());
  int index[kMaxKernelRank] = {};
  int at[3] = {};
  for (int i = 0; i < count; ++i) {
    y[i] = condition[at[0]] != 0 ? x[at[1]] : y_values[at[2]];
    for (int d = out.rank - 1; d >= 0; --d) {
      ++index[d];
      for (int k = 0; k < 3; ++k) at[k] += strides[k][d];
      if (index[d] < out.d[d]) break;
      for (int k = 0; k < 3; ++k) at[k] -= strides[k][d] * out.d[d];
      index[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationSelectV2() {
  static constexpr OpRegistration kRegistration = {op::kSelectV2,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false,
                                                   /*prepare_checks_types=*/true};
  return kRegistration;
}

}  // namespace trainscope
