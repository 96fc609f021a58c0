// SPDX-License-Identifier: Apache-2.0
#include "ui/session/trainability.h"

#include <algorithm>

#include "engine/kernels/kernel.h"
#include "engine/memory/memory_report.h"

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

TrainabilityConfig TrainabilityFromTrainedOps(const Subgraph& subgraph,
                                              const std::map<uint16_t, TrainRank>& trained) {
  const size_t op_count = subgraph.operators.size();
  TrainabilityConfig last_n;
  if (trained.empty()) {
    // Nothing trains: only "last 1" over an op without weights says so.
    if (op_count > 0 && !HasOnertTrainableWeights(subgraph.operators.back().opcode)) {
      last_n.num_train_layers = 1;
    }
    return last_n;
  }
  if (trained.rbegin()->first < op_count) {
    // A per-op list may name ops without weights (onert-micro gives them "gradients" of
    // nothing); only the ops with weights decide what trains.
    auto with_weights = [&subgraph](const std::map<uint16_t, TrainRank>& ops) {
      std::map<uint16_t, TrainRank> kept;
      for (const auto& [op, rank] : ops) {
        if (HasOnertTrainableWeights(subgraph.operators[op].opcode)) kept[op] = rank;
      }
      return kept;
    };
    const size_t n = op_count - trained.begin()->first;
    last_n.num_train_layers = n == op_count ? 0 : static_cast<uint32_t>(n);
    const std::vector<OpTrainability> ops = ResolveTrainability(subgraph, last_n);
    std::map<uint16_t, TrainRank> would_train;
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].has_parameter_gradients) would_train[static_cast<uint16_t>(k)] = ops[k].rank;
    }
    if (with_weights(would_train) == with_weights(trained)) return last_n;
  }
  TrainabilityConfig listed;
  listed.op_ranks = trained;
  return listed;
}

uint32_t BackwardLayerCount(const Subgraph& subgraph, const TrainabilityConfig& config) {
  return SelectBackwardRange(subgraph, config).num_train_layers;
}

std::vector<OpTrainability> ResolveTrainability(const Subgraph& subgraph,
                                                const TrainabilityConfig& config) {
  return SelectBackwardRange(subgraph, config).ops;
}

QString ParameterRole(const Subgraph& subgraph, const Operator& op, size_t input) {
  if (input >= op.inputs.size() || op.inputs[input] < 0 ||
      static_cast<size_t>(op.inputs[input]) >= subgraph.tensors.size() ||
      !subgraph.tensors[static_cast<size_t>(op.inputs[input])].constant) {
    return QString();
  }
  if (IsWeightInput(op, input)) return QStringLiteral("weights");
  if (IsBiasInput(op, input)) return QStringLiteral("bias");
  return QStringLiteral("constant");
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
    if (!ops[k].trainable || !HasOnertTrainableWeights(op.opcode)) continue;
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

TrainabilityCost PlanTrainabilityCost(const Graph& graph, const TrainingOptions& options,
                                      const TrainabilityConfig& config, bool training) {
  TrainabilityCost cost;
  if (graph.subgraphs.empty()) return cost;
  MemoryReportOptions report_options;
  report_options.optimizer = options.optimizer;
  // The batch matters: from the second sample on, a step holds one more set of gradients.
  report_options.batch_size = options.batch_size;
  report_options.inference = !training;
  const TrainabilityConfig planned = training ? config : TrainabilityConfig();
  MemoryReport report;
  if (ComputeMemoryReport(graph, planned, report_options, &report).ok()) {
    cost.heap_peak_bytes = report.heap_peak_bytes;
    cost.arena_bytes = report.arena_bytes;
    cost.planned = true;
  }
  cost.trained_params =
      TrainedParameterCount(graph.main(), ResolveTrainability(graph.main(), planned));
  return cost;
}

}  // namespace trainscope
