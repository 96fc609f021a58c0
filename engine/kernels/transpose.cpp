// SPDX-License-Identifier: Apache-2.0
//
// TRANSPOSE: output dimension i is input dimension perm[i] (INT32 operand, input 1). Eval and
// Backward check that perm is a permutation matching the graph's output shape. Backward scatters
// the gradient back through the inverse permutation (+=) and reads only perm.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

// Output shape, and for every output dimension the stride of the input element it walks.
struct TransposeView {
  Dims out;
  int in_strides[kMaxKernelRank] = {};
};

template <typename Io>
Status Resolve(const Io& io, TransposeView* view) {
  const Dims input = DimsOf(InputTensor(io, 0));
  const int32_t* perm = InputInts(io, 1);
  int strides[kMaxKernelRank] = {};
  RowMajorStrides(input, strides);
  bool used[kMaxKernelRank] = {};
  view->out.rank = input.rank;
  for (int i = 0; i < input.rank; ++i) {
    const int32_t p = perm[i];
    if (p < 0 || p >= input.rank || used[p]) {
      return KernelError(io.op_index, *io.op,
                         "perm[%d] = %d does not form a permutation of %d dimensions", i,
                         static_cast<int>(p), input.rank);
    }
    used[p] = true;
    view->out.d[i] = input.d[p];
    view->in_strides[i] = strides[p];
  }
  if (view->out != DimsOf(OutputTensor(io))) {
    return KernelError(io.op_index, *io.op, "perm does not give the graph's output shape");
  }
  return Status::Ok();
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  const size_t rank = check.Input(0).shape.size();
  if (check.Input(1).element_count() != rank) {
    return check.Error("perm has %zu entries for an input of rank %zu",
                       check.Input(1).element_count(), rank);
  }
  if (check.Output().shape.size() != rank) {
    return check.Error("output rank %zu differs from the input rank %zu",
                       check.Output().shape.size(), rank);
  }
  return ExpectSameElementCount(check);
}

Status Eval(const KernelIo& io) {
  TransposeView view;
  TS_RETURN_IF_ERROR(Resolve(io, &view));
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  ForEachIndex(view.out, view.in_strides, 0, [&](int o, int i) { y[o] = x[i]; });
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  TransposeView view;
  TS_RETURN_IF_ERROR(Resolve(io, &view));
  ForEachIndex(view.out, view.in_strides, 0, [&](int o, int i) { dx[i] += dy[o]; });
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationTranspose() {
  static constexpr OpRegistration kRegistration = {op::kTranspose,
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
