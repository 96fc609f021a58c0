// SPDX-License-Identifier: Apache-2.0
#include "engine/plan/onert_differences.h"

namespace trainscope {
namespace {

class Collector {
 public:
  Collector(uint32_t op_index, std::vector<OnertDifference>* out) : op_(op_index), out_(out) {}
  void Add(DifferenceKind kind, std::string text) { out_->push_back({op_, kind, std::move(text)}); }

 private:
  uint32_t op_;
  std::vector<OnertDifference>* out_;
};

void CheckConv(const Operator& op, const OpTrainability& t, Collector* note) {
  const OpOptions& o = op.options;
  if (o.padding == Padding::kSame) {
    note->Add(DifferenceKind::kConvPadding,
              "SAME padding: onert-micro's Conv2D backward ignores padding (VALID only), so its "
              "gradients differ");
  }
  if (t.has_parameter_gradients && t.rank != TrainRank::kOnlyBias &&
      (o.stride_w != 1 || o.stride_h != 1 || o.dilation_w != 1 || o.dilation_h != 1)) {
    note->Add(DifferenceKind::kConvStrideDilation,
              "stride or dilation above 1: onert-micro swaps their roles in the weight gradient");
  }
  if (!t.is_last_layer) {
    note->Add(DifferenceKind::kConvInputGradient,
              "onert-micro's Conv2D input gradient is not a transposed convolution (only the "
              "last output channel survives); layers before this one learn differently");
  }
  if (t.has_parameter_gradients && t.rank == TrainRank::kLowerHalf) {
    note->Add(DifferenceKind::kLowerHalfConv,
              "LOWER_1_2_PART: onert-micro computes the gradient of the upper half of the "
              "filters instead");
  }
}

// research §7.7: onert-micro's GRU backward writes only the two weight gradients.
void CheckGru(const Subgraph& subgraph, const Operator& op, const OpTrainability& t,
              Collector* note) {
  const auto constant_input = [&](size_t slot) {
    return slot < op.inputs.size() && op.inputs[slot] >= 0 &&
           static_cast<size_t>(op.inputs[slot]) < subgraph.tensors.size() &&
           subgraph.tensors[static_cast<size_t>(op.inputs[slot])].constant;
  };
  if (t.has_parameter_gradients && (constant_input(2) || constant_input(4))) {
    note->Add(DifferenceKind::kGruBiasGradient,
              "GRU biases: onert-micro computes no bias gradient but its optimizer still applies "
              "the (uninitialised) gradient buffers, so the board's biases drift");
  }
  if (!t.is_last_layer) {
    note->Add(DifferenceKind::kGruInputGradient,
              "onert-micro's GRU computes no input gradient: layers before it cannot train on a "
              "board (onert-micro stops on a missing buffer); make the GRU the last layer");
  }
  if (t.has_parameter_gradients && t.rank != TrainRank::kOnlyBias && constant_input(5)) {
    note->Add(DifferenceKind::kGruStateGradient,
              "onert-micro zeroes the gradient of the GRU's initial state: it does not train on "
              "a board");
  }
}

}  // namespace

bool ReproducedByOnertMath(DifferenceKind kind) {
  switch (kind) {
    case DifferenceKind::kConvPadding:
    case DifferenceKind::kConvStrideDilation:
    case DifferenceKind::kConvInputGradient:
    case DifferenceKind::kLowerHalfConv:
    case DifferenceKind::kLowerHalfUpdate:
    case DifferenceKind::kOverlappingMaxPool:
    case DifferenceKind::kSoftmaxBeta:
      return true;
    case DifferenceKind::kNoOnertKernel:
    case DifferenceKind::kUnsupportedActivation:
    case DifferenceKind::kNotListedAsserts:
    case DifferenceKind::kGruBiasGradient:
    case DifferenceKind::kGruInputGradient:
    case DifferenceKind::kGruStateGradient:
      return false;
  }
  return false;
}

std::vector<OnertDifference> FindOnertDifferences(const Subgraph& subgraph,
                                                  const BackwardSelection& selection,
                                                  OptimizerKind optimizer) {
  std::vector<OnertDifference> differences;
  for (uint32_t k = selection.first_op; k < subgraph.operators.size() && k < selection.ops.size();
       ++k) {
    const Operator& op = subgraph.operators[k];
    const OpTrainability& t = selection.ops[k];
    if (!t.in_backward_range) continue;
    Collector note(k, &differences);
    if (!HasOnertBackwardKernel(op.opcode)) {
      note.Add(DifferenceKind::kNoOnertKernel,
               std::string(OpcodeName(op.opcode) ? OpcodeName(op.opcode) : "this op") +
                   " has no onert-micro backward kernel: training this far back fails on the "
                   "board");
      continue;
    }
    const bool weighted = op.opcode == op::kFullyConnected || op.opcode == op::kConv2D;
    if (weighted && op.options.activation != Activation::kNone &&
        op.options.activation != Activation::kRelu) {
      note.Add(DifferenceKind::kUnsupportedActivation,
               std::string("fused ") + ActivationName(op.options.activation) +
                   ": onert-micro differentiates only NONE and RELU and fails here");
    }
    if (op.opcode == op::kConv2D) CheckConv(op, t, &note);
    if (op.opcode == op::kGru) CheckGru(subgraph, op, t, &note);
    if (weighted && t.has_parameter_gradients && t.rank == TrainRank::kLowerHalf) {
      note.Add(DifferenceKind::kLowerHalfUpdate,
               optimizer == OptimizerKind::kSgd
                   ? "LOWER_1_2_PART: onert-micro's SGD updates the upper rows with the lower "
                     "half's gradient"
                   : "LOWER_1_2_PART: onert-micro's Adam shifts the update by a row count used "
                     "as an element offset");
    }
    if (weighted && !t.has_parameter_gradients && selection.uses_op_ranks) {
      note.Add(DifferenceKind::kNotListedAsserts,
               "not listed in the train config: onert-micro debug builds stop on an assert here "
               "(release builds pass the gradient through)");
    }
    if (weighted && t.rank == TrainRank::kOnlyBias && t.has_parameter_gradients) {
      note.Add(DifferenceKind::kNotListedAsserts,
               "ONLY_BIAS: onert-micro debug builds stop on an assert here (release builds train "
               "the bias)");
    }
    if (op.opcode == op::kMaxPool2D && !t.is_last_layer &&
        (op.options.stride_w < op.options.filter_w || op.options.stride_h < op.options.filter_h)) {
      note.Add(DifferenceKind::kOverlappingMaxPool,
               "overlapping windows: onert-micro overwrites gradients where windows overlap "
               "instead of adding them");
    }
    if (op.opcode == op::kSoftmax && !t.is_last_layer && op.options.beta != 1.0f) {
      note.Add(DifferenceKind::kSoftmaxBeta,
               "beta is not 1: onert-micro's Softmax backward ignores beta");
    }
  }
  return differences;
}

}  // namespace trainscope
