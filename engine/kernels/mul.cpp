// SPDX-License-Identifier: Apache-2.0
//
// MUL with numpy broadcasting and a fused activation: y = act(a * b). Backward reads both inputs:
// da += dz * b, db += dz * a, summed over each operand's broadcast dimensions.
#include "engine/kernels/broadcast.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  const BroadcastPlan plan = BinaryPlanOf(io);
  const float* a = InputFloats(io, 0);
  const float* b = InputFloats(io, 1);
  float* y = MutableOutputFloats(io);
  const Activation activation = io.op->options.activation;
  ForEachBroadcast(
      plan, [&](int i, int ia, int ib) { y[i] = ApplyActivation(activation, a[ia] * b[ib]); });
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* da = InputGradient(io, 0);
  float* db = InputGradient(io, 1);
  if (da == nullptr && db == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  const BroadcastPlan plan = BinaryPlanOf(io);
  const float* dz = PreActivationGradient(io.op->options.activation, OutputFloats(io), dy,
                                          plan.out.Count(), io.scratch);
  const float* a = InputFloats(io, 0);
  const float* b = InputFloats(io, 1);
  ForEachBroadcast(plan, [&](int i, int ia, int ib) {
    if (da != nullptr) da[ia] += dz[i] * b[ib];
    if (db != nullptr) db[ib] += dz[i] * a[ia];
  });
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationMul() {
  static constexpr OpRegistration kRegistration = {op::kMul,
                                                   PrepareBinary,
                                                   Eval,
                                                   Backward,
                                                   FusedActivationScratch,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/(1u << 0) | (1u << 1),
                                                   OutputUse::kFusedActivation,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
