// SPDX-License-Identifier: Apache-2.0
//
// BuildTrainStepTimeline: the buffers one train step really allocates, as a MemoryTimeline. It is
// the one plan behind every memory figure: the Trainer runs in it, and `memory`, `report`, `fit`,
// the layers panel and the memory view account the same timeline, so they agree to the byte.
//
// It starts from onert-micro's plans (BuildTrainingTimeline) and adjusts them to the kernels that
// execute the step:
//  - kTrainScope (what the Trainer executes): each backward kernel's scratch
//    (BackwardScratchFloats) as a temporary of its step; forward values a backward kernel reads
//    kept until that step where onert-micro frees them earlier; half-rank weight gradients wide
//    enough for every trained row. Each adjustment is named in timeline->warnings.
//  - kOnertMicro: onert-micro's allocations as they are, its SOFTMAX Jacobian row included: what
//    a board running onert-micro itself would hold, shown beside the TrainScope figure.
//
//   MemoryTimeline timeline;
//   TrainStepOptions options;
//   options.optimizer = OptimizerKind::kAdam;
//   TS_RETURN_IF_ERROR(BuildTrainStepTimeline(graph.main(), selection, options, &timeline));
#pragma once

#include <cstdint>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/memory/memory_timeline.h"
#include "engine/model/graph.h"
#include "engine/plan/trainability.h"

namespace trainscope {

enum class StepModel : uint8_t {
  kTrainScope = 0,  // the Trainer's step: the numbers every view and command shows
  kOnertMicro = 1,  // onert-micro's own step, for comparison with a board running it
};
const char* StepModelName(StepModel model);  // "trainscope", "onert-micro"

struct TrainStepOptions {
  OptimizerKind optimizer = OptimizerKind::kSgd;
  uint32_t batch_size = 1;  // must be >= 1
  bool keep_input = false;
  StepModel model = StepModel::kTrainScope;
};

// kUnsupported (naming the operator and tensor) when a backward kernel reads a forward value
// that no plan allocates.
Status BuildTrainStepTimeline(const Subgraph& subgraph, const BackwardSelection& selection,
                              const TrainStepOptions& options, MemoryTimeline* timeline);

}  // namespace trainscope
