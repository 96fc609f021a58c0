// SPDX-License-Identifier: Apache-2.0
//
// Evaluation metrics, per sample and averaged over a data set (onert-micro's evaluateMetric:
// the sum of per-sample values divided by the number of samples).
//
// Per sample, with N output values y and targets t:
//  MSE        Σ(y-t)²/N
//  MAE        Σ|y-t|/N
//  CE         -Σ t·ln max(y, ε)   (ε = kProbabilityEpsilon of losses.h; onert-micro adds 1e-31)
//  ACCURACY   1 if argmax(y) == argmax(t) else 0 (the first maximum wins, NaN never wins)
//  SPARSE_CROSS_ENTROPY_ACCURACY   1 if argmax(y) == t[0] else 0; t[0] must be an integer class
//
// Targets per sample: TargetElementCount() values (1 for the sparse accuracy, else N). The data
// set variant steps through targets by that count; onert-micro steps by N for every metric, so a
// board reports a wrong sparse accuracy for more than one sample (we report the correct one).
//
//   float accuracy = 0;
//   TS_RETURN_IF_ERROR(ComputeDataSetMetric(MetricKind::kAccuracy, outputs, targets, 10, 500,
//                                           &accuracy));
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/status.h"
#include "engine/core/training_options.h"

namespace trainscope {

size_t TargetElementCount(MetricKind kind, size_t output_size);

// Index of the largest value, first one on ties, skipping NaN; -1 when every value is NaN or
// size is 0.
int64_t ArgMax(const float* values, size_t size);

// One sample. kNone and undefined kinds fail with kInvalidArgument, as do size 0, null pointers
// and sparse targets that are not an integer in [0, size).
Status ComputeMetric(MetricKind kind, const float* output, const float* target, size_t size,
                     float* value);

// `outputs` holds sample_count * output_size values, `targets` sample_count *
// TargetElementCount(kind, output_size). The mean is accumulated in double.
Status ComputeDataSetMetric(MetricKind kind, const float* outputs, const float* targets,
                            size_t output_size, size_t sample_count, float* value);

}  // namespace trainscope
