// SPDX-License-Identifier: Apache-2.0
#include "engine/train/optimizers.h"

#include <cmath>

namespace trainscope {
namespace {

Status CheckSlice(const ParameterSlice& p, bool needs_adam_state) {
  if (p.weights == nullptr || p.gradient == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "optimizer: weights or gradient is null");
  }
  if (p.row_elements == 0 || p.element_count % p.row_elements != 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "optimizer: %zu elements do not split into rows of %zu", p.element_count,
                         p.row_elements);
  }
  const size_t rows = p.element_count / p.row_elements;
  if (p.first_row > rows || p.row_count > rows - p.first_row) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "optimizer: rows [%zu, %zu + %zu) exceed the tensor's %zu rows",
                         p.first_row, p.first_row, p.row_count, rows);
  }
  if (needs_adam_state && (p.adam_m == nullptr || p.adam_v == nullptr)) {
    return Status::Error(StatusCode::kInvalidArgument, "adam: state m or v is null");
  }
  return Status::Ok();
}

double SquaredNorm(const float* values, size_t count, double sum = 0.0) {
  for (size_t i = 0; i < count; ++i) sum += static_cast<double>(values[i]) * values[i];
  return sum;
}

// ||W|| before the update is summed in element order: the rows before the trained slice here,
// the slice inside the update loop (where it hides behind the update's own latency), the rows
// after it in Finish(). Without `norms` nothing is summed at all.
struct NormSums {
  explicit NormSums(const ParameterSlice& p, bool wanted) : slice(p), on(wanted) {
    if (on) weight_squared = SquaredNorm(p.weights, p.first_row * p.row_elements);
  }
  void Finish(UpdateNorms* norms) const {
    if (!on) return;
    const size_t end = (slice.first_row + slice.row_count) * slice.row_elements;
    const double all = SquaredNorm(slice.weights + end, slice.element_count - end, weight_squared);
    norms->weight_norm = static_cast<float>(std::sqrt(all));
    norms->update_norm = static_cast<float>(std::sqrt(update_squared));
  }
  const ParameterSlice& slice;
  const bool on;
  double weight_squared = 0.0;
  double update_squared = 0.0;
};

}  // namespace

Status ApplySgd(const SgdSettings& settings, uint32_t batch_size, const ParameterSlice& p,
                UpdateNorms* norms) {
  TS_RETURN_IF_ERROR(CheckSlice(p, false));
  if (batch_size == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "sgd: batch size is 0");
  }
  const double scale = static_cast<double>(settings.learning_rate) / batch_size;
  float* w = p.weights + p.first_row * p.row_elements;
  const size_t count = TrainedElementCount(p);
  NormSums sums(p, norms != nullptr);
  if (!sums.on) {
    for (size_t i = 0; i < count; ++i) w[i] = static_cast<float>(w[i] - scale * p.gradient[i]);
    return Status::Ok();
  }
  for (size_t i = 0; i < count; ++i) {
    const float before = w[i];
    sums.weight_squared += static_cast<double>(before) * before;
    w[i] = static_cast<float>(before - scale * p.gradient[i]);
    const double applied = static_cast<double>(before) - w[i];
    sums.update_squared += applied * applied;
  }
  sums.Finish(norms);
  return Status::Ok();
}

Status ApplyAdam(const AdamSettings& settings, uint32_t step, const ParameterSlice& p,
                 UpdateNorms* norms) {
  TS_RETURN_IF_ERROR(CheckSlice(p, true));
  if (step == 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "adam: optimizer step is 0; bias correction counts steps from 1");
  }
  const double beta1 = settings.beta1;
  const double beta2 = settings.beta2;
  const double correction1 = 1.0 - std::pow(beta1, static_cast<double>(step));
  const double correction2 = 1.0 - std::pow(beta2, static_cast<double>(step));
  if (!(correction1 > 0.0) || !(correction2 > 0.0)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "adam: beta1 %g and beta2 %g must lie in [0, 1)", beta1, beta2);
  }
  float* w = p.weights + p.first_row * p.row_elements;
  const size_t count = TrainedElementCount(p);
  NormSums sums(p, norms != nullptr);
  for (size_t i = 0; i < count; ++i) {
    const double g = p.gradient[i];
    const double m = beta1 * p.adam_m[i] + (1.0 - beta1) * g;
    const double v = beta2 * p.adam_v[i] + (1.0 - beta2) * g * g;
    p.adam_m[i] = static_cast<float>(m);
    p.adam_v[i] = static_cast<float>(v);
    const double m_hat = m / correction1;
    const double v_hat = v / correction2;
    const float before = w[i];
    w[i] = static_cast<float>(before -
                              settings.learning_rate * m_hat / std::sqrt(v_hat + settings.epsilon));
    if (sums.on) {
      sums.weight_squared += static_cast<double>(before) * before;
      const double applied = static_cast<double>(before) - w[i];
      sums.update_squared += applied * applied;
    }
  }
  sums.Finish(norms);
  return Status::Ok();
}

Status ApplyOptimizer(const TrainingOptions& options, uint32_t step, const ParameterSlice& p,
                      UpdateNorms* norms) {
  switch (options.optimizer) {
    case OptimizerKind::kSgd:
      return ApplySgd(SgdSettings{options.learning_rate}, options.batch_size, p, norms);
    case OptimizerKind::kAdam:
      return ApplyAdam(
          AdamSettings{options.learning_rate, options.beta1, options.beta2, options.epsilon}, step,
          p, norms);
  }
  return Status::Error(StatusCode::kInvalidArgument, "optimizer kind %d is not defined",
                       static_cast<int>(options.optimizer));
}

UpdateRatioEvent MakeUpdateRatioEvent(uint32_t optimizer_step, int32_t tensor,
                                      const UpdateNorms& norms) {
  UpdateRatioEvent event;
  event.optimizer_step = optimizer_step;
  event.tensor = tensor;
  event.update_norm = norms.update_norm;
  event.weight_norm = norms.weight_norm;
  event.ratio = norms.weight_norm > 0.0f ? norms.update_norm / norms.weight_norm : 0.0f;
  return event;
}

}  // namespace trainscope
