// SPDX-License-Identifier: Apache-2.0
//
// Trainability: which operators run backward, which of them compute parameter gradients, and
// how large those gradients are, following onert-micro's runBackward loop and execution-plan
// creator (research/onert-micro-training.md §6.1, §6.2, §9.4, §10.3).
//
// All results are plain values computed from a Subgraph; nothing here keeps references.
//
//   TrainabilityConfig config;
//   config.num_train_layers = 2;                       // train the last two operators
//   BackwardSelection selection = SelectBackwardRange(graph.main(), config);
//   for (const ParameterGradient& p : ListParameterGradients(graph.main(), selection))
//     printf("op %u tensor %d: %zu gradient bytes\n", p.op_index, p.tensor, p.gradient_bytes());
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "engine/model/graph.h"

namespace trainscope {

struct TrainabilityConfig {
  uint32_t num_train_layers = 0;           // onert-micro num_of_train_layers, 0 = all ops
  std::map<uint16_t, TrainRank> op_ranks;  // train-config entries; non-empty overrides the above

  bool operator==(const TrainabilityConfig& other) const {
    return num_train_layers == other.num_train_layers && op_ranks == other.op_ranks;
  }
  bool operator!=(const TrainabilityConfig& other) const { return !(*this == other); }
};

inline constexpr uint32_t kNoBackwardStep = std::numeric_limits<uint32_t>::max();

struct OpTrainability {
  bool in_backward_range = false;
  // runBackward's is_trainable_layer: every op in range when no op ranks are given, otherwise
  // exactly the listed ops.
  bool trainable = false;
  TrainRank rank = TrainRank::kAll;          // kAll unless the op is listed with another rank
  bool is_last_layer = false;                // the op computes no input gradient
  uint32_t backward_step = kNoBackwardStep;  // i = n-1-k inside the range
  // The backward plan allocates gradients for the op's constant inputs: FULLY_CONNECTED,
  // CONV_2D and GRU in range when no op ranks are given, otherwise exactly the listed ops.
  bool has_parameter_gradients = false;
};

struct BackwardSelection {
  uint32_t first_op = 0;            // lowest operator index that runs backward
  uint32_t num_train_layers = 0;    // backward steps; first_op + num_train_layers == n
  bool uses_op_ranks = false;       // the selection came from op_ranks (a train-config file)
  std::vector<OpTrainability> ops;  // by operator index
};

// Exactly onert-micro's selection (§6.1): without op ranks the last num_train_layers operators
// (all when 0 or larger than n); with op ranks, every operator from the lowest listed index to
// the end. Entries whose op index is >= n are ignored here (ValidateTrainabilityConfig reports
// them); onert-micro would index past its operator table.
BackwardSelection SelectBackwardRange(const Subgraph& subgraph, const TrainabilityConfig& config);

// kInvalidArgument when an op index is out of range or a rank is not one of the four codes.
Status ValidateTrainabilityConfig(const Subgraph& subgraph, const TrainabilityConfig& config);

// FULLY_CONNECTED, CONV_2D and GRU: the ops whose constant inputs onert-micro trains when no
// train-config is given.
bool HasOnertTrainableWeights(int32_t opcode);
// The operators onert-micro can run backward (its train-kernel registry: KernelsToTrain.lst plus
// GRU and STRIDED_SLICE); memory reports and the difference notes warn about any other.
bool HasOnertBackwardKernel(int32_t opcode);
// The float operators onert-micro runs forward (its kernel list, KernelsToBuild.lst, without the
// integer-only and control-flow entries); the custom BroadcastTo is not a builtin code and is
// left out.
bool HasOnertForwardKernel(int32_t opcode);
// The same set as a list, for tables of every operator.
const int32_t* OnertForwardOpcodes(size_t* count);

// One trainable parameter tensor (a constant FLOAT32 input of an op with parameter gradients).
// For UP_1_2_PART / LOWER_1_2_PART on the weights (input 1) of FULLY_CONNECTED and CONV_2D only
// rows of dim 0 train: [0, d0/2) and [d0/2, d0). The gradient buffer onert-micro allocates has
// d0/2 rows for both halves, so for an odd d0 the lower half has one row more than its buffer;
// both numbers are exposed and memory accounting uses the allocated one.
struct ParameterGradient {
  uint32_t op_index = 0;
  uint32_t input_slot = 0;  // position in the operator's inputs (2 = bias of FC/CONV_2D)
  int32_t tensor = -1;
  bool half_rank = false;       // the row rule above applies
  uint32_t rows = 1;            // d0 of the tensor (1 for a scalar)
  uint32_t row_begin = 0;       // first row whose gradient is computed
  uint32_t row_end = 1;         // one past the last such row
  uint32_t allocated_rows = 1;  // rows of onert-micro's gradient buffer
  size_t row_bytes = 0;         // bytes of one row

  size_t gradient_bytes() const { return allocated_rows * row_bytes; }        // onert-micro
  size_t trained_bytes() const { return (row_end - row_begin) * row_bytes; }  // correct rows
};

// Parameters in operator order, then input order.
std::vector<ParameterGradient> ListParameterGradients(const Subgraph& subgraph,
                                                      const BackwardSelection& selection);

// Bytes onert-micro allocates for the gradient of `tensor` in the backward storage: the tensor's
// size, or d0/2 rows of it when a listed UP/LOWER rank halves it (the dynamic shape that
// OMDynamicShapesHandler stores for input 1 of FULLY_CONNECTED / CONV_2D). 0 for a bad index.
size_t GradientBufferBytes(const Subgraph& subgraph, const BackwardSelection& selection,
                           int32_t tensor);
// The same for every tensor at once, indexed by tensor, in one pass over the operators.
std::vector<size_t> GradientBufferBytesByTensor(const Subgraph& subgraph,
                                                const BackwardSelection& selection);

}  // namespace trainscope
