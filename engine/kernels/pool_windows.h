// SPDX-License-Identifier: Apache-2.0
//
// What MAX_POOL_2D and AVERAGE_POOL_2D (NHWC) share around their own window math: the geometry
// from the filter options, the registration, and the start of Backward (dX wanted, dZ through the
// fused activation). Both walk their windows with TapsOf() (window_geometry.h); each op file keeps
// what a window computes and where its gradient goes.
//
//   Status Backward(const BackwardIo& io) {
//     PoolGradients grads;
//     TS_RETURN_IF_ERROR(StartPoolBackward(io, &grads));
//     if (grads.dx == nullptr) return Status::Ok();
//     ...  // grads.dx[...] += share of grads.dz[...]
//   }
//   static constexpr OpRegistration kRegistration =
//       PoolRegistration(op::kMaxPool2D, Eval, Backward, /*backward_reads_inputs=*/1u << 0);
#pragma once

#include "engine/kernels/kernel.h"
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/window_geometry.h"

namespace trainscope {

// The registration of MAX_POOL_2D or AVERAGE_POOL_2D (bit 0 of backward_reads_inputs: Backward
// reads the input).
constexpr OpRegistration PoolRegistration(int32_t opcode, EvalFn eval, BackwardFn backward,
                                          uint32_t backward_reads_inputs) {
  return {opcode,
          PreparePool,
          eval,
          backward,
          FusedActivationScratch,
          /*int32_inputs=*/0,
          backward_reads_inputs,
          OutputUse::kFusedActivation,
          /*weights_input=*/-1,
          /*bias_input=*/-1,
          /*half_rank=*/false};
}

template <typename Io>
WindowGeometry PoolGeometryOf(const Io& io) {
  const OpOptions& o = io.op->options;
  return MakeWindow(DimsOf(InputTensor(io, 0)), o, o.filter_h, o.filter_w, false);
}

// What Backward works with: dx is nullptr when dX is not wanted (and then dz is not computed).
struct PoolGradients {
  float* dx = nullptr;
  const float* dz = nullptr;  // dL/d(pre-activation), the output's shape
};

inline Status StartPoolBackward(const BackwardIo& io, PoolGradients* grads) {
  grads->dx = InputGradient(io, 0);
  if (grads->dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  grads->dz = PreActivationGradient(io.op->options.activation, OutputFloats(io), dy,
                                    OutputTensor(io).element_count(), io.scratch);
  return Status::Ok();
}

}  // namespace trainscope
