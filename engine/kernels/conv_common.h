// SPDX-License-Identifier: Apache-2.0
//
// What CONV_2D and DEPTHWISE_CONV_2D share around their own window math: the geometry read from
// the [., KH, KW, .] weights, the Prepare checks before and after each op's own channel checks,
// and the start of Backward (gradient buffers, dZ through the fused activation, the bias
// gradient). The op files keep their channel layout, their sums and their registrations.
//
//   Status Prepare(...) {
//     TS_RETURN_IF_ERROR(ExpectConvOperands(check));
//     ...  // the op's own channel checks, giving out_c
//     return ExpectConvBiasAndOutput(check, input, weights, out_c);
//   }
//   Status Backward(const BackwardIo& io) {
//     ConvGradients grads;
//     TS_RETURN_IF_ERROR(StartConvBackward(io, out_c, weights_wanted, &grads));
//     if (grads.d_weights == nullptr && grads.dx == nullptr) return Status::Ok();
//     ...  // dW and dX from grads.dz
//   }
#pragma once

#include "engine/kernels/kernel.h"
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/window_geometry.h"

namespace trainscope {

// Geometry of a convolution whose input 1 holds weights [., KH, KW, .] (dilation applies).
template <typename Io>
WindowGeometry ConvGeometryOf(const Io& io) {
  const Tensor& weights = InputTensor(io, 1);
  return MakeWindow(DimsOf(InputTensor(io, 0)), io.op->options, weights.shape[1], weights.shape[2],
                    true);
}

// The registration of CONV_2D or DEPTHWISE_CONV_2D: weights at input 1, the optional bias at
// input 2, Backward reads the input (and the output with a fused activation). half_rank: the
// half ranks give a compact weight gradient.
constexpr OpRegistration ConvRegistration(int32_t opcode, PrepareFn prepare, EvalFn eval,
                                          BackwardFn backward, bool half_rank) {
  return {opcode,
          prepare,
          eval,
          backward,
          FusedActivationScratch,
          /*int32_inputs=*/0,
          /*backward_reads_inputs=*/1u << 0,
          OutputUse::kFusedActivation,
          /*weights_input=*/1,
          /*bias_input=*/2,
          half_rank};
}

// 2 or 3 inputs (the bias is optional), one output, a supported activation, rank-4 input and
// weights.
Status ExpectConvOperands(const OpCheck& check);

// A bias, when present, of out_c elements; a valid window; output [N, OH, OW, out_c].
Status ExpectConvBiasAndOutput(const OpCheck& check, const Dims& input, const Dims& weights,
                               int out_c);

// Buffers the window loops of Backward work with. d_weights / dx are nullptr when not wanted.
struct ConvGradients {
  const float* dz = nullptr;  // dL/d(pre-activation), the output's shape
  float* d_weights = nullptr;
  float* dx = nullptr;
};

// Checks every gradient buffer before writing any (an error leaves them all unchanged), computes
// dz and adds it into the bias gradient (channel = flat index % out_c). `weights_wanted` says
// whether this pass trains the weights.
Status StartConvBackward(const BackwardIo& io, int out_c, bool weights_wanted,
                         ConvGradients* grads);

}  // namespace trainscope
