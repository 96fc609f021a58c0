// SPDX-License-Identifier: Apache-2.0
//
// How a board turns a SET_TRAINABILITY command into its next train config, the
// way real firmware would rebuild onert-micro's train-config blob before re-importing:
//
//   SET_OP op rank     op trains with rank (every other trained op keeps its rank)
//   CLEAR_OP op        op stops training; at least one op must keep training
//   LAST_LAYERS n rank exactly the last n ops train (n = 0: all), all with rank
//
// A config given as "last N layers" is first spelled out as explicit op ranks (the ops of that
// range that have onert-micro trainable weights, with rank ALL), so single-op edits keep the
// rest of the trained set. The result is validated against the subgraph; on error `config` is
// left unchanged and the message says why.
//
//   TrainabilityConfig next = current;
//   Status s = ApplyTrainabilityChange(subgraph, change, &next);
#pragma once

#include <string>

#include "engine/core/status.h"
#include "engine/model/graph.h"
#include "engine/plan/trainability.h"
#include "serial/agent/control_state.h"

namespace trainscope {

Status ApplyTrainabilityChange(const Subgraph& subgraph, const TrainabilityChange& change,
                               TrainabilityConfig* config);

// One line for logs: "op 3 trains with ALL", "last 2 ops train with ONLY_BIAS", ...
std::string DescribeTrainabilityChange(const TrainabilityChange& change);

}  // namespace trainscope
