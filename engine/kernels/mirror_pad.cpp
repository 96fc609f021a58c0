// SPDX-License-Identifier: Apache-2.0
//
// MIRROR_PAD by the INT32 [rank, 2] paddings (input 1; padding.h checks them), filling with the
// input mirrored at its edges: REFLECT leaves the edge out ([1, 2, 3] padded by 2 before gives
// 3, 2, 1, 2, 3), SYMMETRIC repeats it (2, 1, 1, 2, 3). So a count may be at most size - 1
// (REFLECT) or size (SYMMETRIC), checked at run time. Forward only.
#include "engine/kernels/padding.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  return PreparePadding(OpCheck(subgraph, op, op_index), 2, 2);
}

// The input coordinate output coordinate `o` mirrors, for a dimension of `size`.
int MirrorIndex(int o, int before, int size, bool symmetric) {
  const int i = o - before;
  if (i < 0) return symmetric ? -i - 1 : -i;
  if (i >= size) return symmetric ? 2 * size - 1 - i : 2 * size - 2 - i;
  return i;
}

Status Eval(const KernelIo& io) {
  PadView view;
  TS_RETURN_IF_ERROR(ResolvePadding(io, &view));
  const bool symmetric = io.op->options.mirror_symmetric;
  for (int d = 0; d < view.input.rank; ++d) {
    const int limit = symmetric ? view.input.d[d] : view.input.d[d] - 1;
    const int after = view.output.d[d] - view.input.d[d] - view.before[d];
    if (view.before[d] > limit || after > limit) {
      return KernelError(io.op_index, *io.op,
                         "paddings (%d, %d) of dimension %d exceed %d, the most %s mirror of "
                         "size %d allows",
                         view.before[d], after, d, limit, symmetric ? "a SYMMETRIC" : "a REFLECT",
                         static_cast<int>(view.input.d[d]));
    }
  }
  int in_strides[kMaxKernelRank] = {};
  RowMajorStrides(view.input, in_strides);
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const int count = static_cast<int>(view.output.Count());
  int index[kMaxKernelRank] = {};
  for (int o = 0; o < count; ++o) {
    int from = 0;
    for (int d = 0; d < view.output.rank; ++d) {
      from += MirrorIndex(index[d], view.before[d], view.input.d[d], symmetric) * in_strides[d];
    }
    y[o] = x[from];
    for (int d = view.output.rank - 1; d >= 0; --d) {
      if (++index[d] < view.output.d[d]) break;
      index[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationMirrorPad() {
  static constexpr OpRegistration kRegistration = {op::kMirrorPad,
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
