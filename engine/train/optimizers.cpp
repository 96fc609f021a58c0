// SPDX-License-Identifier: Apache-2.0
#include "engine/train/optimizers.h"

#include <cmath>
#include <cstring>

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

// ||W|| and ||dW|| are summed in kNormLanes running sums, element i of a range into lane
// i % kNormLanes (the tail into lane 0), added lane 0 first at the end. With a single running sum
// every element would wait on the previous addition. The lanes are written with SSE2 where the
// host has it: the compiler does not vectorise these reductions itself.
constexpr size_t kNormLanes = 8;

struct NormLanes {
  double weight[kNormLanes] = {};  // Σ w² before the update
  double update[kNormLanes] = {};  // Σ (w_before - w_after)²

  void AddWeights(const float* values, size_t count) { Add(values, nullptr, count); }
  // Sums w² of `before`, and (before - after)² when `after` is not null.
  void Add(const float* before, const float* after, size_t count) {
    size_t i = 0;
#if defined(__SSE2__)
    __m128d w[4], u[4];
    for (int k = 0; k < 4; ++k) {
      w[k] = _mm_loadu_pd(weight + 2 * k);
      u[k] = _mm_loadu_pd(update + 2 * k);
    }
    for (; i + kNormLanes <= count; i += kNormLanes) {
      __m128d b[4];
      Widen(before + i, &b[0], &b[1]);
      Widen(before + i + 4, &b[2], &b[3]);
      for (int k = 0; k < 4; ++k) w[k] = _mm_add_pd(w[k], _mm_mul_pd(b[k], b[k]));
      if (after == nullptr) continue;
      __m128d a[4];
      Widen(after + i, &a[0], &a[1]);
      Widen(after + i + 4, &a[2], &a[3]);
      for (int k = 0; k < 4; ++k) {
        const __m128d d = _mm_sub_pd(b[k], a[k]);
        u[k] = _mm_add_pd(u[k], _mm_mul_pd(d, d));
      }
    }
    for (int k = 0; k < 4; ++k) {
      _mm_storeu_pd(weight + 2 * k, w[k]);
      _mm_storeu_pd(update + 2 * k, u[k]);
    }
#else
    for (; i + kNormLanes <= count; i += kNormLanes) {
      for (size_t lane = 0; lane < kNormLanes; ++lane) AddOne(before, after, i + lane, lane);
    }
#endif
    for (; i < count; ++i) AddOne(before, after, i, 0);
  }
  void AddOne(const float* before, const float* after, size_t i, size_t lane) {
    const double b = before[i];
    weight[lane] += b * b;
    if (after != nullptr) update[lane] += (b - after[i]) * (b - after[i]);
  }
#if defined(__SSE2__)
  // Four floats as two pairs of doubles, in order.
  static void Widen(const float* at, __m128d* low, __m128d* high) {
    const __m128 four = _mm_loadu_ps(at);
    *low = _mm_cvtps_pd(four);
    *high = _mm_cvtps_pd(_mm_movehl_ps(four, four));
  }
#endif
  static double Total(const double (&lanes)[kNormLanes]) {
    double total = 0.0;
    for (double lane : lanes) total += lane;
    return total;
  }
};

// Runs `update(i, w[i])`, which returns the new w[i], over the trained slice; with `norms`, also
// sums ||W|| over the whole tensor (untrained rows included) and ||dW|| of what was applied. The
// slice goes in chunks that stay in the L1 cache: the update loop keeps its own shape (so it
// vectorises as it does without norms) and the sums read the chunk's old and new values after it.
template <typename Update>
void UpdateSlice(const ParameterSlice& p, UpdateNorms* norms, Update update) {
  float* w = p.weights + p.first_row * p.row_elements;
  const size_t count = TrainedElementCount(p);
  if (norms == nullptr) {
    for (size_t i = 0; i < count; ++i) w[i] = update(i, w[i]);
    return;
  }
  NormLanes sums;
  sums.AddWeights(p.weights, p.first_row * p.row_elements);
  constexpr size_t kChunk = 512;
  float before[kChunk];
  for (size_t begin = 0; begin < count; begin += kChunk) {
    const size_t n = count - begin < kChunk ? count - begin : kChunk;
    float* chunk = w + begin;
    std::memcpy(before, chunk, n * sizeof(float));
    for (size_t i = 0; i < n; ++i) chunk[i] = update(begin + i, before[i]);
    sums.Add(before, chunk, n);
  }
  const size_t end = (p.first_row + p.row_count) * p.row_elements;
  sums.AddWeights(p.weights + end, p.element_count - end);
  norms->weight_norm = static_cast<float>(std::sqrt(NormLanes::Total(sums.weight)));
  norms->update_norm = static_cast<float>(std::sqrt(NormLanes::Total(sums.update)));
}

}  // namespace

Status ApplySgd(const SgdSettings& settings, uint32_t batch_size, const ParameterSlice& p,
                UpdateNorms* norms) {
  TS_RETURN_IF_ERROR(CheckSlice(p, false));
  if (batch_size == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "sgd: batch size is 0");
  }
  const double scale = static_cast<double>(settings.learning_rate) / batch_size;
  const float* gradient = p.gradient;
  UpdateSlice(p, norms, [scale, gradient](size_t i, float w) {
    return static_cast<float>(w - scale * gradient[i]);
  });
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
  const double learning_rate = settings.learning_rate;
  const double epsilon = settings.epsilon;
  const float* gradient = p.gradient;
  float* adam_m = p.adam_m;
  float* adam_v = p.adam_v;
  UpdateSlice(p, norms, [=](size_t i, float w) {
    const double g = gradient[i];
    const double m = beta1 * adam_m[i] + (1.0 - beta1) * g;
    const double v = beta2 * adam_v[i] + (1.0 - beta2) * g * g;
    adam_m[i] = static_cast<float>(m);
    adam_v[i] = static_cast<float>(v);
    const double m_hat = m / correction1;
    const double v_hat = v / correction2;
    return static_cast<float>(w - learning_rate * m_hat / std::sqrt(v_hat + epsilon));
  });
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
