// SPDX-License-Identifier: Apache-2.0
//
// Which operators train, resolved exactly as onert-micro's runBackward decides it (training
// brief §6.1): with an empty rank map, the last `last_n` operators (0 = all) run backward with
// rank ALL; a non-empty rank map overrides `last_n`, backward then runs from the smallest listed
// operator to the end, and only the listed operators update their weights.
//
//   TrainabilityConfig config;
//   config.ranks[3] = TrainRank::kOnlyBias;
//   std::vector<OpTrainability> ops = ResolveTrainability(graph.main(), config);
//   if (ops[3].trainable) ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "engine/core/events.h"
#include "engine/model/graph.h"

namespace trainscope {

struct TrainabilityConfig {
  uint32_t last_n = 0;                  // onert-micro's num_of_train_layers; 0 = all
  std::map<uint16_t, TrainRank> ranks;  // the train-config file: op index -> rank

  bool operator==(const TrainabilityConfig& other) const {
    return last_n == other.last_n && ranks == other.ranks;
  }
  bool operator!=(const TrainabilityConfig& other) const { return !(*this == other); }
};

struct OpTrainability {
  bool runs_backward = false;  // inside the backward loop (gradients flow through it)
  bool trainable = false;      // its weights get gradients (onert-micro's is_trainable_layer)
  TrainRank rank = TrainRank::kAll;
  bool is_last_layer = false;  // first op of the backward range: computes no input gradient
  uint32_t backward_step = 0;  // i = n-1-k, meaningful when runs_backward
};

// Operators whose backward kernels own weights in onert-micro (FULLY_CONNECTED, CONV_2D, GRU).
bool HasTrainableWeights(int32_t opcode);

// One entry per operator of `subgraph`. Rank-map entries beyond the operator count are ignored.
std::vector<OpTrainability> ResolveTrainability(const Subgraph& subgraph,
                                                const TrainabilityConfig& config);

// Number of backward steps (onert-micro's num_train_layers).
uint32_t BackwardLayerCount(size_t op_count, const TrainabilityConfig& config);

// Elements of the constant FLOAT32 inputs of one operator (its parameters).
size_t OperatorParameterCount(const Subgraph& subgraph, size_t op_index);

// Parameters that receive updates: weights limited by the rank (half of dim 0 for UP/LOWER, none
// for ONLY_BIAS) plus the full bias, for every trainable operator with weights.
size_t TrainedParameterCount(const Subgraph& subgraph, const std::vector<OpTrainability>& ops);

}  // namespace trainscope
