// SPDX-License-Identifier: Apache-2.0
//
// PACK: values_count inputs of one shape stacked along a new dimension `axis` of the output
// (in [-(rank + 1), rank], negative counting from the end of the output), input k at index k.
// Forward only.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  const size_t inputs = op.inputs.size();
  TS_RETURN_IF_ERROR(check.ExpectArity(1, inputs < 1 ? 1 : inputs, inputs));
  if (op.options.values_count != static_cast<int32_t>(inputs)) {
    return check.Error("values_count is %d but the op has %zu inputs",
                       static_cast<int>(op.options.values_count), inputs);
  }
  const Dims first = check.InputDims(0);
  if (first.rank + 1 > kMaxKernelRank) {
    return check.Unsupported("packing rank-%d inputs gives more than %d dimensions", first.rank,
                             kMaxKernelRank);
  }
  for (size_t k = 1; k < inputs; ++k) {
    if (check.InputDims(k) != first) {
      char have[96];
      char want[96];
      FormatDims(check.InputDims(k), have, sizeof(have));
      FormatDims(first, want, sizeof(want));
      return check.Error("input %zu has shape %s, input 0 %s; packed inputs share one shape", k,
                         have, want);
    }
  }
  int axis = 0;
  if (!NormalizeAxis(op.options.axis, first.rank + 1, &axis)) {
    return check.Error("axis %d is out of range for the rank-%d output",
                       static_cast<int>(op.options.axis), first.rank + 1);
  }
  Dims expected;
  for (int d = 0; d <= first.rank; ++d) {
    if (d == axis) expected.d[expected.rank++] = static_cast<int32_t>(inputs);
    if (d < first.rank) expected.d[expected.rank++] = first.d[d];
  }
  return check.ExpectOutputDims(expected, "the inputs stacked along the axis");
}

Status Eval(const KernelIo& io) {
  const Dims out = DimsOf(OutputTensor(io));
  int axis = 0;
  NormalizeAxis(io.op->options.axis, out.rank, &axis);
  float* y = MutableOutputFloats(io);
  for (size_t k = 0; k < io.op->inputs.size(); ++k) {
    CopySlabIn(out, axis, static_cast<int>(k), 1, InputFloats(io, k), y);
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationPack() {
  static constexpr OpRegistration kRegistration = {op::kPack,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
