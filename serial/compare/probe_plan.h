// SPDX-License-Identifier: Apache-2.0
//
// ProbePlan: where in one optimizer step a comparison looks, and what it reads there. The board
// and the reference engine are read from the same plan, so every figure compares the same
// tensor at the same moment:
//   - the step's start (after the previous OPTIMIZER_STEP): every trained parameter and, with
//     Adam, its moments: the state the reference engine starts from;
//   - after each backward operator of each sample (where STEP_BACKWARD_OP pauses a board): the
//     operator's output and input gradients, its parameters' gradients (the batch's sum so far)
//     and the activations it keeps;
//   - after the update (where STEP_BATCH pauses): the updated parameters and moments.
// Every operator of the backward range is a point, since a board steps through each one; the
// `ops` filter only decides where tensors are read.
//
//   ProbePlan plan = MakeProbePlan(model.graph().main(), trainer, {});
//   for (const ProbePoint& point : plan.points) ... plan.ReadsAt(point) ...
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/exec/trainer.h"
#include "engine/model/graph.h"

namespace trainscope {

enum class ProbeMoment : uint8_t { kStepStart, kAfterBackwardOp, kAfterUpdate };
const char* ProbeMomentName(ProbeMoment moment);  // "start", "backward", "update"

struct ProbePoint {
  ProbeMoment moment = ProbeMoment::kStepStart;
  uint32_t sample = 0;         // within the batch (backward points)
  uint32_t op_index = 0;       // backward points
  uint32_t backward_step = 0;  // i = n-1-k
  bool operator==(const ProbePoint& other) const {
    return moment == other.moment && sample == other.sample && op_index == other.op_index;
  }
};

struct ProbeRead {
  int32_t tensor = -1;
  TensorAspect aspect = TensorAspect::kValue;
  uint32_t op_index = 0;  // the operator the tensor is read for
  std::string role;       // "output gradient", "input 0 gradient", "weights gradient", ...
};

struct ProbePlan {
  uint32_t batch_size = 1;
  std::vector<ProbePoint> points;                // in the order the step reaches them
  std::vector<ProbeRead> state_reads;            // at the start and after the update
  std::vector<std::vector<ProbeRead>> op_reads;  // by operator index: after its backward step

  const std::vector<ProbeRead>& ReadsAt(const ProbePoint& point) const;
};

// `ops` empty: every operator of the backward range is read.
ProbePlan MakeProbePlan(const Subgraph& subgraph, const Trainer& trainer,
                        const std::set<uint32_t>& ops);

// One read of one side: the values, or why that side did not hold them.
struct ProbeReading {
  ProbePoint point;
  ProbeRead read;
  bool held = false;
  std::string reason;  // when not held
  TensorCopy copy;
};

}  // namespace trainscope
