// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/conv_common.h"

namespace trainscope {

Status ExpectConvOperands(const OpCheck& check) {
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 3, 2));
  TS_RETURN_IF_ERROR(check.ExpectSupportedActivation());
  TS_RETURN_IF_ERROR(check.ExpectInputRank(0, 4));
  return check.ExpectInputRank(1, 4);
}

Status ExpectConvBiasAndOutput(const OpCheck& check, const Dims& input, const Dims& weights,
                               int out_c) {
  if (check.HasInput(2) && check.Input(2).element_count() != static_cast<size_t>(out_c)) {
    return check.Error("bias tensor %d '%s' has %zu elements, expected %d (output channels)",
                       static_cast<int>(check.op().inputs[2]), check.Input(2).name.c_str(),
                       check.Input(2).element_count(), out_c);
  }
  TS_RETURN_IF_ERROR(ValidateWindow(check, input, weights.d[1], weights.d[2], true));
  const WindowGeometry g = MakeWindow(input, check.options(), weights.d[1], weights.d[2], true);
  Dims expected;
  expected.rank = 4;
  expected.d[0] = g.batch;
  expected.d[1] = g.out_h;
  expected.d[2] = g.out_w;
  expected.d[3] = out_c;
  return check.ExpectOutputDims(expected, "from the input, weights, strides and padding");
}

Status StartConvBackward(const BackwardIo& io, int out_c, bool weights_wanted,
                         ConvGradients* grads) {
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  float* d_weights = nullptr;
  float* d_bias = nullptr;
  TS_RETURN_IF_ERROR(ParamGradient(io, 1, weights_wanted, &d_weights));
  TS_RETURN_IF_ERROR(ParamGradient(io, 2, io.trainable, &d_bias));
  const size_t out_count = OutputTensor(io).element_count();
  const float* dz =
      PreActivationGradient(io.op->options.activation, OutputFloats(io), dy, out_count, io.scratch);
  if (d_bias != nullptr) {
    for (size_t pixel = 0; pixel < out_count; pixel += static_cast<size_t>(out_c)) {
      for (int c = 0; c < out_c; ++c) d_bias[c] += dz[pixel + static_cast<size_t>(c)];
    }
  }
  grads->dz = dz;
  grads->d_weights = d_weights;
  grads->dx = InputGradient(io, 0);
  return Status::Ok();
}

}  // namespace trainscope
