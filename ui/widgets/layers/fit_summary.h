// SPDX-License-Identifier: Apache-2.0
//
// The widget-free half of the layers panel's "Does it fit?": runs FindBestFit (and, when asked,
// ComputeFitCurve) with the session's optimizer and batch, and words the outcome. Everything is
// a value: RunFitSearch copies nothing it keeps, so a worker thread can call it with its own copy
// of the graph while the GUI goes on.
//
//   const FitRun run = RunFitSearch(graph, 64 * 1024, session_options, /*with_curve=*/true);
//   label->setText(FitSummaryText(run));
//   if (run.status.ok() && run.result.fits) panel_pending = run.result.best.config;
#pragma once

#include <QString>

#include <cstdint>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/memory/fit_search.h"
#include "engine/model/graph.h"

namespace trainscope {

struct FitRun {
  Status status;  // a search error (no candidate operator, bad options); `result` is then empty
  uint64_t budget_bytes = 0;
  OptimizerKind optimizer = OptimizerKind::kSgd;
  uint32_t batch_size = 1;
  FitResult result;
  bool has_curve = false;  // the curve was asked for and computed
  FitCurve curve;
};

// The search options a session with `training` runs with: its optimizer and batch size.
FitOptions FitOptionsForTraining(const TrainingOptions& training);

FitRun RunFitSearch(const Graph& graph, uint64_t budget_bytes, const TrainingOptions& training,
                    bool with_curve);

// "op 3 ALL, op 5 ONLY_BIAS".
QString FitConfigurationText(const FitConfiguration& configuration);

// The answer ("Fits: ... trained with a heap peak of ..."), or why nothing fits, naming the
// smallest feasible budget, or the search error.
QString FitSummaryText(const FitRun& run);

// The size of the search space and the time it took: "exact search over 1,024 configurations
// (512 after pruning), 40 planned in 12.3 ms".
QString FitSearchStatsText(const FitSearchStats& stats);

}  // namespace trainscope
