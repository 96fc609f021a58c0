// SPDX-License-Identifier: Apache-2.0
#include "engine/plan/trainability.h"

#include <algorithm>
#include <iterator>

namespace trainscope {
namespace {

constexpr uint32_t kWeightsSlot = 1;
constexpr uint32_t kBiasSlot = 2;

bool IsHalfRank(TrainRank rank) {
  return rank == TrainRank::kUpperHalf || rank == TrainRank::kLowerHalf;
}

bool HalvesWeights(const Operator& op, const OpTrainability& trainability, bool uses_op_ranks) {
  return uses_op_ranks && trainability.trainable && IsHalfRank(trainability.rank) &&
         (op.opcode == op::kFullyConnected || op.opcode == op::kConv2D);
}

// GRU has a bias for its input product (input 2) and one for its hidden product (input 4).
bool IsBiasSlot(const Operator& op, size_t slot) {
  return slot == kBiasSlot || (op.opcode == op::kGru && slot == 4);
}

uint32_t LeadingRows(const Tensor& tensor) {
  return tensor.shape.empty() ? 1u : static_cast<uint32_t>(std::max<int32_t>(tensor.shape[0], 0));
}

}  // namespace

bool HasOnertBackwardKernel(int32_t opcode) {
  switch (opcode) {
    case op::kFullyConnected:
    case op::kConv2D:
    case op::kMaxPool2D:
    case op::kReshape:
    case op::kSoftmax:
    case op::kStridedSlice:
    case op::kGru:
      return true;
    default:
      return false;
  }
}

namespace {

constexpr int32_t kOnertForwardOpcodes[] = {
    op::kAbs,
    op::kAdd,
    op::kAddN,
    op::kArgMax,
    op::kArgMin,
    op::kAveragePool2D,
    op::kBatchToSpaceNd,
    op::kCast,
    op::kCeil,
    op::kConcatenation,
    op::kConv2D,
    op::kCos,
    op::kCumsum,
    op::kDepthToSpace,
    op::kDepthwiseConv2D,
    op::kDiv,
    op::kElu,
    op::kEqual,
    op::kExp,
    op::kExpandDims,
    op::kFill,
    op::kFloor,
    op::kFloorDiv,
    op::kFloorMod,
    op::kFullyConnected,
    op::kGather,
    op::kGatherNd,
    op::kGelu,
    op::kGreater,
    op::kGreaterEqual,
    op::kGru,
    op::kHardSwish,
    op::kL2Normalization,
    op::kLeakyRelu,
    op::kLess,
    op::kLessEqual,
    op::kLog,
    op::kLogSoftmax,
    op::kLogicalAnd,
    op::kLogicalNot,
    op::kLogicalOr,
    op::kLogistic,
    op::kMaxPool2D,
    op::kMaximum,
    op::kMean,
    op::kMinimum,
    op::kMirrorPad,
    op::kMul,
    op::kNeg,
    op::kNotEqual,
    op::kPack,
    op::kPad,
    op::kPadV2,
    op::kPrelu,
    op::kReduceMax,
    op::kReduceMin,
    op::kReduceProd,
    op::kRelu,
    op::kRelu6,
    op::kReshape,
    op::kResizeBilinear,
    op::kResizeNearestNeighbor,
    op::kRound,
    op::kRsqrt,
    op::kSelectV2,
    op::kSin,
    op::kSlice,
    op::kSoftmax,
    op::kSpaceToBatchNd,
    op::kSpaceToDepth,
    op::kSplit,
    op::kSplitV,
    op::kSqrt,
    op::kSquare,
    op::kSquaredDifference,
    op::kSqueeze,
    op::kStridedSlice,
    op::kSub,
    op::kSum,
    op::kTanh,
    op::kTranspose,
    op::kTransposeConv,
    op::kUnidirectionalSequenceLstm,
    op::kUnpack,
    op::kZerosLike,
};

}  // namespace

bool HasOnertForwardKernel(int32_t opcode) {
  return std::find(std::begin(kOnertForwardOpcodes), std::end(kOnertForwardOpcodes), opcode) !=
         std::end(kOnertForwardOpcodes);
}

const int32_t* OnertForwardOpcodes(size_t* count) {
  *count = std::size(kOnertForwardOpcodes);
  return kOnertForwardOpcodes;
}

bool HasOnertTrainableWeights(int32_t opcode) {
  return opcode == op::kFullyConnected || opcode == op::kConv2D || opcode == op::kGru;
}

BackwardSelection SelectBackwardRange(const Subgraph& subgraph, const TrainabilityConfig& config) {
  const uint32_t n = static_cast<uint32_t>(subgraph.operators.size());
  BackwardSelection selection;
  selection.uses_op_ranks = !config.op_ranks.empty();
  if (selection.uses_op_ranks) {
    uint32_t lowest = n;
    for (const auto& entry : config.op_ranks) {
      if (entry.first < n) lowest = std::min<uint32_t>(lowest, entry.first);
    }
    selection.first_op = lowest;
  } else {
    const uint32_t layers = config.num_train_layers == 0 ? n : std::min(n, config.num_train_layers);
    selection.first_op = n - layers;
  }
  selection.num_train_layers = n - selection.first_op;

  selection.ops.resize(n);
  for (uint32_t k = selection.first_op; k < n; ++k) {
    OpTrainability& op = selection.ops[k];
    op.in_backward_range = true;
    op.backward_step = n - 1 - k;
    op.is_last_layer = k == selection.first_op;
    if (selection.uses_op_ranks) {
      const auto found = config.op_ranks.find(static_cast<uint16_t>(k));
      op.trainable = found != config.op_ranks.end();
      if (op.trainable) op.rank = found->second;
      op.has_parameter_gradients = op.trainable;
    } else {
      op.trainable = true;
      op.has_parameter_gradients = HasOnertTrainableWeights(subgraph.operators[k].opcode);
    }
  }
  return selection;
}

Status ValidateTrainabilityConfig(const Subgraph& subgraph, const TrainabilityConfig& config) {
  const size_t n = subgraph.operators.size();
  for (const auto& entry : config.op_ranks) {
    if (entry.first >= n) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "trainability: operator %u is listed but the subgraph has %zu "
                           "operators",
                           static_cast<unsigned>(entry.first), n);
    }
    const uint8_t code = static_cast<uint8_t>(entry.second);
    if (code >= kTrainRankCount) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "trainability: operator %u has rank %u; valid ranks are 0..%u",
                           static_cast<unsigned>(entry.first), static_cast<unsigned>(code),
                           static_cast<unsigned>(kTrainRankCount - 1));
    }
  }
  return Status::Ok();
}

std::vector<ParameterGradient> ListParameterGradients(const Subgraph& subgraph,
                                                      const BackwardSelection& selection) {
  std::vector<ParameterGradient> parameters;
  const size_t n = std::min(subgraph.operators.size(), selection.ops.size());
  for (size_t k = 0; k < n; ++k) {
    const OpTrainability& trainability = selection.ops[k];
    if (!trainability.has_parameter_gradients) continue;
    const Operator& op = subgraph.operators[k];
    const bool only_bias = selection.uses_op_ranks && trainability.rank == TrainRank::kOnlyBias;
    for (size_t slot = 0; slot < op.inputs.size(); ++slot) {
      const int32_t index = op.inputs[slot];
      if (index < 0 || static_cast<size_t>(index) >= subgraph.tensors.size()) continue;
      const Tensor& tensor = subgraph.tensors[static_cast<size_t>(index)];
      if (!tensor.constant || tensor.type != ElementType::kFloat32) continue;
      if (only_bias && !IsBiasSlot(op, slot)) continue;

      ParameterGradient parameter;
      parameter.op_index = static_cast<uint32_t>(k);
      parameter.input_slot = static_cast<uint32_t>(slot);
      parameter.tensor = index;
      parameter.rows = LeadingRows(tensor);
      parameter.row_bytes = parameter.rows == 0 ? 0 : tensor.bytes / parameter.rows;
      parameter.row_begin = 0;
      parameter.row_end = parameter.rows;
      parameter.allocated_rows = parameter.rows;
      if (slot == kWeightsSlot && HalvesWeights(op, trainability, selection.uses_op_ranks)) {
        const uint32_t half = parameter.rows / 2;
        parameter.half_rank = true;
        parameter.allocated_rows = half;
        if (trainability.rank == TrainRank::kUpperHalf) {
          parameter.row_end = half;
        } else {
          parameter.row_begin = half;
        }
      }
      parameters.push_back(parameter);
    }
  }
  return parameters;
}

size_t GradientBufferBytes(const Subgraph& subgraph, const BackwardSelection& selection,
                           int32_t tensor) {
  if (tensor < 0 || static_cast<size_t>(tensor) >= subgraph.tensors.size()) return 0;
  return GradientBufferBytesByTensor(subgraph, selection)[static_cast<size_t>(tensor)];
}

std::vector<size_t> GradientBufferBytesByTensor(const Subgraph& subgraph,
                                                const BackwardSelection& selection) {
  std::vector<size_t> bytes(subgraph.tensors.size());
  std::vector<bool> halved(subgraph.tensors.size(), false);
  for (size_t t = 0; t < bytes.size(); ++t) bytes[t] = subgraph.tensors[t].bytes;
  const size_t n = std::min(subgraph.operators.size(), selection.ops.size());
  for (size_t k = 0; k < n; ++k) {
    const Operator& op = subgraph.operators[k];
    if (op.inputs.size() <= kWeightsSlot) continue;
    const int32_t tensor = op.inputs[kWeightsSlot];
    if (tensor < 0 || static_cast<size_t>(tensor) >= bytes.size()) continue;
    const size_t t = static_cast<size_t>(tensor);
    if (halved[t] || !HalvesWeights(op, selection.ops[k], selection.uses_op_ranks)) continue;
    halved[t] = true;
    const uint32_t rows = LeadingRows(subgraph.tensors[t]);
    bytes[t] = rows == 0 ? 0 : (subgraph.tensors[t].bytes / rows) * (rows / 2);
  }
  return bytes;
}

}  // namespace trainscope
