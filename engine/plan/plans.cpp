// SPDX-License-Identifier: Apache-2.0
#include "engine/plan/plans.h"

#include <map>
#include <string>

namespace trainscope {
namespace {

// Lifetime ends as onert-micro encodes them: a step index, or one of these markers.
constexpr int32_t kNotByPlan = -1;        // not allocated / not freed by this plan
constexpr int32_t kKeepForBackward = -2;  // forward output saved for the backward pass
constexpr size_t kBiasSlot = 2;

struct Lifetime {
  int32_t first = kNotByPlan;
  int32_t last = kNotByPlan;
};
// Ordered by tensor index, which fixes the order of every list.
using Lifetimes = std::map<int32_t, Lifetime>;

std::string OpLabel(const Subgraph& subgraph, size_t k) {
  const char* name = OpcodeName(subgraph.operators[k].opcode);
  return "operator " + std::to_string(k) + " (" + (name != nullptr ? name : "?") + ")";
}

Status CheckIndices(const Subgraph& subgraph) {
  const int64_t tensor_count = static_cast<int64_t>(subgraph.tensors.size());
  for (size_t k = 0; k < subgraph.operators.size(); ++k) {
    const Operator& op = subgraph.operators[k];
    for (int32_t index : op.inputs) {
      if (index < -1 || index >= tensor_count) {
        return Status::Error(StatusCode::kInvalidModel,
                             "%s: input tensor %d out of range (%lld tensors)",
                             OpLabel(subgraph, k).c_str(), static_cast<int>(index),
                             static_cast<long long>(tensor_count));
      }
    }
    for (int32_t index : op.outputs) {
      if (index < 0 || index >= tensor_count) {
        return Status::Error(StatusCode::kInvalidModel,
                             "%s: output tensor %d out of range (%lld tensors)",
                             OpLabel(subgraph, k).c_str(), static_cast<int>(index),
                             static_cast<long long>(tensor_count));
      }
    }
  }
  for (const std::vector<int32_t>* list : {&subgraph.inputs, &subgraph.outputs}) {
    for (int32_t index : *list) {
      if (index < 0 || index >= tensor_count) {
        return Status::Error(StatusCode::kInvalidModel,
                             "graph %s tensor %d out of range (%lld tensors)",
                             list == &subgraph.inputs ? "input" : "output", static_cast<int>(index),
                             static_cast<long long>(tensor_count));
      }
    }
  }
  return Status::Ok();
}

Status CheckSelection(const Subgraph& subgraph, const BackwardSelection& selection) {
  const size_t n = subgraph.operators.size();
  if (selection.ops.size() != n || selection.first_op > n ||
      selection.first_op + selection.num_train_layers != n) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "backward selection covers %zu operators (first %u, %u layers) but the "
                         "subgraph has %zu",
                         selection.ops.size(), static_cast<unsigned>(selection.first_op),
                         static_cast<unsigned>(selection.num_train_layers), n);
  }
  return Status::Ok();
}

bool IsConstant(const Subgraph& subgraph, int32_t index) {
  return index >= 0 && subgraph.tensors[static_cast<size_t>(index)].constant;
}

bool HasOwnOptions(const Operator& op) {
  const uint8_t expected = ExpectedOptionsType(op.opcode);
  return expected != 0 && op.options_type == expected;
}

// Listed with a rank other than ONLY_BIAS (only meaningful with op ranks).
bool ListedForWeights(const BackwardSelection& selection, uint32_t k) {
  const OpTrainability& op = selection.ops[k];
  return selection.uses_op_ranks && op.trainable && op.rank != TrainRank::kOnlyBias;
}

// Shared by the inference and the training forward plans; `selection` null = inference.
void FillForwardPlan(const Subgraph& subgraph, const BackwardSelection* selection,
                     const PlanOptions& options, ForwardPlan* plan) {
  const size_t n = subgraph.operators.size();
  Lifetimes lifetimes;
  if (!options.keep_input) {
    for (int32_t input : subgraph.inputs) lifetimes[input] = Lifetime{kNotByPlan, 0};
  }
  for (size_t k = 0; k < n; ++k) {
    const Operator& op = subgraph.operators[k];
    const uint32_t op_index = static_cast<uint32_t>(k);
    const bool save_inputs =
        selection != nullptr && SavesInputsForBackward(subgraph, *selection, op_index);
    const bool save_outputs =
        selection != nullptr && SavesOutputsForBackward(subgraph, *selection, op_index);
    for (int32_t input : op.inputs) {
      if (input < 0 || IsConstant(subgraph, input)) continue;
      auto found = lifetimes.find(input);
      if (found == lifetimes.end()) continue;
      if (save_inputs || found->second.last == kKeepForBackward) {
        found->second.last = kNotByPlan;
      } else {
        found->second.last = static_cast<int32_t>(k);
      }
    }
    for (int32_t output : op.outputs) {
      lifetimes[output] = Lifetime{static_cast<int32_t>(k),
                                   save_outputs ? kKeepForBackward : static_cast<int32_t>(k)};
    }
  }
  for (int32_t output : subgraph.outputs) {
    auto found = lifetimes.find(output);
    if (found != lifetimes.end()) found->second.last = static_cast<int32_t>(n);
  }

  plan->alloc.assign(n, {});
  plan->free.assign(n + 1, {});
  for (const auto& item : lifetimes) {
    const Lifetime& life = item.second;
    if (life.first >= 0) plan->alloc[static_cast<size_t>(life.first)].push_back(item.first);
    if (life.last >= 0) plan->free[static_cast<size_t>(life.last)].push_back(item.first);
  }
}

}  // namespace

bool SavesInputsForBackward(const Subgraph& subgraph, const BackwardSelection& selection,
                            uint32_t op_index) {
  if (op_index >= selection.ops.size() || op_index >= subgraph.operators.size()) return false;
  if (!selection.ops[op_index].in_backward_range) return false;
  return !selection.uses_op_ranks || ListedForWeights(selection, op_index) ||
         subgraph.operators[op_index].opcode == op::kMaxPool2D;
}

bool SavesOutputsForBackward(const Subgraph& subgraph, const BackwardSelection& selection,
                             uint32_t op_index) {
  if (op_index >= selection.ops.size() || op_index >= subgraph.operators.size()) return false;
  if (!selection.ops[op_index].in_backward_range) return false;
  const Operator& op = subgraph.operators[op_index];
  const bool fc_or_conv = op.opcode == op::kFullyConnected || op.opcode == op::kConv2D;
  return ListedForWeights(selection, op_index) || (fc_or_conv && HasOwnOptions(op));
}

Status BuildInferencePlan(const Subgraph& subgraph, const PlanOptions& options, ForwardPlan* plan) {
  TS_RETURN_IF_ERROR(CheckIndices(subgraph));
  FillForwardPlan(subgraph, nullptr, options, plan);
  return Status::Ok();
}

Status BuildTrainingForwardPlan(const Subgraph& subgraph, const BackwardSelection& selection,
                                const PlanOptions& options, ForwardPlan* plan) {
  TS_RETURN_IF_ERROR(CheckIndices(subgraph));
  TS_RETURN_IF_ERROR(CheckSelection(subgraph, selection));
  FillForwardPlan(subgraph, &selection, options, plan);
  return Status::Ok();
}

Status BuildBackwardPlan(const Subgraph& subgraph, const BackwardSelection& selection,
                         BackwardPlan* plan) {
  TS_RETURN_IF_ERROR(CheckIndices(subgraph));
  TS_RETURN_IF_ERROR(CheckSelection(subgraph, selection));
  const size_t n = subgraph.operators.size();
  const size_t steps = selection.num_train_layers;

  Lifetimes lifetimes;
  for (int32_t output : subgraph.outputs) lifetimes[output] = Lifetime{kNotByPlan, 0};
  for (size_t i = 0; i < steps; ++i) {
    const size_t k = n - 1 - i;
    const Operator& op = subgraph.operators[k];
    const OpTrainability& trainability = selection.ops[k];
    const bool only_bias = selection.uses_op_ranks && trainability.trainable &&
                           trainability.rank == TrainRank::kOnlyBias;
    const int32_t step = static_cast<int32_t>(i);
    for (size_t slot = 0; slot < op.inputs.size(); ++slot) {
      const int32_t input = op.inputs[slot];
      if (input < 0) continue;
      const bool constant = IsConstant(subgraph, input);
      if (constant && !trainability.has_parameter_gradients) continue;
      if (i + 1 == steps && !constant) {
        lifetimes[input] = Lifetime{kNotByPlan, step};
      } else if (constant && only_bias && slot != kBiasSlot) {
        continue;
      } else {
        lifetimes[input] = Lifetime{step, kNotByPlan};
      }
    }
    for (int32_t output : op.outputs) {
      auto found = lifetimes.find(output);
      if (found != lifetimes.end()) found->second.last = step;
    }
  }

  plan->first_op = selection.first_op;
  plan->alloc.assign(steps, {});
  plan->free.assign(steps, {});
  // With no backward step the graph outputs' "free at step 0" has no slot to go to.
  for (const auto& item : lifetimes) {
    const Lifetime& life = item.second;
    if (life.first >= 0 && static_cast<size_t>(life.first) < steps) {
      plan->alloc[static_cast<size_t>(life.first)].push_back(item.first);
    }
    if (life.last >= 0 && static_cast<size_t>(life.last) < steps) {
      plan->free[static_cast<size_t>(life.last)].push_back(item.first);
    }
  }
  return Status::Ok();
}

}  // namespace trainscope
