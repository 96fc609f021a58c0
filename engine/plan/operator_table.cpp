// SPDX-License-Identifier: Apache-2.0
#include "engine/plan/operator_table.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/kernels/kernel.h"
#include "engine/plan/trainability.h"

namespace trainscope {
namespace {

std::string NameOf(int32_t opcode) {
  const char* name = OpcodeName(opcode);
  return name != nullptr ? name : "opcode " + std::to_string(opcode);
}

// "input 0", "inputs 0, 1" for the bits of backward_reads_inputs.
std::string InputList(uint32_t bits) {
  std::string list;
  int count = 0;
  for (int i = 0; i < 32; ++i) {
    if ((bits >> i & 1u) == 0) continue;
    list += (count++ == 0 ? "" : ", ") + std::to_string(i);
  }
  if (count == 0) return "";
  return (count == 1 ? "input " : "inputs ") + list;
}

// What the backward pass reads of the forward pass, hence what training keeps alive.
std::string KeptForBackward(const OpRegistration* registration) {
  if (registration == nullptr) return "-";
  if (registration->backward == nullptr) return "nothing (forward only)";
  std::vector<std::string> parts;
  const std::string inputs = InputList(registration->backward_reads_inputs);
  if (!inputs.empty()) parts.push_back(inputs);
  if (registration->backward_reads_output == OutputUse::kAlways) parts.push_back("output");
  if (registration->backward_reads_output == OutputUse::kFusedActivation) {
    parts.push_back("output if an activation is fused");
  }
  if (registration->scratch_floats != nullptr) parts.push_back("backward scratch");
  if (parts.empty()) return "nothing";
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? "" : "; ") + parts[i];
  return text;
}

const char* Mark(bool yes) {
  return yes ? "yes" : "-";
}

}  // namespace

std::string OperatorTableMarkdown() {
  std::vector<int32_t> opcodes;
  std::vector<const OpRegistration*> custom;
  for (size_t i = 0; i < RegisteredOperatorCount(); ++i) {
    const OpRegistration& registration = RegisteredOperator(i);
    if (registration.custom_code != nullptr) {
      custom.push_back(&registration);
    } else {
      opcodes.push_back(registration.opcode);
    }
  }
  size_t onert_count = 0;
  const int32_t* onert = OnertForwardOpcodes(&onert_count);
  opcodes.insert(opcodes.end(), onert, onert + onert_count);
  std::sort(opcodes.begin(), opcodes.end(),
            [](int32_t a, int32_t b) { return NameOf(a) < NameOf(b); });
  opcodes.erase(std::unique(opcodes.begin(), opcodes.end()), opcodes.end());

  size_t forward = 0;
  size_t backward = 0;
  size_t onert_covered = 0;
  std::string rows;
  for (int32_t opcode : opcodes) {
    const OpRegistration* registration = FindRegistration(opcode);
    const bool has_backward = registration != nullptr && registration->backward != nullptr;
    forward += registration != nullptr ? 1 : 0;
    backward += has_backward ? 1 : 0;
    onert_covered += registration != nullptr && HasOnertForwardKernel(opcode) ? 1 : 0;
    rows += "| " + NameOf(opcode) + " | " + Mark(registration != nullptr) + " | " +
            Mark(has_backward) + " | " + Mark(HasOnertForwardKernel(opcode)) + " | " +
            Mark(HasOnertBackwardKernel(opcode)) + " | " + KeptForBackward(registration) + " |\n";
  }

  // Custom operators after the builtins: onert-micro's lists hold builtin codes only.
  for (const OpRegistration* registration : custom) {
    ++forward;
    rows += std::string("| CUSTOM '") + registration->custom_code + "' | yes | " +
            Mark(registration->backward != nullptr) + " | yes | - | " +
            KeptForBackward(registration) + " |\n";
  }

  std::string text =
      "# Operators\n"
      "\n"
      "Generated from the kernel registrations by `trainscope-cli operators --markdown`; a test\n"
      "fails when this file differs from what the code generates, so regenerate it with\n"
      "`trainscope-cli operators --markdown > docs/operators.md` after adding a kernel.\n"
      "\n"
      "- **forward**, **backward**: the engine has a forward kernel / a backward kernel (gradient\n"
      "  checked against finite differences) for the operator. Float32 data; axes,\n"
      "  shapes and indices are INT32.\n"
      "- **onert-micro forward**: the operator is in onert-micro's float kernel list.\n"
      "- **onert-micro backward**: onert-micro has a train kernel for it\n"
      "  (research/onert-micro-training.md §7.1); training a range that reaches any other\n"
      "  operator fails on a board, and the engine warns about it.\n"
      "- **kept for backward**: the forward tensors the backward kernel reads, which the training\n"
      "  plans keep alive from the forward pass until the operator's backward step, and whether\n"
      "  it needs scratch memory while that step runs. A forward-only operator keeps nothing: it\n"
      "  can only sit before the trained range, where the plans free its tensors as soon as the\n"
      "  next operator ran.\n"
      "- BOOL and INT32 tensors flow between operators (comparisons, CAST, ARG_MAX, SELECT_V2);\n"
      "  graph inputs and outputs are FLOAT32.\n"
      "\n";
  text += std::to_string(forward) + " operators run forward (" + std::to_string(backward) +
          " also backward); " + std::to_string(onert_covered) + " of onert-micro's " +
          std::to_string(onert_count) + " float operators.\n\n";
  text +=
      "| operator | forward | backward | onert-micro forward | onert-micro backward | kept for "
      "backward |\n"
      "|---|---|---|---|---|---|\n";
  return text + rows;
}

}  // namespace trainscope
