// SPDX-License-Identifier: Apache-2.0
//
// PAD with zeros by the INT32 [rank, 2] paddings (input 1; padding.h checks them). Backward
// takes the gradient of the interior back (+=) and reads only the paddings.
#include "engine/kernels/padding.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  return PreparePadding(OpCheck(subgraph, op, op_index), 2, 2);
}

Status Eval(const KernelIo& io) {
  PadView view;
  TS_RETURN_IF_ERROR(ResolvePadding(io, &view));
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const size_t out_count = OutputTensor(io).element_count();
  for (size_t i = 0; i < out_count; ++i) y[i] = 0.0f;
  ForEachIndex(view.input, view.out_strides, view.base, [&](int i, int o) { y[o] = x[i]; });
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  PadView view;
  TS_RETURN_IF_ERROR(ResolvePadding(io, &view));
  ForEachIndex(view.input, view.out_strides, view.base, [&](int i, int o) { dx[i] += dy[o]; });
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationPad() {
  static constexpr OpRegistration kRegistration = {op::kPad,
                                                   Prepare,
                                                   Eval,
                                                   Backward,
                                                   nullptr,
                                                   /*int32_inputs=*/1u << 1,
                                                   /*backward_reads_inputs=*/1u << 1,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
