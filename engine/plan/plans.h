// SPDX-License-Identifier: Apache-2.0
//
// onert-micro's three execution plans as data (research/onert-micro-training.md §10.1-§10.3):
// for every step, the tensor indices allocated before it and freed after it. They reproduce
// OMExecutionPlanCreator exactly, including its quirks, so memory numbers and the alloc/free
// lists a debugger shows match a board:
//  - lists are sorted by tensor index (onert-micro walks an ordered map of lifetimes);
//  - a forward tensor saved for backward is never freed by the forward plan;
//  - graph outputs are freed in the extra forward slot n, which the forward loop never runs
//    (the graph reset releases them);
//  - the backward free list of step i is applied to the backward AND the forward storage, so it
//    releases op n-1-i's output gradients and its saved output activations; at the last step it
//    also frees the first op's non-constant inputs (never allocated as gradients);
//  - a tensor appearing twice keeps only its last lifetime (no fan-out gradient accumulation).
// Known difference: onert-micro's forward plan wraps n - num_of_train_layers in 16 bits when
// num_of_train_layers > n and then saves nothing; here the clamped range of SelectBackwardRange
// is used for every plan, matching its backward plan and runBackward.
// The in-place optimisation pass (inference only) is not modelled: every op gets its own
// output buffer, which is what onert-micro does in training.
//
//   BackwardSelection selection = SelectBackwardRange(graph.main(), config);
//   ForwardPlan forward;
//   BackwardPlan backward;
//   TS_RETURN_IF_ERROR(BuildTrainingForwardPlan(graph.main(), selection, {}, &forward));
//   TS_RETURN_IF_ERROR(BuildBackwardPlan(graph.main(), selection, &backward));
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/status.h"
#include "engine/model/graph.h"
#include "engine/plan/trainability.h"

namespace trainscope {

struct PlanOptions {
  bool keep_input = false;  // OMConfig::keep_input: graph inputs are never freed by the plan
};

// Indexed by operator k. Graph inputs are not in `alloc`: onert-micro allocates them all
// before op 0 (allocateGraphInputs).
struct ForwardPlan {
  std::vector<std::vector<int32_t>> alloc;  // n slots: allocated before op k runs
  std::vector<std::vector<int32_t>> free;   // n + 1 slots: freed after op k; slot n never runs
};

// Indexed by backward step i, which processes operator n-1-i. The loss gradients of the graph
// outputs are not in `alloc` (the loss handler allocates them); they are freed at step 0.
struct BackwardPlan {
  uint32_t first_op = 0;
  std::vector<std::vector<int32_t>> alloc;  // gradient buffers allocated before step i
  std::vector<std::vector<int32_t>> free;   // freed after step i, in both storages
};

// Every function checks the operator and tensor indices it follows and returns kInvalidModel
// (naming the operator) or kInvalidArgument (a selection for another subgraph) otherwise.
Status BuildInferencePlan(const Subgraph& subgraph, const PlanOptions& options, ForwardPlan* plan);
Status BuildTrainingForwardPlan(const Subgraph& subgraph, const BackwardSelection& selection,
                                const PlanOptions& options, ForwardPlan* plan);
Status BuildBackwardPlan(const Subgraph& subgraph, const BackwardSelection& selection,
                         BackwardPlan* plan);

// The training forward plan's save rules (§10.2), exposed for views that explain them.
bool SavesInputsForBackward(const Subgraph& subgraph, const BackwardSelection& selection,
                            uint32_t op_index);
bool SavesOutputsForBackward(const Subgraph& subgraph, const BackwardSelection& selection,
                             uint32_t op_index);

}  // namespace trainscope
