// SPDX-License-Identifier: Apache-2.0
//
// MEAN over the axes listed in the INT32 operand (input 1; negative axes count from the end,
// repeats count once), keeping reduced dimensions as size 1 when keep_dims is set. Eval and
// Backward check the axes against the graph's output shape. Backward spreads each output's
// gradient evenly over the elements it averaged (+=) and reads only the axes operand.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

// The input shape, and for every input dimension the output stride (0 where it is reduced).
struct Reduction {
  Dims input;
  int out_strides[kMaxKernelRank] = {};
  int divisor = 1;  // input elements per output element
};

template <typename Io>
Status Resolve(const Io& io, Reduction* r) {
  r->input = DimsOf(InputTensor(io, 0));
  const int rank = r->input.rank;
  bool reduced[kMaxKernelRank] = {};
  const int32_t* axes = InputInts(io, 1);
  const size_t axis_count = InputTensor(io, 1).element_count();
  for (size_t i = 0; i < axis_count; ++i) {
    int axis = 0;
    if (!NormalizeAxis(axes[i], rank, &axis)) {
      return KernelError(io.op_index, *io.op, "axis %d is out of range for rank %d",
                         static_cast<int>(axes[i]), rank);
    }
    reduced[axis] = true;
  }
  Dims expected;
  int stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    r->out_strides[d] = reduced[d] ? 0 : stride;
    if (!reduced[d]) stride *= r->input.d[d];
  }
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) r->divisor *= r->input.d[d];
    if (!reduced[d] || io.op->options.keep_dims)
      expected.d[expected.rank++] = reduced[d] ? 1 : r->input.d[d];
  }
  const Dims actual = DimsOf(OutputTensor(io));
  if (actual != expected) {
    char have[96];
    char want[96];
    FormatDims(actual, have, sizeof(have));
    FormatDims(expected, want, sizeof(want));
    return KernelError(io.op_index, *io.op,
                       "the axes give output shape %s but the graph's output is %s", want, have);
  }
  return Status::Ok();
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  if (check.Input(1).shape.size() > 1) {
    return check.Error("axes operand must be a scalar or 1-D, it has rank %zu",
                       check.Input(1).shape.size());
  }
  if (check.Input(0).element_count() % check.Output().element_count() != 0) {
    return check.Error("output has %zu elements, which does not divide the input's %zu",
                       check.Output().element_count(), check.Input(0).element_count());
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  Reduction r;
  TS_RETURN_IF_ERROR(Resolve(io, &r));
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
  TS_RETURN_IF_ERROR(Resolve(io, &r));
  const float scale = 1.0f / static_cast<float>(r.divisor);
  ForEachIndex(r.input, r.out_strides, 0, [&](int i, int o) { dx[i] += dy[o] * scale; });
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationMean() {
  static constexpr OpRegistration kRegistration = {op::kMean,
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
