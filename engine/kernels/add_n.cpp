// SPDX-License-Identifier: Apache-2.0
//
// ADD_N: the element-wise sum of one or more inputs of the output's shape (no broadcasting, as
// in TFLite), added in input order. Forward only.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  const size_t count = op.inputs.size();
  TS_RETURN_IF_ERROR(check.ExpectArity(1, count < 1 ? 1 : count, count));
  for (size_t i = 0; i < count; ++i) {
    if (check.InputDims(i) != check.OutputDims()) {
      char have[96];
      char want[96];
      FormatDims(check.InputDims(i), have, sizeof(have));
      FormatDims(check.OutputDims(), want, sizeof(want));
      return check.Error("input %zu has shape %s, the output %s; ADD_N does not broadcast", i, have,
                         want);
    }
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  const size_t count = OutputTensor(io).element_count();
  float* y = MutableOutputFloats(io);
  const float* first = InputFloats(io, 0);
  for (size_t e = 0; e < count; ++e) y[e] = first[e];
  for (size_t i = 1; i < io.op->inputs.size(); ++i) {
    const float* x = InputFloats(io, i);
    for (size_t e = 0; e < count; ++e) y[e] += x[e];
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationAddN() {
  static constexpr OpRegistration kRegistration = {op::kAddN,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
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
