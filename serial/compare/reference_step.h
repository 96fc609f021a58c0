// SPDX-License-Identifier: Apache-2.0
//
// RunReferenceStep: the reference engine's run of one optimizer step of a board, read at the
// points of a ProbePlan. It starts from the board's own state at the start of that step (its
// parameters and Adam moments, as fetched), so a divergence earlier in training does not hide
// one in this step, and trains the same samples: step S (counted from 1, as OPTIMIZER_STEP
// counts) takes the batch at ((S - 1) mod steps per epoch) x batch size, as a board that trains
// its data in order does.
//
//   std::vector<ProbeReading> reference;
//   Status s = RunReferenceStep(&model, setup, data, step, plan, board_start, &reference);
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/exec/trainer.h"
#include "engine/model/model.h"
#include "engine/plan/trainability.h"
#include "serial/compare/probe_plan.h"

namespace trainscope {

// The first sample of optimizer step `step` (from 1) of a board training `data` in order.
uint32_t FirstSampleOfStep(uint32_t step, uint32_t sample_count, uint32_t batch_size);

// `start` holds the board's readings at the step's start (plan.state_reads); a value that was
// not held there is an error, as is one whose size differs from the reference's tensor.
// `readings` receives one entry per read of every other point of the plan, in plan order.
Status RunReferenceStep(Model* model, const TrainingOptions& options,
                        const TrainabilityConfig& trainability, const DataSet& data, uint32_t step,
                        const ProbePlan& plan, const std::vector<ProbeReading>& start,
                        std::vector<ProbeReading>* readings);

}  // namespace trainscope
