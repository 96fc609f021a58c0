// SPDX-License-Identifier: Apache-2.0
//
// SLICE: the block of the input that starts at `begin` (INT32 input 1, one entry per dimension)
// and spans `size` (INT32 input 2; -1 = to the end of the dimension). Both live in tensors and
// are checked at run time: inside the input, and giving the graph's output shape. Forward only.
#include <cstdint>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(3, 3, 3));
  const size_t rank = check.Input(0).shape.size();
  for (size_t i = 1; i <= 2; ++i) {
    if (check.Input(i).shape.size() != 1 || check.Input(i).element_count() != rank) {
      return check.Error("%s must be 1-D with one entry per input dimension (%zu)",
                         i == 1 ? "begin" : "size", rank);
    }
  }
  if (check.Output().shape.size() != rank) {
    return check.Error("output has rank %zu, the input %zu; SLICE keeps the rank",
                       check.Output().shape.size(), rank);
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  const Dims in = DimsOf(InputTensor(io, 0));
  const int32_t* begin = InputInts(io, 1);
  const int32_t* size = InputInts(io, 2);
  int strides[kMaxKernelRank] = {};
  RowMajorStrides(in, strides);
  Dims block;
  block.rank = in.rank;
  int base = 0;
  for (int d = 0; d < in.rank; ++d) {
    const int64_t extent = size[d] == -1 ? int64_t{in.d[d]} - begin[d] : int64_t{size[d]};
    if (begin[d] < 0 || begin[d] > in.d[d] || extent < 0 || begin[d] + extent > in.d[d]) {
      return KernelError(
          io.op_index, *io.op, "dimension %d: begin %d with size %d leaves the input's %d", d,
          static_cast<int>(begin[d]), static_cast<int>(size[d]), static_cast<int>(in.d[d]));
    }
    block.d[d] = static_cast<int32_t>(extent);
    base += begin[d] * strides[d];
  }
  if (DimsOf(OutputTensor(io)) != block) {
    char have[96];
    char want[96];
    FormatDims(DimsOf(OutputTensor(io)), have, sizeof(have));
    FormatDims(block, want, sizeof(want));
    return KernelError(io.op_index, *io.op, "the slice is %s but the graph's output is %s", want,
                       have);
  }
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  ForEachIndex(block, strides, base, [&](int i, int from) { y[i] = x[from]; });
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationSlice() {
  static constexpr OpRegistration kRegistration = {op::kSlice,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/1u << 1 | 1u << 2,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
