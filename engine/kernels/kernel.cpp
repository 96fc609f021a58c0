// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/kernel.h"

#include <cstdio>
#include <iterator>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

// Kernels index tensors with int arithmetic; this bound keeps every offset in range.
constexpr size_t kMaxKernelElements = size_t{1} << 30;

using RegistrationGetter = const OpRegistration& (*)();

// Operators with a backward kernel; the forward-only ones are in forward_only_kernels.cpp.
constexpr RegistrationGetter kRegistrations[] = {
    RegistrationAdd,
    RegistrationAveragePool2D,
    RegistrationConcatenation,
    RegistrationConv2D,
    RegistrationDepthwiseConv2D,
    RegistrationExp,
    RegistrationExpandDims,
    RegistrationFullyConnected,
    RegistrationGather,
    RegistrationGru,
    RegistrationLeakyRelu,
    RegistrationLogistic,
    RegistrationMaxPool2D,
    RegistrationMean,
    RegistrationMul,
    RegistrationPad,
    RegistrationRelu,
    RegistrationRelu6,
    RegistrationReshape,
    RegistrationSoftmax,
    RegistrationSqueeze,
    RegistrationStridedSlice,
    RegistrationSub,
    RegistrationTanh,
    RegistrationTranspose,
};

bool IsInt32Operand(const OpRegistration& registration, size_t input) {
  return input < 32 && (registration.int32_inputs >> input & 1u) != 0;
}

void DescribeOperator(const Operator& op, char* out, size_t size) {
  const char* name = OpcodeName(op.opcode);
  if (op.opcode == op::kCustom) {
    std::snprintf(out, size, "CUSTOM '%s'", op.custom_code.c_str());
  } else if (name != nullptr) {
    std::snprintf(out, size, "%s", name);
  } else {
    std::snprintf(out, size, "opcode %d", static_cast<int>(op.opcode));
  }
}

// Types, rank and size of one tensor the op reads or writes.
Status CheckOperand(const OpCheck& check, int32_t index, bool int32_operand, bool own_types) {
  const Tensor& tensor = check.subgraph().tensors[index];
  const ElementType expected = int32_operand ? ElementType::kInt32 : ElementType::kFloat32;
  if (!own_types && tensor.type != expected) {
    if (int32_operand) {
      return check.Unsupported("tensor %d '%s' is %s; this operand must be INT32",
                               static_cast<int>(index), tensor.name.c_str(),
                               ElementTypeName(tensor.type));
    }
    return check.Unsupported("tensor %d '%s' is %s; only FLOAT32 models can run",
                             static_cast<int>(index), tensor.name.c_str(),
                             ElementTypeName(tensor.type));
  }
  if (tensor.shape.size() > static_cast<size_t>(kMaxKernelRank)) {
    return check.Unsupported("tensor %d '%s' has rank %zu; at most %d dimensions are supported",
                             static_cast<int>(index), tensor.name.c_str(), tensor.shape.size(),
                             kMaxKernelRank);
  }
  if (tensor.element_count() > kMaxKernelElements) {
    return check.Unsupported("tensor %d '%s' has %zu elements; at most %zu are supported",
                             static_cast<int>(index), tensor.name.c_str(), tensor.element_count(),
                             kMaxKernelElements);
  }
  if (!int32_operand && tensor.element_count() == 0) {
    return check.Unsupported("tensor %d '%s' has no elements; empty tensors are not supported",
                             static_cast<int>(index), tensor.name.c_str());
  }
  return Status::Ok();
}

// Tensors of other types may flow between operators, but samples come and go as float32, and a
// sample of no elements has nowhere to go.
Status CheckGraphBoundary(const Subgraph& subgraph) {
  for (const std::vector<int32_t>* list : {&subgraph.inputs, &subgraph.outputs}) {
    for (int32_t index : *list) {
      const Tensor& tensor = subgraph.tensors[index];
      if (tensor.element_count() == 0) {
        return Status::Error(StatusCode::kUnsupported, "graph %s tensor %d '%s' has no elements",
                             list == &subgraph.inputs ? "input" : "output", static_cast<int>(index),
                             tensor.name.c_str());
      }
      if (tensor.type == ElementType::kFloat32) continue;
      return Status::Error(StatusCode::kUnsupported,
                           "graph %s tensor %d '%s' is %s; graph inputs and outputs must be "
                           "FLOAT32",
                           list == &subgraph.inputs ? "input" : "output", static_cast<int>(index),
                           tensor.name.c_str(), ElementTypeName(tensor.type));
    }
  }
  return Status::Ok();
}

}  // namespace

namespace {

// Executors look a registration up for every operator of every pass: an index by opcode keeps
// that constant-time with 80-odd registrations (a byte per opcode, so a board pays 512 bytes).
constexpr int32_t kLowestOpcode = -16;
constexpr int32_t kOpcodeSlots = 512;
constexpr uint8_t kNoRegistration = 0xff;

struct RegistrationIndex {
  uint8_t slot[kOpcodeSlots];
  RegistrationIndex() {
    for (uint8_t& entry : slot) entry = kNoRegistration;
    // The first registration of an opcode wins, as a linear search would find it.
    for (size_t i = RegisteredOperatorCount(); i-- > 0;) {
      const int32_t position = RegisteredOperator(i).opcode - kLowestOpcode;
      if (position >= 0 && position < kOpcodeSlots && i < kNoRegistration) {
        slot[position] = static_cast<uint8_t>(i);
      }
    }
  }
};

}  // namespace

const OpRegistration* FindRegistration(int32_t opcode) {
  static const RegistrationIndex index;
  const int32_t position = opcode - kLowestOpcode;
  if (position < 0 || position >= kOpcodeSlots) {
    for (size_t i = 0; i < RegisteredOperatorCount(); ++i) {
      if (RegisteredOperator(i).opcode == opcode) return &RegisteredOperator(i);
    }
    return nullptr;
  }
  const uint8_t entry = index.slot[position];
  return entry == kNoRegistration ? nullptr : &RegisteredOperator(entry);
}

size_t RegisteredOperatorCount() {
  return std::size(kRegistrations) + ForwardOnlyRegistrationCount();
}

const OpRegistration& RegisteredOperator(size_t index) {
  const size_t trained = std::size(kRegistrations);
  return index < trained ? kRegistrations[index]() : ForwardOnlyRegistration(index - trained);
}

Status CheckRunnable(const Subgraph& subgraph) {
  TS_RETURN_IF_ERROR(ValidateDataflow(subgraph));
  for (size_t k = 0; k < subgraph.operators.size(); ++k) {
    const Operator& op = subgraph.operators[k];
    const auto op_index = static_cast<uint32_t>(k);
    const OpRegistration* registration = FindRegistration(op.opcode);
    if (registration != nullptr && registration->custom_code != nullptr &&
        op.custom_code != registration->custom_code) {
      registration = nullptr;
    }
    if (registration == nullptr) {
      char name[96];
      DescribeOperator(op, name, sizeof(name));
      return Status::Error(StatusCode::kUnsupported, "unsupported operator %s at index %zu", name,
                           k);
    }
    const OpCheck check(subgraph, op, op_index);
    const bool own_types = registration->prepare_checks_types;
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      if (op.inputs[i] < 0) continue;
      TS_RETURN_IF_ERROR(
          CheckOperand(check, op.inputs[i], IsInt32Operand(*registration, i), own_types));
    }
    for (int32_t output : op.outputs) {
      TS_RETURN_IF_ERROR(CheckOperand(check, output, false, own_types));
    }
    TS_RETURN_IF_ERROR(registration->prepare(subgraph, op, op_index));
  }
  return CheckGraphBoundary(subgraph);
}

BackwardNeeds BackwardNeedsOf(const Operator& op) {
  BackwardNeeds needs;
  const OpRegistration* registration = FindRegistration(op.opcode);
  if (registration == nullptr) return needs;
  needs.inputs = registration->backward_reads_inputs;
  switch (registration->backward_reads_output) {
    case OutputUse::kNever:
      needs.output = false;
      break;
    case OutputUse::kFusedActivation:
      needs.output = op.options.activation != Activation::kNone;
      break;
    case OutputUse::kAlways:
      needs.output = true;
      break;
  }
  return needs;
}

TrainableParams TrainableParamsOf(const Operator& op) {
  TrainableParams params;
  const OpRegistration* registration = FindRegistration(op.opcode);
  if (registration == nullptr) return params;
  const auto input = [&](int8_t position) {
    return position >= 0 && static_cast<size_t>(position) < op.inputs.size()
               ? op.inputs[static_cast<size_t>(position)]
               : -1;
  };
  params.weights = input(registration->weights_input);
  params.bias = input(registration->bias_input);
  return params;
}

bool IsWeightInput(const Operator& op, size_t input) {
  const OpRegistration* registration = FindRegistration(op.opcode);
  if (registration == nullptr || input >= op.inputs.size() || op.inputs[input] < 0) return false;
  return static_cast<int>(input) == registration->weights_input ||
         (input < 32 && (registration->more_weight_inputs >> input & 1u) != 0);
}

bool IsBiasInput(const Operator& op, size_t input) {
  const OpRegistration* registration = FindRegistration(op.opcode);
  if (registration == nullptr || input >= op.inputs.size() || op.inputs[input] < 0) return false;
  return static_cast<int>(input) == registration->bias_input ||
         (input < 32 && (registration->more_bias_inputs >> input & 1u) != 0);
}

RowRange WeightGradientRows(const Subgraph& subgraph, const Operator& op, TrainRank rank) {
  const OpRegistration* registration = FindRegistration(op.opcode);
  const TrainableParams params = TrainableParamsOf(op);
  if (registration == nullptr || params.weights < 0 ||
      static_cast<size_t>(params.weights) >= subgraph.tensors.size()) {
    return {0, 0};
  }
  const std::vector<int32_t>& shape = subgraph.tensors[params.weights].shape;
  const int32_t d0 = shape.empty() ? 1 : shape[0];
  if (!registration->half_rank &&
      (rank == TrainRank::kUpperHalf || rank == TrainRank::kLowerHalf)) {
    rank = TrainRank::kAll;
  }
  return TrainedRows(rank, d0);
}

size_t BackwardScratchFloats(const Subgraph& subgraph, const Operator& op) {
  const OpRegistration* registration = FindRegistration(op.opcode);
  if (registration == nullptr || registration->scratch_floats == nullptr) return 0;
  return registration->scratch_floats(subgraph, op);
}

}  // namespace trainscope
