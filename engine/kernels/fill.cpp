// SPDX-License-Identifier: Apache-2.0
//
// FILL: a tensor of the shape the INT32 1-D input 0 lists, every element the float scalar
// input 1. The listed shape lives in a tensor and must be the graph's output shape (checked at
// run time). Forward only.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  if (check.Input(0).shape.size() != 1 ||
      check.Input(0).element_count() != check.Output().shape.size()) {
    return check.Error("dims must be 1-D with one entry per output dimension (%zu)",
                       check.Output().shape.size());
  }
  if (check.Input(1).element_count() != 1) {
    return check.Error("the fill value holds %zu values; it must hold one",
                       check.Input(1).element_count());
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  const Dims out = DimsOf(OutputTensor(io));
  const int32_t* dims = InputInts(io, 0);
  for (int d = 0; d < out.rank; ++d) {
    if (dims[d] != out.d[d]) {
      return KernelError(io.op_index, *io.op, "dims[%d] is %d but the graph's output has %d there",
                         d, static_cast<int>(dims[d]), static_cast<int>(out.d[d]));
    }
  }
  const float value = InputFloats(io, 1)[0];
  float* y = MutableOutputFloats(io);
  const size_t count = out.Count();
  for (size_t i = 0; i < count; ++i) y[i] = value;
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationFill() {
  static constexpr OpRegistration kRegistration = {op::kFill,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/1u << 0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
