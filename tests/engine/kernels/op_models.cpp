// SPDX-License-Identifier: Apache-2.0
#include "tests/engine/kernels/op_models.h"

#include <string>

namespace trainscope::testing {

Operand In(std::vector<int32_t> shape) {
  return {std::move(shape), false, false, {}};
}
Operand Const(std::vector<int32_t> shape) {
  return {std::move(shape), true, false, {}};
}
Operand Ints(std::vector<int32_t> shape, std::vector<int32_t> values) {
  return {std::move(shape), true, true, std::move(values)};
}

ModelBuilder OneOp(int32_t opcode, const std::vector<Operand>& operands,
                   std::vector<int32_t> out_shape, const OpOptions& options) {
  ModelBuilder b;
  std::vector<int32_t> inputs;
  std::vector<int32_t> graph_inputs;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Operand& o = operands[i];
    const std::string name = "in" + std::to_string(i);
    size_t count = 1;
    for (int32_t d : o.shape) count *= static_cast<size_t>(d);
    int t = 0;
    if (o.is_int) {
      t = b.AddConstantInt32(name, o.shape, o.ints);
    } else if (o.constant) {
      t = b.AddConstant(name, o.shape, std::vector<float>(count, 0.0f));
    } else {
      t = b.AddTensor(name, o.shape);
      graph_inputs.push_back(t);
    }
    inputs.push_back(t);
  }
  const int y = b.AddTensor("y", std::move(out_shape));
  b.AddOperator(opcode, inputs, {y}, options);
  b.SetInputs(graph_inputs);
  b.SetOutputs({y});
  return b;
}

}  // namespace trainscope::testing
