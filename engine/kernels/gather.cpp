// SPDX-License-Identifier: Apache-2.0
//
// GATHER along `axis` (negative counts from the end) with INT32 indices (input 1):
//   output = params[:axis] + indices.shape + params[axis+1:],
// each index picking one slice of params. Every index is bounds-checked at run time: an index
// outside [0, params.shape[axis]) is an error Status, never an out-of-range read or write.
// batch_dims other than 0 is not supported. Backward scatter-adds the gradient into the picked
// slices (repeated indices accumulate) and reads only the indices.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

struct GatherLayout {
  int outer = 1;  // product of params dimensions before the axis
  int axis_size = 0;
  int inner = 1;  // product of params dimensions after the axis
  int indices = 0;
};

template <typename Io>
GatherLayout LayoutOf(const Io& io) {
  const Dims params = DimsOf(InputTensor(io, 0));
  int axis = 0;
  NormalizeAxis(io.op->options.axis, params.rank, &axis);
  GatherLayout layout;
  for (int d = 0; d < axis; ++d) layout.outer *= params.d[d];
  for (int d = axis + 1; d < params.rank; ++d) layout.inner *= params.d[d];
  layout.axis_size = params.d[axis];
  layout.indices = static_cast<int>(InputTensor(io, 1).element_count());
  return layout;
}

template <typename Io>
Status CheckIndices(const Io& io, const GatherLayout& layout, const int32_t* indices) {
  for (int p = 0; p < layout.indices; ++p) {
    if (indices[p] < 0 || indices[p] >= layout.axis_size) {
      return KernelError(io.op_index, *io.op, "index %d at position %d is outside [0, %d)",
                         static_cast<int>(indices[p]), p, layout.axis_size);
    }
  }
  return Status::Ok();
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  if (op.options.batch_dims != 0) {
    return check.Unsupported("batch_dims %d is not supported (only 0)",
                             static_cast<int>(op.options.batch_dims));
  }
  const Dims params = check.InputDims(0);
  const Dims indices = check.InputDims(1);
  int axis = 0;
  if (!NormalizeAxis(op.options.axis, params.rank, &axis)) {
    return check.Error("axis %d is out of range for rank %d", static_cast<int>(op.options.axis),
                       params.rank);
  }
  if (params.rank - 1 + indices.rank > kMaxKernelRank) {
    return check.Unsupported("the output would have rank %d; at most %d is supported",
                             params.rank - 1 + indices.rank, kMaxKernelRank);
  }
  Dims expected;
  for (int d = 0; d < axis; ++d) expected.d[expected.rank++] = params.d[d];
  for (int d = 0; d < indices.rank; ++d) expected.d[expected.rank++] = indices.d[d];
  for (int d = axis + 1; d < params.rank; ++d) expected.d[expected.rank++] = params.d[d];
  return check.ExpectOutputDims(expected, "params[:axis] + indices + params[axis+1:]");
}

Status Eval(const KernelIo& io) {
  const GatherLayout layout = LayoutOf(io);
  const int32_t* indices = InputInts(io, 1);
  TS_RETURN_IF_ERROR(CheckIndices(io, layout, indices));
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  for (int o = 0; o < layout.outer; ++o) {
    for (int p = 0; p < layout.indices; ++p) {
      const float* from = x + (o * layout.axis_size + indices[p]) * layout.inner;
      float* to = y + (o * layout.indices + p) * layout.inner;
      for (int j = 0; j < layout.inner; ++j) to[j] = from[j];
    }
  }
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  const GatherLayout layout = LayoutOf(io);
  const int32_t* indices = InputInts(io, 1);
  TS_RETURN_IF_ERROR(CheckIndices(io, layout, indices));
  for (int o = 0; o < layout.outer; ++o) {
    for (int p = 0; p < layout.indices; ++p) {
      float* to = dx + (o * layout.axis_size + indices[p]) * layout.inner;
      const float* from = dy + (o * layout.indices + p) * layout.inner;
      for (int j = 0; j < layout.inner; ++j) to[j] += from[j];
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationGather() {
  static constexpr OpRegistration kRegistration = {op::kGather,
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
