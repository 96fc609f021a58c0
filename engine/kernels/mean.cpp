// SPDX-License-Identifier: Apache-2.0
//
// MEAN over the axes listed in the INT32 operand (input 1), as every reduction (reduction.h).
// Backward spreads each output's gradient evenly over the elements it averaged (+=) and reads
// only the axes operand.
#include "engine/kernels/reduction.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Eval(const KernelIo& io) {
  Reduction r;
  TS_RETURN_IF_ERROR(ResolveReduction(io, &r));
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const size_t out_count = OutputTensor(io).element_count();
  for (size_t i = 0; i < out_count; ++i) y[i] = 0.0f;
  ForEachIndex(r.input, r.out_strides, 0, [&](int i, int o) { y[o] += x[i]; });
  const float scale = 1.0f / static_cast<float>(r.divisor);
  for (size_t i = 0; i < out_count; ++i) y[i] *= scale;
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  Reduction r;
  TS_RETURN_IF_ERROR(ResolveReduction(io, &r));
  const float scale = 1.0f / static_cast<float>(r.divisor);
  ForEachIndex(r.input, r.out_strides, 0, [&](int i, int o) { dx[i] += dy[o] * scale; });
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationMean() {
  static constexpr OpRegistration kRegistration = {op::kMean,
                                                   PrepareReduction,
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
