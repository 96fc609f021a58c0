// SPDX-License-Identifier: Apache-2.0
//
// GATHER_ND: input 1 (INT32, shape [..., depth]) holds index tuples into the first `depth`
// dimensions of input 0; each tuple selects one slice of the remaining dimensions:
//   y[j..., k...] = params[indices[j..., 0], ..., indices[j..., depth - 1], k...].
// The output shape is indices.shape[:-1] + params.shape[depth:]. Index values live in a tensor
// and are checked at run time (0 <= index < dimension). Forward only.
#include <cstring>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  const Dims params = check.InputDims(0);
  const Dims indices = check.InputDims(1);
  if (indices.rank < 1) return check.Error("indices must have at least one dimension");
  const int depth = indices.d[indices.rank - 1];
  if (depth < 1 || depth > params.rank) {
    return check.Error("index tuples have %d entries; params has rank %d", depth, params.rank);
  }
  Dims expected;
  for (int d = 0; d + 1 < indices.rank; ++d) expected.d[expected.rank++] = indices.d[d];
  for (int d = depth; d < params.rank; ++d) {
    if (expected.rank == kMaxKernelRank) {
      return check.Unsupported("the output would have more than %d dimensions", kMaxKernelRank);
    }
    expected.d[expected.rank++] = params.d[d];
  }
  return check.ExpectOutputDims(expected, "indices' leading dimensions, then params' remaining");
}

Status Eval(const KernelIo& io) {
  const Dims params = DimsOf(InputTensor(io, 0));
  const Dims indices = DimsOf(InputTensor(io, 1));
  const int depth = indices.d[indices.rank - 1];
  int strides[kMaxKernelRank] = {};
  RowMajorStrides(params, strides);
  const size_t slice = static_cast<size_t>(depth == params.rank ? 1 : strides[depth - 1]);
  const size_t tuples = indices.Count() / static_cast<size_t>(depth);
  const int32_t* index = InputInts(io, 1);
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  for (size_t t = 0; t < tuples; ++t) {
    size_t from = 0;
    for (int d = 0; d < depth; ++d) {
      const int32_t value = index[t * static_cast<size_t>(depth) + static_cast<size_t>(d)];
      if (value < 0 || value >= params.d[d]) {
        return KernelError(io.op_index, *io.op,
                           "index tuple %zu has %d at position %d; dimension %d has size %d", t,
                           static_cast<int>(value), d, d, static_cast<int>(params.d[d]));
      }
      from += static_cast<size_t>(value) * static_cast<size_t>(strides[d]);
    }
    std::memcpy(y + t * slice, x + from, slice * sizeof(float));
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationGatherNd() {
  static constexpr OpRegistration kRegistration = {op::kGatherNd,
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
