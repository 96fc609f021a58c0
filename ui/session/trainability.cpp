// SPDX-License-Identifier: Apache-2.0
#include "ui/session/trainability.h"

#include <algorithm>

namespace trainscope {
namespace {

const Tensor* ConstantFloatInput(const Subgraph& subgraph, const Operator& op, size_t slot) {
  if (slot >= op.inputs.size()) return nullptr;
  const int32_t index = op.inputs[slot];
  if (index < 0 || static_cast<size_t>(index) >= subgraph.tensors.size()) return nullptr;
  const Tensor& tensor = subgraph.tensors[static_cast<size_t>(index)];
  if (!tensor.constant || tensor.type != ElementType::kFloat32) return nullptr;
  return &tensor;
}

size_t TrainedWeightCount(const Tensor& weights, TrainRank rank) {
  const size_t total = weights.element_count();
  if (rank == TrainRank::kAll) return total;
  if (rank == TrainRank::kOnlyBias) return 0;
  if (weights.shape.empty() || weights.shape[0] <= 0) return 0;
  const size_t rows = static_cast<size_t>(weights.shape[0]);
  const size_t per_row = total / rows;
  const size_t upper_rows = rows / 2;
  return (rank == TrainRank::kUpperHalf ? upper_rows : rows - upper_rows) * per_row;
}

}  // namespace

bool HasTrainableWeights(int32_t opcode) {
  return opcode == op::kFullyConnected || opcode == op::kConv2D || opcode == op::kGru;
}

uint32_t BackwardLayerCount(size_t op_count, const TrainabilityConfig& config) {
  const auto n = static_cast<uint32_t>(std::min<size_t>(op_count, UINT32_MAX));
  uint32_t first = n;
  for (const auto& [op_index, rank] : config.ranks) {
    if (op_index < n) first = std::min<uint32_t>(first, op_index);
  }
  if (first < n) return n - first;
  if (!config.ranks.empty()) return 0;  // every listed op is out of range: nothing trains
  return config.last_n == 0 ? n : std::min(n, config.last_n);
}

std::vector<OpTrainability> ResolveTrainability(const Subgraph& subgraph,
                                                const TrainabilityConfig& config) {
  const size_t n = subgraph.operators.size();
  std::vector<OpTrainability> ops(n);
  const uint32_t layers = BackwardLayerCount(n, config);
  const bool explicit_ranks = layers > 0 && !config.ranks.empty();
  for (uint32_t i = 0; i < layers; ++i) {
    const size_t k = n - 1 - i;
    OpTrainability& entry = ops[k];
    entry.runs_backward = true;
    entry.backward_step = i;
    entry.is_last_layer = (i + 1 == layers);
    if (explicit_ranks) {
      auto it = config.ranks.find(static_cast<uint16_t>(k));
      entry.trainable = it != config.ranks.end();
      if (entry.trainable) entry.rank = it->second;
    } else {
      entry.trainable = true;
    }
  }
  return ops;
}

size_t OperatorParameterCount(const Subgraph& subgraph, size_t op_index) {
  if (op_index >= subgraph.operators.size()) return 0;
  const Operator& op = subgraph.operators[op_index];
  size_t count = 0;
  for (size_t slot = 0; slot < op.inputs.size(); ++slot) {
    if (const Tensor* tensor = ConstantFloatInput(subgraph, op, slot)) {
      count += tensor->element_count();
    }
  }
  return count;
}

size_t TrainedParameterCount(const Subgraph& subgraph, const std::vector<OpTrainability>& ops) {
  size_t count = 0;
  const size_t n = std::min(ops.size(), subgraph.operators.size());
  for (size_t k = 0; k < n; ++k) {
    const Operator& op = subgraph.operators[k];
    if (!ops[k].trainable || !HasTrainableWeights(op.opcode)) continue;
    if (op.opcode == op::kGru) {  // several weight tensors; ranks only split FC and CONV_2D
      count += OperatorParameterCount(subgraph, k);
      continue;
    }
    if (const Tensor* weights = ConstantFloatInput(subgraph, op, 1)) {
      count += TrainedWeightCount(*weights, ops[k].rank);
    }
    if (const Tensor* bias = ConstantFloatInput(subgraph, op, 2)) count += bias->element_count();
  }
  return count;
}

}  // namespace trainscope
