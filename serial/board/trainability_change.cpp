// SPDX-License-Identifier: Apache-2.0
#include "serial/board/trainability_change.h"

#include <string>

namespace trainscope {
namespace {

std::map<uint16_t, TrainRank> ExplicitRanks(const Subgraph& subgraph,
                                            const TrainabilityConfig& config) {
  if (!config.op_ranks.empty()) return config.op_ranks;
  std::map<uint16_t, TrainRank> ranks;
  const BackwardSelection selection = SelectBackwardRange(subgraph, config);
  for (size_t k = 0; k < selection.ops.size() && k <= 0xFFFF; ++k) {
    if (selection.ops[k].has_parameter_gradients) ranks[static_cast<uint16_t>(k)] = TrainRank::kAll;
  }
  return ranks;
}

}  // namespace

Status ApplyTrainabilityChange(const Subgraph& subgraph, const TrainabilityChange& change,
                               TrainabilityConfig* config) {
  const size_t op_count = subgraph.operators.size();
  const bool names_op = change.mode != wire::TrainabilityMode::kLastLayers;
  if (names_op && (change.value >= op_count || change.value > 0xFFFF)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "trainability: operator %u does not exist (the model has %zu)",
                         static_cast<unsigned>(change.value), op_count);
  }
  if (static_cast<uint8_t>(change.rank) >= kTrainRankCount) {
    return Status::Error(StatusCode::kInvalidArgument, "trainability: rank %u is not valid",
                         static_cast<unsigned>(change.rank));
  }
  TrainabilityConfig next;
  next.num_train_layers = config->num_train_layers;
  const uint16_t op = static_cast<uint16_t>(change.value);
  switch (change.mode) {
    case wire::TrainabilityMode::kSetOp:
      next.op_ranks = ExplicitRanks(subgraph, *config);
      next.op_ranks[op] = change.rank;
      break;
    case wire::TrainabilityMode::kClearOp:
      next.op_ranks = ExplicitRanks(subgraph, *config);
      next.op_ranks.erase(op);
      if (next.op_ranks.empty()) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "trainability: operator %u is the last one training; at least one "
                             "operator must train",
                             static_cast<unsigned>(change.value));
      }
      break;
    case wire::TrainabilityMode::kLastLayers: {
      if (change.value > op_count) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "trainability: cannot train the last %u of %zu operators",
                             static_cast<unsigned>(change.value), op_count);
      }
      next.num_train_layers = change.value;
      if (change.rank == TrainRank::kAll) break;  // onert-micro's num_of_train_layers as is
      const size_t layers = change.value == 0 ? op_count : change.value;
      for (size_t k = op_count - layers; k < op_count && k <= 0xFFFF; ++k) {
        next.op_ranks[static_cast<uint16_t>(k)] = change.rank;
      }
      break;
    }
  }
  TS_RETURN_IF_ERROR(ValidateTrainabilityConfig(subgraph, next));
  *config = next;
  return Status::Ok();
}

std::string DescribeTrainabilityChange(const TrainabilityChange& change) {
  const std::string rank = TrainRankName(change.rank);
  switch (change.mode) {
    case wire::TrainabilityMode::kSetOp:
      return "op " + std::to_string(change.value) + " trains with " + rank;
    case wire::TrainabilityMode::kClearOp:
      return "op " + std::to_string(change.value) + " stops training";
    case wire::TrainabilityMode::kLastLayers:
      if (change.value == 0) return "all ops train with " + rank;
      return "the last " + std::to_string(change.value) + " ops train with " + rank;
  }
  return "unknown change";
}

}  // namespace trainscope
