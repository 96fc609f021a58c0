// SPDX-License-Identifier: Apache-2.0
//
// FULLY_CONNECTED: y[b][o] = act(sum_i x[b][i] * w[o][i] + bias[o]), weights [out, in], the input
// flattened to [batch, in] (keep_num_dims keeps its leading dimensions in the output).
// Backward reads the input (weight gradient) and, with a fused activation, the output. The
// weight gradient is compact for the half ranks (rows TrainedRows(rank, out)). The products are
// dense_loops.h's, which choose their AVX2 path at run time. In a batch's first sample the
// executor hands in the parameter gradients unfilled, and backward writes them whole.
#include <algorithm>

#include "engine/kernels/dense_loops.h"
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

struct FcShape {
  int batch = 0;
  int in = 0;
  int out = 0;
};

template <typename Io>
FcShape ShapeOf(const Io& io) {
  const Tensor& weights = InputTensor(io, 1);
  FcShape s;
  s.out = weights.shape[0];
  s.in = weights.shape[1];
  s.batch = static_cast<int>(InputTensor(io, 0).element_count() / static_cast<size_t>(s.in));
  return s;
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 3, 2));
  TS_RETURN_IF_ERROR(check.ExpectSupportedActivation());
  if (op.options.weights_format != 0) {
    return check.Unsupported("weights format %d is not supported (only DEFAULT)",
                             op.options.weights_format);
  }
  TS_RETURN_IF_ERROR(check.ExpectInputRank(1, 2));
  const Dims weights = check.InputDims(1);
  const int out = weights.d[0];
  const int in = weights.d[1];
  const Dims input = check.InputDims(0);
  if (input.Count() % static_cast<size_t>(in) != 0) {
    return check.Error(
        "input tensor %d '%s' has %zu elements, not a multiple of the weights' "
        "input size %d",
        static_cast<int>(op.inputs[0]), check.Input(0).name.c_str(), input.Count(), in);
  }
  if (check.HasInput(2) && check.Input(2).element_count() != static_cast<size_t>(out)) {
    return check.Error("bias tensor %d '%s' has %zu elements, expected %d (weights rows)",
                       static_cast<int>(op.inputs[2]), check.Input(2).name.c_str(),
                       check.Input(2).element_count(), out);
  }
  Dims expected;
  if (op.options.keep_num_dims) {
    if (input.rank < 1 || input.d[input.rank - 1] != in) {
      return check.Error("keep_num_dims needs the input's last dimension to be %d", in);
    }
    expected = input;
    expected.d[input.rank - 1] = out;
  } else {
    expected.rank = 2;
    expected.d[0] = static_cast<int32_t>(input.Count() / static_cast<size_t>(in));
    expected.d[1] = out;
  }
  return check.ExpectOutputDims(expected, "[batch, weights rows]");
}

Status Eval(const KernelIo& io) {
  const FcShape s = ShapeOf(io);
  const float* x = InputFloats(io, 0);
  const float* w = InputFloats(io, 1);
  const float* bias = HasInput(io, 2) ? InputFloats(io, 2) : nullptr;
  float* y = MutableOutputFloats(io);
  DenseForward(x, s.batch, s.in, w, s.out, bias, y);
  ApplyActivationInPlace(io.op->options.activation, y, static_cast<size_t>(s.batch * s.out));
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  const FcShape s = ShapeOf(io);
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  // Every buffer is checked before anything is written, so an error leaves them all unchanged.
  const RowRange rows = TrainedRows(io.rank, s.out);
  float* d_weights = nullptr;
  float* d_bias = nullptr;
  TS_RETURN_IF_ERROR(ParamGradient(io, 1, io.trainable && !rows.empty(), &d_weights));
  TS_RETURN_IF_ERROR(ParamGradient(io, 2, io.trainable, &d_bias));
  const float* dz = PreActivationGradient(io.op->options.activation, OutputFloats(io), dy,
                                          static_cast<size_t>(s.batch * s.out), io.scratch);

  if (d_bias != nullptr) {
    if (io.parameter_gradients_unset) std::fill(d_bias, d_bias + s.out, 0.0f);
    for (int b = 0; b < s.batch; ++b) {
      for (int o = 0; o < s.out; ++o) d_bias[o] += dz[b * s.out + o];
    }
  }
  if (d_weights != nullptr) {
    (io.parameter_gradients_unset ? DenseWeightGradientSet : DenseWeightGradient)(
        dz, s.batch, s.out, rows, InputFloats(io, 0), s.in, d_weights);
  }
  float* dx = InputGradient(io, 0);
  if (dx != nullptr) DenseInputGradient(dz, s.batch, s.out, InputFloats(io, 1), s.in, dx);
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationFullyConnected() {
  static constexpr OpRegistration kRegistration = SettingParameterGradients(
      {op::kFullyConnected, Prepare, Eval, Backward, FusedActivationScratch,
       /*int32_inputs=*/0,
       /*backward_reads_inputs=*/1u << 0, OutputUse::kFusedActivation,
       /*weights_input=*/1,
       /*bias_input=*/2,
       /*half_rank=*/true});
  return kRegistration;
}

}  // namespace trainscope
