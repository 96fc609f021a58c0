// SPDX-License-Identifier: Apache-2.0
//
// EXPAND_DIMS: inserts a size-1 dimension at the position given by the INT32 axis operand
// (input 1; negative counts from the end of the output). Prepare checks the output is the input
// with one size-1 dimension inserted; Eval checks the axis value picks that position. Data is
// copied unchanged; backward copies the gradient back (+=) and reads no forward tensor.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Dims InsertOne(const Dims& input, int axis) {
  Dims out;
  out.rank = input.rank + 1;
  for (int i = 0, j = 0; i < out.rank; ++i) out.d[i] = i == axis ? 1 : input.d[j++];
  return out;
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(2, 2, 2));
  if (check.Input(1).element_count() != 1) {
    return check.Error("axis operand must hold one value, it has %zu",
                       check.Input(1).element_count());
  }
  const Dims input = check.InputDims(0);
  const Dims output = check.OutputDims();
  if (input.rank < kMaxKernelRank) {
    for (int axis = 0; axis <= input.rank; ++axis) {
      if (InsertOne(input, axis) == output) return Status::Ok();
    }
  }
  char have[96];
  char from[96];
  FormatDims(output, have, sizeof(have));
  FormatDims(input, from, sizeof(from));
  return check.Error("output shape %s is not the input shape %s with one size-1 dimension added",
                     have, from);
}

Status Eval(const KernelIo& io) {
  const Dims input = DimsOf(InputTensor(io, 0));
  const int32_t raw = InputInts(io, 1)[0];
  int axis = 0;
  if (!NormalizeAxis(raw, input.rank + 1, &axis) ||
      InsertOne(input, axis) != DimsOf(OutputTensor(io))) {
    return KernelError(io.op_index, *io.op, "axis %d does not give the output shape of the graph",
                       static_cast<int>(raw));
  }
  return CopyEval(io);
}

}  // namespace

const OpRegistration& RegistrationExpandDims() {
  static constexpr OpRegistration kRegistration = {op::kExpandDims,
                                                   Prepare,
                                                   Eval,
                                                   CopyBackward,
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
