// SPDX-License-Identifier: Apache-2.0
#include "serial/compare/probe_plan.h"

#include "engine/kernels/kernel.h"

namespace trainscope {

const char* ProbeMomentName(ProbeMoment moment) {
  switch (moment) {
    case ProbeMoment::kStepStart:
      return "start";
    case ProbeMoment::kAfterBackwardOp:
      return "backward";
    case ProbeMoment::kAfterUpdate:
      return "update";
  }
  return "?";
}

const std::vector<ProbeRead>& ProbePlan::ReadsAt(const ProbePoint& point) const {
  static const std::vector<ProbeRead> kNone;
  if (point.moment != ProbeMoment::kAfterBackwardOp) return state_reads;
  return point.op_index < op_reads.size() ? op_reads[point.op_index] : kNone;
}

namespace {

bool IsFloat(const Subgraph& subgraph, int32_t tensor) {
  return tensor >= 0 && static_cast<size_t>(tensor) < subgraph.tensors.size() &&
         subgraph.tensors[static_cast<size_t>(tensor)].type == ElementType::kFloat32;
}

std::string ParameterName(const Operator& op, size_t input) {
  if (IsBiasInput(op, input)) return "bias";
  if (IsWeightInput(op, input)) return "weights";
  return "input " + std::to_string(input);
}

std::vector<ProbeRead> ReadsAfterBackwardOf(const Subgraph& subgraph, const Trainer& trainer,
                                            uint32_t op_index) {
  const Operator& op = subgraph.operators[op_index];
  std::vector<ProbeRead> reads;
  auto add = [&](int32_t tensor, TensorAspect aspect, std::string role) {
    if (IsFloat(subgraph, tensor)) reads.push_back({tensor, aspect, op_index, std::move(role)});
  };
  for (size_t o = 0; o < op.outputs.size(); ++o) {
    const std::string name = op.outputs.size() == 1 ? "output" : "output " + std::to_string(o);
    add(op.outputs[o], TensorAspect::kValue, name);
    add(op.outputs[o], TensorAspect::kGradient, name + " gradient");
  }
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const int32_t tensor = op.inputs[i];
    if (!IsFloat(subgraph, tensor)) continue;
    if (subgraph.tensors[static_cast<size_t>(tensor)].constant) {
      bool trained = false;
      for (const ParameterGradient& p : trainer.parameters()) trained |= p.tensor == tensor;
      if (trained) add(tensor, TensorAspect::kGradient, ParameterName(op, i) + " gradient");
      continue;
    }
    add(tensor, TensorAspect::kValue, "input " + std::to_string(i));
    add(tensor, TensorAspect::kGradient, "input " + std::to_string(i) + " gradient");
  }
  return reads;
}

}  // namespace

ProbePlan MakeProbePlan(const Subgraph& subgraph, const Trainer& trainer,
                        const std::set<uint32_t>& ops) {
  ProbePlan plan;
  plan.batch_size = trainer.options().batch_size;
  const BackwardSelection& selection = trainer.selection();
  const bool adam = trainer.options().optimizer == OptimizerKind::kAdam;
  for (const ParameterGradient& p : trainer.parameters()) {
    const Operator& op = subgraph.operators[p.op_index];
    const std::string name = ParameterName(op, p.input_slot);
    plan.state_reads.push_back({p.tensor, TensorAspect::kValue, p.op_index, name});
    if (adam) {
      plan.state_reads.push_back({p.tensor, TensorAspect::kAdamM, p.op_index, name + " Adam m"});
      plan.state_reads.push_back({p.tensor, TensorAspect::kAdamV, p.op_index, name + " Adam v"});
    }
  }
  const uint32_t n = static_cast<uint32_t>(subgraph.operators.size());
  plan.op_reads.resize(n);
  for (uint32_t step = 0; step < selection.num_train_layers; ++step) {
    const uint32_t op = n - 1 - step;
    if (ops.empty() || ops.count(op) != 0) {
      plan.op_reads[op] = ReadsAfterBackwardOf(subgraph, trainer, op);
    }
  }
  plan.points.push_back({ProbeMoment::kStepStart, 0, 0, 0});
  for (uint32_t sample = 0; sample < plan.batch_size; ++sample) {
    for (uint32_t step = 0; step < selection.num_train_layers; ++step) {
      plan.points.push_back({ProbeMoment::kAfterBackwardOp, sample, n - 1 - step, step});
    }
  }
  plan.points.push_back({ProbeMoment::kAfterUpdate, 0, 0, 0});
  return plan;
}

}  // namespace trainscope
