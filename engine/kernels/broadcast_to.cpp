// SPDX-License-Identifier: Apache-2.0
//
// BroadcastTo, the custom operator (CUSTOM with custom_code "BroadcastTo") that TensorFlow's
// broadcast_to becomes in circle models: input 0 repeated the numpy way to the shape the INT32
// 1-D input 1 lists, which must be the graph's output shape (checked at run time). The custom
// options (TensorFlow's node attributes) carry nothing the kernel needs. Forward only.
#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  const Dims out = check.OutputDims();
  if (check.Input(1).shape.size() != 1 ||
      check.Input(1).element_count() != static_cast<size_t>(out.rank)) {
    return check.Error("shape must be 1-D with one entry per output dimension (%d)", out.rank);
  }
  BroadcastPlan plan;
  if (check.InputDims(0).rank > out.rank || !PlanBroadcast(check.InputDims(0), out, &plan) ||
      plan.out != out) {
    char have[96];
    char want[96];
    FormatDims(check.InputDims(0), have, sizeof(have));
    FormatDims(out, want, sizeof(want));
    return check.Error("input shape %s does not broadcast to the output's %s", have, want);
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  const Dims out = DimsOf(OutputTensor(io));
  const int32_t* shape = InputInts(io, 1);
  for (int d = 0; d < out.rank; ++d) {
    if (shape[d] != out.d[d]) {
      return KernelError(io.op_index, *io.op, "shape[%d] is %d but the graph's output has %d there",
                         d, static_cast<int>(shape[d]), static_cast<int>(out.d[d]));
    }
  }
  int strides[kMaxKernelRank] = {};
  BroadcastStrides(DimsOf(InputTensor(io, 0)), out, strides);
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  ForEachIndex(out, strides, 0, [&](int i, int from) { y[i] = x[from]; });
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationBroadcastTo() {
  static constexpr OpRegistration kRegistration = {op::kCustom,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/1u << 1,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false,
                                                   /*prepare_checks_types=*/false,
                                                   /*custom_code=*/"BroadcastTo"};
  return kRegistration;
}

}  // namespace trainscope
