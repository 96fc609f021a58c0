// SPDX-License-Identifier: Apache-2.0
//
// CUMSUM: running sums along the axis held by the INT32 scalar input 1 (negative counts from the
// end, checked at run time). `exclusive` leaves each element out of its own sum (the first sum is
// 0); `reverse` sums from the end of the axis. Forward only.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  if (check.Input(1).element_count() != 1) {
    return check.Error("the axis operand holds %zu values; it must hold one",
                       check.Input(1).element_count());
  }
  return check.ExpectOutputDims(check.InputDims(0), "same shape as the input");
}

Status Eval(const KernelIo& io) {
  const Dims dims = DimsOf(InputTensor(io, 0));
  int axis = 0;
  if (!NormalizeAxis(InputInts(io, 1)[0], dims.rank, &axis)) {
    return KernelError(io.op_index, *io.op, "axis %d is out of range for rank %d",
                       static_cast<int>(InputInts(io, 1)[0]), dims.rank);
  }
  int outer = 1;
  int inner = 1;
  for (int d = 0; d < axis; ++d) outer *= dims.d[d];
  for (int d = axis + 1; d < dims.rank; ++d) inner *= dims.d[d];
  const int length = dims.d[axis];
  const bool exclusive = io.op->options.exclusive;
  const bool reverse = io.op->options.reverse;
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  for (int o = 0; o < outer; ++o) {
    for (int i = 0; i < inner; ++i) {
      float sum = 0.0f;
      for (int step = 0; step < length; ++step) {
        const int k = reverse ? length - 1 - step : step;
        const int at = (o * length + k) * inner + i;
        if (exclusive) {
          y[at] = sum;
          sum += x[at];
        } else {
          sum += x[at];
          y[at] = sum;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationCumsum() {
  static constexpr OpRegistration kRegistration = {op::kCumsum,
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
