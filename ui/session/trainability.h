// SPDX-License-Identifier: Apache-2.0
//
// The GUI's view of trainability. The rules themselves are the engine's (engine/plan/
// trainability.h: onert-micro's runBackward selection, §6.1); this adds what the views need on
// top: per-op results in one call and parameter counts for the layers panel.
//
//   TrainabilityConfig config;
//   config.op_ranks[3] = TrainRank::kOnlyBias;
//   std::vector<OpTrainability> ops = ResolveTrainability(graph.main(), config);
//   if (ops[3].trainable) ...
#pragma once

#include <QString>

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "engine/core/training_options.h"
#include "engine/model/graph.h"
#include "engine/plan/trainability.h"

namespace trainscope {

// One entry per operator of `subgraph` (SelectBackwardRange's per-op results).
std::vector<OpTrainability> ResolveTrainability(const Subgraph& subgraph,
                                                const TrainabilityConfig& config);

// Number of backward steps (onert-micro's num_train_layers).
uint32_t BackwardLayerCount(const Subgraph& subgraph, const TrainabilityConfig& config);

// A configuration that trains exactly the weights of `trained` (op index -> rank, the ops whose
// parameters get gradients, as a board or a recording announces them), in the form a user would
// have written: "last N layers" when the smallest such N trains the same weights (0 when N is
// every operator), else the announced per-op list. An announcement does not say how far the
// backward pass ran below the lowest trained op, so a "last N" that reached further through ops
// without weights comes back as the smallest N: the same weights train.
TrainabilityConfig TrainabilityFromTrainedOps(const Subgraph& subgraph,
                                              const std::map<uint16_t, TrainRank>& trained);

// What input `input` of `op` is to a user: "weights" or "bias" as its kernel registration trains
// it (FULLY_CONNECTED, CONV_2D, GRU's two pairs ...), "constant" for any other constant, empty
// for a computed tensor. The graph's tooltips and the Tensor values chooser say the same.
QString ParameterRole(const Subgraph& subgraph, const Operator& op, size_t input);

// Elements of the constant FLOAT32 inputs of one operator (its parameters).
size_t OperatorParameterCount(const Subgraph& subgraph, size_t op_index);

// Parameters that receive updates: weights limited by the rank (half of dim 0 for UP/LOWER, none
// for ONLY_BIAS) plus the full bias, for every trainable operator with weights.
size_t TrainedParameterCount(const Subgraph& subgraph, const std::vector<OpTrainability>& ops);

// What one trainability choice costs, as every view shows it (the Layers panel's preview, the
// experiment table, the state dump): ComputeMemoryReport's heap peak and arena for the optimizer
// and batch of `options`, and the trained parameter count. `training` false plans one inference
// (a read-only model) and counts every layer's parameters. `planned` is false when the plan
// failed (the byte figures are then 0).
struct TrainabilityCost {
  uint64_t heap_peak_bytes = 0;
  uint64_t arena_bytes = 0;
  uint64_t trained_params = 0;
  bool planned = false;
};
TrainabilityCost PlanTrainabilityCost(const Graph& graph, const TrainingOptions& options,
                                      const TrainabilityConfig& config, bool training = true);

}  // namespace trainscope
