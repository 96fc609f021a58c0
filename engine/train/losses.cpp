// SPDX-License-Identifier: Apache-2.0
#include "engine/train/losses.h"

#include <algorithm>
#include <cmath>

namespace trainscope {
namespace {

// Clamping keeps the value and the gradient finite; outside [ε, 1] the gradient of the clamped
// point is used (rather than 0) so a vanishing probability still gets pushed back up.
double ClampProbability(double p) {
  return std::max(p, kProbabilityEpsilon);
}
double ClampOpenUnit(double p) {
  return std::min(std::max(p, kProbabilityEpsilon), 1.0 - kProbabilityEpsilon);
}

template <typename T>
double Mse(const T* y, const T* t, size_t n, T* grad) {
  const double scale = 1.0 / static_cast<double>(n);
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double diff = static_cast<double>(y[i]) - static_cast<double>(t[i]);
    sum += diff * diff;
    if (grad != nullptr) grad[i] += static_cast<T>(2.0 * diff * scale);
  }
  return sum * scale;
}

template <typename T>
double Mae(const T* y, const T* t, size_t n, T* grad) {
  const double scale = 1.0 / static_cast<double>(n);
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double diff = static_cast<double>(y[i]) - static_cast<double>(t[i]);
    sum += std::fabs(diff);
    if (grad != nullptr) {
      const double sign = diff > 0.0 ? 1.0 : (diff < 0.0 ? -1.0 : 0.0);
      grad[i] += static_cast<T>(sign * scale);
    }
  }
  return sum * scale;
}

template <typename T>
double CrossEntropy(const T* y, const T* t, size_t n, T* grad) {
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double p = ClampProbability(static_cast<double>(y[i]));
    const double target = static_cast<double>(t[i]);
    // A zero target contributes nothing, even where p is tiny (0 * log is 0, not NaN).
    if (target != 0.0) sum -= target * std::log(p);
    if (grad != nullptr) grad[i] += static_cast<T>(-target / p);
  }
  return sum;
}

template <typename T>
double BinaryCrossEntropy(const T* y, const T* t, size_t n, T* grad) {
  const double scale = 1.0 / static_cast<double>(n);
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double q = ClampOpenUnit(static_cast<double>(y[i]));
    const double target = static_cast<double>(t[i]);
    sum -= target * std::log(q) + (1.0 - target) * std::log(1.0 - q);
    if (grad != nullptr) grad[i] += static_cast<T>((q - target) / (q * (1.0 - q)) * scale);
  }
  return sum * scale;
}

template <typename T>
Status ComputeLossImpl(LossKind kind, const T* output, const T* target, size_t size, T* loss,
                       T* gradient) {
  if (output == nullptr || target == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "loss %s: output or target is null",
                         LossName(kind));
  }
  if (size == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "loss %s: the output has no elements",
                         LossName(kind));
  }
  double value = 0.0;
  switch (kind) {
    case LossKind::kMse:
      value = Mse(output, target, size, gradient);
      break;
    case LossKind::kMae:
      value = Mae(output, target, size, gradient);
      break;
    case LossKind::kCrossEntropy:
      value = CrossEntropy(output, target, size, gradient);
      break;
    case LossKind::kBinaryCrossEntropy:
      value = BinaryCrossEntropy(output, target, size, gradient);
      break;
    case LossKind::kSparseCrossEntropy: {
      size_t label = 0;
      Status status = ValidateSparseLabel(static_cast<double>(target[0]), size, &label);
      if (!status.ok()) return status.Prepend("loss sparse-ce");
      const double p = ClampProbability(static_cast<double>(output[label]));
      value = -std::log(p);
      if (gradient != nullptr) gradient[label] += static_cast<T>(-1.0 / p);
      break;
    }
    default:
      return Status::Error(StatusCode::kInvalidArgument, "loss kind %d is not defined",
                           static_cast<int>(kind));
  }
  if (loss != nullptr) *loss = static_cast<T>(value);
  return Status::Ok();
}

}  // namespace

size_t TargetElementCount(LossKind kind, size_t output_size) {
  return kind == LossKind::kSparseCrossEntropy ? 1 : output_size;
}

Status ValidateSparseLabel(double label, size_t class_count, size_t* index) {
  if (!std::isfinite(label) || label != std::floor(label)) {
    return Status::Error(StatusCode::kInvalidArgument, "target %g is not an integer class index",
                         label);
  }
  if (label < 0.0 || label >= static_cast<double>(class_count)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "target class %g is outside [0, %zu) (the output has %zu classes)", label,
                         class_count, class_count);
  }
  *index = static_cast<size_t>(label);
  return Status::Ok();
}

Status ComputeLoss(LossKind kind, const float* output, const float* target, size_t size,
                   float* loss, float* gradient) {
  return ComputeLossImpl(kind, output, target, size, loss, gradient);
}

Status ComputeLoss(LossKind kind, const double* output, const double* target, size_t size,
                   double* loss, double* gradient) {
  return ComputeLossImpl(kind, output, target, size, loss, gradient);
}

}  // namespace trainscope
