// SPDX-License-Identifier: Apache-2.0
//
// Single-operator test models in one line: operands are graph inputs (In), float constants
// (Const, zero-filled; gradient checks randomise them) or INT32 constants with values (Ints).
//
//   ModelBuilder b = OneOp(op::kPad, {In({2, 3}), Ints({2, 2}, {1, 0, 2, 1})}, {3, 6});
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/model_builder.h"

namespace trainscope::testing {

struct Operand {
  std::vector<int32_t> shape;
  bool constant = false;
  bool is_int = false;
  std::vector<int32_t> ints;
};

Operand In(std::vector<int32_t> shape);
Operand Const(std::vector<int32_t> shape);
Operand Ints(std::vector<int32_t> shape, std::vector<int32_t> values);

// One operator "y" = opcode(operands); the non-constant operands are the graph inputs.
ModelBuilder OneOp(int32_t opcode, const std::vector<Operand>& operands,
                   std::vector<int32_t> out_shape, const OpOptions& options = {});

}  // namespace trainscope::testing
