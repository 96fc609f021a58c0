// SPDX-License-Identifier: Apache-2.0
//
// PADV2: PAD with a chosen fill value, the float scalar input 2 (0 when that optional input is
// absent), by the INT32 [rank, 2] paddings (input 1; padding.h checks them). Forward only.
#include "engine/kernels/padding.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(PreparePadding(check, 2, 3));
  if (check.HasInput(2) && check.Input(2).element_count() != 1) {
    return check.Error("the fill value holds %zu values; it must hold one",
                       check.Input(2).element_count());
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  PadView view;
  TS_RETURN_IF_ERROR(ResolvePadding(io, &view));
  const float fill = HasInput(io, 2) ? InputFloats(io, 2)[0] : 0.0f;
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const size_t out_count = OutputTensor(io).element_count();
  for (size_t i = 0; i < out_count; ++i) y[i] = fill;
  ForEachIndex(view.input, view.out_strides, view.base, [&](int i, int o) { y[o] = x[i]; });
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationPadV2() {
  static constexpr OpRegistration kRegistration = {op::kPadV2,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
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
