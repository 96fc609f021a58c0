// SPDX-License-Identifier: Apache-2.0
#include "engine/train/optimizers.h"

#include <cmath>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// ||W|| over untrained rows: kNormLanes running sums, element i into lane i % kNormLanes (the
// tail into lane 0), so no addition waits on the one before it.
constexpr size_t kNormLanes = 8;

double SquaredNorm(const float* values, size_t count) {
  double lanes[kNormLanes] = {};
  size_t i = 0;
  for (; i + kNormLanes <= count; i += kNormLanes) {
    for (size_t lane = 0; lane < kNormLanes; ++lane) {
      lanes[lane] += static_cast<double>(values[i + lane]) * values[i + lane];
    }
  }
  for (; i < count; ++i) lanes[0] += static_cast<double>(values[i]) * values[i];
  double total = 0.0;
  for (double lane : lanes) total += lane;
  return total;
}

// The two updates, each as one value (Scalar) and, with SSE2, as two values at a time (Pair) with
// the very same operations in the same order, so both give the same bits. Written out by hand:
// the compiler vectorises neither the update loop once it also sums the norms nor those sums.
struct SgdUpdate {
  double scale;  // learning rate / batch size
  const float* gradient;

  double Scalar(size_t i, double w) const { return w - scale * gradient[i]; }
#if defined(__SSE2__)
  __m128d Pair(size_t i, __m128d w) const;
#endif
};

struct AdamUpdate {
  double beta1, beta2, correction1, correction2, learning_rate, epsilon;
  const float* gradient;
  float* adam_m;
  float* adam_v;

  double Scalar(size_t i, double w) const {
    const double g = gradient[i];
    const double m = beta1 * adam_m[i] + (1.0 - beta1) * g;
    const double v = beta2 * adam_v[i] + (1.0 - beta2) * g * g;
    adam_m[i] = static_cast<float>(m);
    adam_v[i] = static_cast<float>(v);
    const double m_hat = m / correction1;
    const double v_hat = v / correction2;
    return w - learning_rate * m_hat / std::sqrt(v_hat + epsilon);
  }
#if defined(__SSE2__)
  __m128d Pair(size_t i, __m128d w) const;
#endif
};

#if defined(__SSE2__)
// Two floats at `at` as two doubles, and back (unaligned, no aliasing assumptions).
inline __m128d LoadTwo(const float* at) {
  return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(at))));
}
inline void StoreTwo(float* at, __m128d values) {
  _mm_storel_epi64(reinterpret_cast<__m128i*>(at), _mm_castps_si128(_mm_cvtpd_ps(values)));
}

__m128d SgdUpdate::Pair(size_t i, __m128d w) const {
  return _mm_sub_pd(w, _mm_mul_pd(_mm_set1_pd(scale), LoadTwo(gradient + i)));
}

__m128d AdamUpdate::Pair(size_t i, __m128d w) const {
  const __m128d g = LoadTwo(gradient + i);
  const __m128d m = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(beta1), LoadTwo(adam_m + i)),
                               _mm_mul_pd(_mm_set1_pd(1.0 - beta1), g));
  const __m128d v = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(beta2), LoadTwo(adam_v + i)),
                               _mm_mul_pd(_mm_mul_pd(_mm_set1_pd(1.0 - beta2), g), g));
  StoreTwo(adam_m + i, m);
  StoreTwo(adam_v + i, v);
  const __m128d m_hat = _mm_div_pd(m, _mm_set1_pd(correction1));
  const __m128d v_hat = _mm_div_pd(v, _mm_set1_pd(correction2));
  const __m128d step = _mm_div_pd(_mm_mul_pd(_mm_set1_pd(learning_rate), m_hat),
                                  _mm_sqrt_pd(_mm_add_pd(v_hat, _mm_set1_pd(epsilon))));
  return _mm_sub_pd(w, step);
}
#endif

// Applies `update` to the trained slice. With `norms`, also sums ||W|| before the update over the
// whole tensor (untrained rows included) and ||dW|| of what was applied (the float difference),
// inside the same loop, where the additions hide behind the update's divisions.
template <typename Update>
void UpdateSlice(const ParameterSlice& p, UpdateNorms* norms, const Update& update) {
  float* w = p.weights + p.first_row * p.row_elements;
  const size_t count = TrainedElementCount(p);
  double weight_squared = 0.0, update_squared = 0.0;
  size_t i = 0;
#if defined(__SSE2__)
  __m128d weight_lanes = _mm_setzero_pd(), update_lanes = _mm_setzero_pd();
  for (; i + 2 <= count; i += 2) {
    const __m128d before = LoadTwo(w + i);
    const __m128 after = _mm_cvtpd_ps(update.Pair(i, before));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(w + i), _mm_castps_si128(after));
    if (norms != nullptr) {
      const __m128d applied = _mm_sub_pd(before, _mm_cvtps_pd(after));
      weight_lanes = _mm_add_pd(weight_lanes, _mm_mul_pd(before, before));
      update_lanes = _mm_add_pd(update_lanes, _mm_mul_pd(applied, applied));
    }
  }
  alignas(16) double lanes[2];
  _mm_store_pd(lanes, weight_lanes);
  weight_squared = lanes[0] + lanes[1];
  _mm_store_pd(lanes, update_lanes);
  update_squared = lanes[0] + lanes[1];
#endif
  for (; i < count; ++i) {
    const float before = w[i];
    w[i] = static_cast<float>(update.Scalar(i, before));
    const double applied = static_cast<double>(before) - w[i];
    weight_squared += static_cast<double>(before) * before;
    update_squared += applied * applied;
  }
  if (norms == nullptr) return;
  const size_t end = (p.first_row + p.row_count) * p.row_elements;
  weight_squared += SquaredNorm(p.weights, p.first_row * p.row_elements);
  weight_squared += SquaredNorm(p.weights + end, p.element_count - end);
  norms->weight_norm = static_cast<float>(std::sqrt(weight_squared));
  norms->update_norm = static_cast<float>(std::sqrt(update_squared));
}

}  // namespace

Status ApplySgd(const SgdSettings& settings, uint32_t batch_size, const ParameterSlice& p,
                UpdateNorms* norms) {
  TS_RETURN_IF_ERROR(CheckSlice(p, false));
  if (batch_size == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "sgd: batch size is 0");
  }
  UpdateSlice(p, norms,
              SgdUpdate{static_cast<double>(settings.learning_rate) / batch_size, p.gradient});
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
  UpdateSlice(p, norms,
              AdamUpdate{beta1, beta2, correction1, correction2, settings.learning_rate,
                         settings.epsilon, p.gradient, p.adam_m, p.adam_v});
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
