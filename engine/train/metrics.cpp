// SPDX-License-Identifier: Apache-2.0
#include "engine/train/metrics.h"

#include <algorithm>
#include <cmath>

#include "engine/train/losses.h"

namespace trainscope {
namespace {

Status MetricInDouble(MetricKind kind, const float* y, const float* t, size_t n, double* value) {
  double sum = 0.0;
  switch (kind) {
    case MetricKind::kMse:
      for (size_t i = 0; i < n; ++i) {
        const double diff = static_cast<double>(y[i]) - static_cast<double>(t[i]);
        sum += diff * diff;
      }
      *value = sum / static_cast<double>(n);
      return Status::Ok();
    case MetricKind::kMae:
      for (size_t i = 0; i < n; ++i) {
        sum += std::fabs(static_cast<double>(y[i]) - static_cast<double>(t[i]));
      }
      *value = sum / static_cast<double>(n);
      return Status::Ok();
    case MetricKind::kCrossEntropy:
      for (size_t i = 0; i < n; ++i) {
        if (t[i] == 0.0f) continue;
        sum -= static_cast<double>(t[i]) *
               std::log(std::max(static_cast<double>(y[i]), kProbabilityEpsilon));
      }
      *value = sum;
      return Status::Ok();
    case MetricKind::kAccuracy: {
      const int64_t predicted = ArgMax(y, n);
      *value = predicted >= 0 && predicted == ArgMax(t, n) ? 1.0 : 0.0;
      return Status::Ok();
    }
    case MetricKind::kSparseCrossEntropyAccuracy: {
      size_t label = 0;
      Status status = ValidateSparseLabel(static_cast<double>(t[0]), n, &label);
      if (!status.ok()) return status;
      *value = ArgMax(y, n) == static_cast<int64_t>(label) ? 1.0 : 0.0;
      return Status::Ok();
    }
    case MetricKind::kNone:
      break;
  }
  return Status::Error(StatusCode::kInvalidArgument, "metric %d (%s) cannot be computed",
                       static_cast<int>(kind), MetricName(kind));
}

Status CheckArguments(MetricKind kind, const float* output, const float* target, size_t size) {
  if (output == nullptr || target == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "metric %s: output or target is null",
                         MetricName(kind));
  }
  if (size == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "metric %s: the output has no elements",
                         MetricName(kind));
  }
  return Status::Ok();
}

}  // namespace

size_t TargetElementCount(MetricKind kind, size_t output_size) {
  return kind == MetricKind::kSparseCrossEntropyAccuracy ? 1 : output_size;
}

int64_t ArgMax(const float* values, size_t size) {
  int64_t best = -1;
  for (size_t i = 0; i < size; ++i) {
    if (std::isnan(values[i])) continue;
    if (best < 0 || values[i] > values[best]) best = static_cast<int64_t>(i);
  }
  return best;
}

Status ComputeMetric(MetricKind kind, const float* output, const float* target, size_t size,
                     float* value) {
  TS_RETURN_IF_ERROR(CheckArguments(kind, output, target, size));
  double result = 0.0;
  Status status = MetricInDouble(kind, output, target, size, &result);
  if (!status.ok()) return status.Prepend(std::string("metric ") + MetricName(kind));
  *value = static_cast<float>(result);
  return Status::Ok();
}

Status ComputeDataSetMetric(MetricKind kind, const float* outputs, const float* targets,
                            size_t output_size, size_t sample_count, float* value) {
  TS_RETURN_IF_ERROR(CheckArguments(kind, outputs, targets, output_size));
  if (sample_count == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "metric %s: the data set has no samples",
                         MetricName(kind));
  }
  const size_t target_stride = TargetElementCount(kind, output_size);
  double sum = 0.0;
  for (size_t s = 0; s < sample_count; ++s) {
    double sample_value = 0.0;
    Status status = MetricInDouble(kind, outputs + s * output_size, targets + s * target_stride,
                                   output_size, &sample_value);
    if (!status.ok()) {
      return status.Prepend(std::string("metric ") + MetricName(kind) + ", sample " +
                            std::to_string(s));
    }
    sum += sample_value;
  }
  *value = static_cast<float>(sum / static_cast<double>(sample_count));
  return Status::Ok();
}

}  // namespace trainscope
