// SPDX-License-Identifier: Apache-2.0
//
// PAD with zeros: paddings is an INT32 [rank, 2] operand (input 1) of non-negative
// (before, after) counts per dimension. Eval and Backward check them against the graph's output
// shape. Backward takes the gradient of the interior back (+=) and reads only the paddings.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

// The input shape, the output strides, and the output offset of input element 0.
struct PadView {
  Dims input;
  int out_strides[kMaxKernelRank] = {};
  int base = 0;
};

template <typename Io>
Status Resolve(const Io& io, PadView* view) {
  view->input = DimsOf(InputTensor(io, 0));
  const Dims out = DimsOf(OutputTensor(io));
  const int32_t* paddings = InputInts(io, 1);
  RowMajorStrides(out, view->out_strides);
  view->base = 0;
  for (int d = 0; d < view->input.rank; ++d) {
    const int32_t before = paddings[2 * d];
    const int32_t after = paddings[2 * d + 1];
    if (before < 0 || after < 0 ||
        static_cast<int64_t>(view->input.d[d]) + before + after != out.d[d]) {
      return KernelError(io.op_index, *io.op,
                         "paddings (%d, %d) of dimension %d do not turn size %d into the "
                         "output's %d",
                         static_cast<int>(before), static_cast<int>(after), d,
                         static_cast<int>(view->input.d[d]), static_cast<int>(out.d[d]));
    }
    view->base += before * view->out_strides[d];
  }
  return Status::Ok();
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  const size_t rank = check.Input(0).shape.size();
  const std::vector<int32_t>& paddings = check.Input(1).shape;
  if (paddings.size() != 2 || static_cast<size_t>(paddings[0]) != rank || paddings[1] != 2) {
    return check.Error("paddings operand must have shape [%zu, 2]", rank);
  }
  if (check.Output().shape.size() != rank) {
    return check.Error("output rank %zu differs from the input rank %zu",
                       check.Output().shape.size(), rank);
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  PadView view;
  TS_RETURN_IF_ERROR(Resolve(io, &view));
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  const size_t out_count = OutputTensor(io).element_count();
  for (size_t i = 0; i < out_count; ++i) y[i] = 0.0f;
  ForEachIndex(view.input, view.out_strides, view.base, [&](int i, int o) { y[o] = x[i]; });
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  PadView view;
  TS_RETURN_IF_ERROR(Resolve(io, &view));
  ForEachIndex(view.input, view.out_strides, view.base, [&](int i, int o) { dx[i] += dy[o]; });
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationPad() {
  static constexpr OpRegistration kRegistration = {op::kPad,
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
