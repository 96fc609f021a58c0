// SPDX-License-Identifier: Apache-2.0
//
// SPLIT_V: input 0 cut along the axis of the INT32 scalar input 2 into parts whose sizes the
// INT32 1-D input 1 lists (one entry may be -1: the rest of the dimension), one output per part
// in order. Sizes and axis live in tensors and are checked at run time: the axis in range, no
// negative size but one -1, the sizes adding up to the dimension, each output of its part's
// shape. Forward only.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

// Bounds the stack array of part sizes; models split into a handful of parts.
constexpr size_t kMaxSplitParts = 64;

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  const int parts = op.options.num_splits;
  if (parts < 1 || static_cast<size_t>(parts) > kMaxSplitParts) {
    return check.Error("num_splits is %d; it must be 1 to %zu", parts, kMaxSplitParts);
  }
  TS_RETURN_IF_ERROR(check.ExpectArity(3, 3, 3, static_cast<size_t>(parts)));
  if (check.Input(1).shape.size() != 1 ||
      check.Input(1).element_count() != static_cast<size_t>(parts)) {
    return check.Error("size_splits must be 1-D with num_splits (%d) entries", parts);
  }
  if (check.Input(2).element_count() != 1) {
    return check.Error("the axis operand holds %zu values; it must hold one",
                       check.Input(2).element_count());
  }
  return Status::Ok();
}

// The size of every part, with a -1 entry resolved; fails on sizes that do not tile the axis.
Status ResolveSizes(const KernelIo& io, int dimension, int* sizes) {
  const int32_t* given = InputInts(io, 1);
  const size_t parts = io.op->outputs.size();
  int64_t known = 0;
  int inferred = -1;
  for (size_t k = 0; k < parts; ++k) {
    if (given[k] == -1 && inferred < 0) {
      inferred = static_cast<int>(k);
      continue;
    }
    if (given[k] < 0) {
      return KernelError(io.op_index, *io.op,
                         "size_splits[%zu] is %d; sizes are >= 0 with at most one -1", k,
                         static_cast<int>(given[k]));
    }
    sizes[k] = given[k];
    known += given[k];
  }
  const bool fits = inferred >= 0 ? known <= dimension : known == dimension;
  if (!fits) {
    return KernelError(io.op_index, *io.op, "size_splits add up to %lld; the dimension is %d",
                       static_cast<long long>(known), dimension);
  }
  if (inferred >= 0) sizes[inferred] = dimension - static_cast<int>(known);
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  const Dims in = DimsOf(InputTensor(io, 0));
  int axis = 0;
  if (!NormalizeAxis(InputInts(io, 2)[0], in.rank, &axis)) {
    return KernelError(io.op_index, *io.op, "axis %d is out of range for rank %d",
                       static_cast<int>(InputInts(io, 2)[0]), in.rank);
  }
  const size_t parts = io.op->outputs.size();
  int sizes[kMaxSplitParts] = {};
  TS_RETURN_IF_ERROR(ResolveSizes(io, in.d[axis], sizes));
  for (size_t k = 0; k < parts; ++k) {
    Dims part = in;
    part.d[axis] = sizes[k];
    if (DimsOf(OutputTensorAt(io, k)) != part) {
      char have[96];
      char want[96];
      FormatDims(DimsOf(OutputTensorAt(io, k)), have, sizeof(have));
      FormatDims(part, want, sizeof(want));
      return KernelError(io.op_index, *io.op, "output %zu has shape %s; its part is %s", k, have,
                         want);
    }
  }
  const float* x = InputFloats(io, 0);
  int offset = 0;
  for (size_t k = 0; k < parts; ++k) {
    CopySlabOut(in, axis, offset, sizes[k], x, MutableOutputFloatsAt(io, k));
    offset += sizes[k];
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationSplitV() {
  static constexpr OpRegistration kRegistration = {op::kSplitV,
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
