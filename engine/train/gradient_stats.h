// SPDX-License-Identifier: Apache-2.0
//
// Gradient statistics for GradientStatsEvent (engine/core/events.h), computed from one float
// buffer (an accumulated weight gradient, an activation gradient, ...).
//
// NaN and Inf are never dropped silently: they are counted in nan_count / inf_count, and the
// other fields describe the finite values only, so one Inf does not hide what the rest of the
// tensor looks like:
//  - l2       sqrt(Σ g²) over finite values, summed in double;
//  - max_abs  max |g| over finite values (0 when there are none);
//  - mean     Σ g / (number of finite values), in double (0 when there are none);
//  - histogram[GradientHistogramBin(|g|)] += 1 for every finite value (exact zeros land in bin 0).
// The caller fills optimizer_step, op_index and tensor. Every host computes the same event to the
// bit, whatever its vector width (gradient_stats_paths.h).
//
//   GradientStatsEvent stats = ComputeGradientStats(grad.data(), grad.size());
//   stats.tensor = 7;
//   observer->OnGradientStats(stats);
#pragma once

#include <cstddef>

#include "engine/core/events.h"

namespace trainscope {

GradientStatsEvent ComputeGradientStats(const float* values, size_t count);

}  // namespace trainscope
