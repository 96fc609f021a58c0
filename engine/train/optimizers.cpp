// SPDX-License-Identifier: Apache-2.0
#include "engine/train/optimizers.h"

#include <cmath>
#include <cstring>

#include "engine/train/host_simd.h"
#include "engine/train/square_sums.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(TRAINSCOPE_AVX2_PATH)
#include <immintrin.h>
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

// The two updates in float, as onert-micro computes them, each as one value (Scalar), with SSE2
// four at a time (Quad) and, on hosts with AVX2, eight at a time (Oct), with the very same
// operations in the same order, so every path gives the same bits: IEEE division and square root
// are correctly rounded at any width, and no multiply-add is fused (that would round once where
// the formula rounds twice). Float is enough: every step is a product or a sum of values of one
// scale (onert-micro's own updates are float), and a Cortex-M4F has no double unit. Written out by
// hand so that the paths visibly match.
struct SgdUpdate {
  float scale;  // learning rate / batch size
  const float* gradient;

  float Scalar(size_t i, float w) const { return w - scale * gradient[i]; }
#if defined(__SSE2__)
  __m128 Quad(size_t i, __m128 w) const {
    return _mm_sub_ps(w, _mm_mul_ps(_mm_set1_ps(scale), _mm_loadu_ps(gradient + i)));
  }
#endif
#if defined(TRAINSCOPE_AVX2_PATH)
  __attribute__((target("avx2"))) __m256 Oct(size_t i, __m256 w) const {
    return _mm256_sub_ps(w, _mm256_mul_ps(_mm256_set1_ps(scale), _mm256_loadu_ps(gradient + i)));
  }
#endif
};

// Adam's moments, updated in place and returned: m = b1 m + (1-b1) g, v = b2 v + (1-b2) g g.
// Both Adam updates below share them, so their moments are the same bits.
struct AdamMoments {
  float beta1, beta2;
  const float* gradient;
  float* adam_m;
  float* adam_v;

  void Scalar(size_t i, float* m, float* v) const {
    const float g = gradient[i];
    *m = beta1 * adam_m[i] + (1.0f - beta1) * g;
    *v = beta2 * adam_v[i] + ((1.0f - beta2) * g) * g;
    adam_m[i] = *m;
    adam_v[i] = *v;
  }
#if defined(__SSE2__)
  void Quad(size_t i, __m128* m, __m128* v) const {
    const __m128 g = _mm_loadu_ps(gradient + i);
    *m = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(beta1), _mm_loadu_ps(adam_m + i)),
                    _mm_mul_ps(_mm_set1_ps(1.0f - beta1), g));
    *v = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(beta2), _mm_loadu_ps(adam_v + i)),
                    _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(1.0f - beta2), g), g));
    _mm_storeu_ps(adam_m + i, *m);
    _mm_storeu_ps(adam_v + i, *v);
  }
#endif
#if defined(TRAINSCOPE_AVX2_PATH)
  __attribute__((target("avx2"))) void Oct(size_t i, __m256* m, __m256* v) const {
    const __m256 g = _mm256_loadu_ps(gradient + i);
    *m = _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(beta1), _mm256_loadu_ps(adam_m + i)),
                       _mm256_mul_ps(_mm256_set1_ps(1.0f - beta1), g));
    *v = _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(beta2), _mm256_loadu_ps(adam_v + i)),
                       _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(1.0f - beta2), g), g));
    _mm256_storeu_ps(adam_m + i, *m);
    _mm256_storeu_ps(adam_v + i, *v);
  }
#endif
};

// onert-micro's formula: w -= lr * (m / (1-b1^t)) / sqrt(v / (1-b2^t) + eps).
struct AdamUpdate {
  AdamMoments moments;
  float correction1, correction2, learning_rate, epsilon;

  float Scalar(size_t i, float w) const {
    float m, v;
    moments.Scalar(i, &m, &v);
    const float m_hat = m / correction1;
    const float v_hat = v / correction2;
    return w - (learning_rate * m_hat) / std::sqrt(v_hat + epsilon);
  }
#if defined(__SSE2__)
  __m128 Quad(size_t i, __m128 w) const {
    __m128 m, v;
    moments.Quad(i, &m, &v);
    const __m128 m_hat = _mm_div_ps(m, _mm_set1_ps(correction1));
    const __m128 v_hat = _mm_div_ps(v, _mm_set1_ps(correction2));
    const __m128 step = _mm_div_ps(_mm_mul_ps(_mm_set1_ps(learning_rate), m_hat),
                                   _mm_sqrt_ps(_mm_add_ps(v_hat, _mm_set1_ps(epsilon))));
    return _mm_sub_ps(w, step);
  }
#endif
#if defined(TRAINSCOPE_AVX2_PATH)
  __attribute__((target("avx2"))) __m256 Oct(size_t i, __m256 w) const {
    __m256 m, v;
    moments.Oct(i, &m, &v);
    const __m256 m_hat = _mm256_div_ps(m, _mm256_set1_ps(correction1));
    const __m256 v_hat = _mm256_div_ps(v, _mm256_set1_ps(correction2));
    const __m256 step =
        _mm256_div_ps(_mm256_mul_ps(_mm256_set1_ps(learning_rate), m_hat),
                      _mm256_sqrt_ps(_mm256_add_ps(v_hat, _mm256_set1_ps(epsilon))));
    return _mm256_sub_ps(w, step);
  }
#endif
};

// Adam with the fast kernels (OptimizerStep::fast_adam): the same moments, and the step as
// step_size * m / sqrt(v * inverse_correction2 + eps), step_size = lr / (1-b1^t): one division
// and one square root per value where the formula takes three and one, and on a large tensor the
// divider, not memory, bounds Adam. Within a few float roundings of the formula; its paths, like
// AdamUpdate's, give the same bits (the divider's throughput per value is the same at every
// vector width, so there is no AVX-512 path; an approximate reciprocal square root would make the
// result depend on the CPU's model).
struct AdamFastUpdate {
  AdamMoments moments;
  float step_size, inverse_correction2, epsilon;

  float Scalar(size_t i, float w) const {
    float m, v;
    moments.Scalar(i, &m, &v);
    return w - (step_size * m) / std::sqrt(v * inverse_correction2 + epsilon);
  }
#if defined(__SSE2__)
  __m128 Quad(size_t i, __m128 w) const {
    __m128 m, v;
    moments.Quad(i, &m, &v);
    const __m128 root = _mm_sqrt_ps(
        _mm_add_ps(_mm_mul_ps(v, _mm_set1_ps(inverse_correction2)), _mm_set1_ps(epsilon)));
    return _mm_sub_ps(w, _mm_div_ps(_mm_mul_ps(_mm_set1_ps(step_size), m), root));
  }
#endif
#if defined(TRAINSCOPE_AVX2_PATH)
  __attribute__((target("avx2"))) __m256 Oct(size_t i, __m256 w) const {
    __m256 m, v;
    moments.Oct(i, &m, &v);
    const __m256 root = _mm256_sqrt_ps(_mm256_add_ps(
        _mm256_mul_ps(v, _mm256_set1_ps(inverse_correction2)), _mm256_set1_ps(epsilon)));
    return _mm256_sub_ps(w, _mm256_div_ps(_mm256_mul_ps(_mm256_set1_ps(step_size), m), root));
  }
#endif
};

#if defined(TRAINSCOPE_AVX2_PATH)
// Whole runs of eight of UpdateRange on an AVX2 host; returns where they end.
template <typename Update>
__attribute__((target("avx2"))) size_t UpdateOctsAvx2(const Update& update, float* w, size_t begin,
                                                      size_t end) {
  size_t i = begin;
  for (; i + 8 <= end; i += 8) _mm256_storeu_ps(w + i, update.Oct(i, _mm256_loadu_ps(w + i)));
  return i;
}
#endif

// Applies `update` to elements [begin, end) of the trained slice `w`.
template <typename Update>
void UpdateRange(const Update& shared_update, float* w, size_t begin, size_t end) {
  // A copy the stores cannot reach, so its settings stay in registers.
  const Update update = shared_update;
  size_t i = begin;
#if defined(TRAINSCOPE_AVX2_PATH)
  if (HostHasAvx2()) i = UpdateOctsAvx2(update, w, i, end);
#endif
#if defined(__SSE2__)
  for (; i + 4 <= end; i += 4) _mm_storeu_ps(w + i, update.Quad(i, _mm_loadu_ps(w + i)));
#endif
  for (; i < end; ++i) w[i] = update.Scalar(i, w[i]);
}

// The norms' squares of a run of values in float lanes (engine/train/square_sums.h): element i
// of a run of eight into lane i % 8.
constexpr size_t kNormLanes = 8;
struct NormLanes {
  float weight[kNormLanes] = {};  // before²
  float update[kNormLanes] = {};  // (before - after)²
};

#if defined(TRAINSCOPE_AVX2_PATH)
// UpdateRunsWithNorms on an AVX2 host: a run of eight is one register, lane for lane the SSE2
// path's pair of registers, so the lanes hold the same sums.
template <typename Update>
__attribute__((target("avx2"))) size_t UpdateRunsWithNormsAvx2(const Update& update, float* w,
                                                               size_t begin, size_t end,
                                                               float* before, NormLanes* lanes) {
  size_t i = begin;
  __m256 weight = _mm256_setzero_ps(), applied_squares = weight;
  for (; i + kNormLanes <= end; i += kNormLanes) {
    const __m256 was = _mm256_loadu_ps(w + i);
    _mm256_storeu_ps(before + (i - begin), was);
    const __m256 after = update.Oct(i, was);
    _mm256_storeu_ps(w + i, after);
    weight = _mm256_add_ps(weight, _mm256_mul_ps(was, was));
    const __m256 applied = _mm256_sub_ps(was, after);
    applied_squares = _mm256_add_ps(applied_squares, _mm256_mul_ps(applied, applied));
  }
  _mm256_storeu_ps(lanes->weight, weight);
  _mm256_storeu_ps(lanes->update, applied_squares);
  return i;
}
#endif

// UpdateRange over whole runs of eight that also copies the values as they were to `before`
// (indexed from `begin`) and sums the norms' squares into `lanes`, where the additions, in float
// and several at a time, cost little beside the update; returns where the runs end.
template <typename Update>
size_t UpdateRunsWithNorms(const Update& shared_update, float* w, size_t begin, size_t end,
                           float* before, NormLanes* lanes) {
  const Update update = shared_update;
#if defined(TRAINSCOPE_AVX2_PATH)
  if (HostHasAvx2()) return UpdateRunsWithNormsAvx2(update, w, begin, end, before, lanes);
#endif
  size_t i = begin;
#if defined(__SSE2__)
  __m128 weight_low = _mm_setzero_ps(), weight_high = weight_low;
  __m128 update_low = weight_low, update_high = weight_low;
  for (; i + kNormLanes <= end; i += kNormLanes) {
    const __m128 before_low = _mm_loadu_ps(w + i), before_high = _mm_loadu_ps(w + i + 4);
    _mm_storeu_ps(before + (i - begin), before_low);
    _mm_storeu_ps(before + (i - begin) + 4, before_high);
    const __m128 after_low = update.Quad(i, before_low);
    const __m128 after_high = update.Quad(i + 4, before_high);
    _mm_storeu_ps(w + i, after_low);
    _mm_storeu_ps(w + i + 4, after_high);
    weight_low = _mm_add_ps(weight_low, _mm_mul_ps(before_low, before_low));
    weight_high = _mm_add_ps(weight_high, _mm_mul_ps(before_high, before_high));
    const __m128 applied_low = _mm_sub_ps(before_low, after_low);
    const __m128 applied_high = _mm_sub_ps(before_high, after_high);
    update_low = _mm_add_ps(update_low, _mm_mul_ps(applied_low, applied_low));
    update_high = _mm_add_ps(update_high, _mm_mul_ps(applied_high, applied_high));
  }
  _mm_storeu_ps(lanes->weight, weight_low);
  _mm_storeu_ps(lanes->weight + 4, weight_high);
  _mm_storeu_ps(lanes->update, update_low);
  _mm_storeu_ps(lanes->update + 4, update_high);
#else
  for (; i + kNormLanes <= end; i += kNormLanes) {
    for (size_t lane = 0; lane < kNormLanes; ++lane) {
      const float value = w[i + lane];
      before[i - begin + lane] = value;
      const float after = update.Scalar(i + lane, value);
      w[i + lane] = after;
      const float applied = value - after;
      lanes->weight[lane] += value * value;
      lanes->update[lane] += applied * applied;
    }
  }
#endif
  return i;
}

// Applies `update` to the trained slice. With `norms`, also sums ||W|| before the update over the
// whole tensor (untrained rows included) and ||dW|| of what was applied (square_sums.h), in
// chunks: the loop keeps each chunk's values as they were, so that a chunk whose float lanes
// cannot be trusted is summed again in double.
template <typename Update>
void UpdateSlice(const ParameterSlice& p, UpdateNorms* norms, const Update& update) {
  float* w = p.weights + p.first_row * p.row_elements;
  const size_t count = TrainedElementCount(p);
  if (norms == nullptr) {
    UpdateRange(update, w, 0, count);
    return;
  }
  constexpr size_t kChunk = 1024;
  double weight_squared = 0.0, update_squared = 0.0;
  float before[kChunk];
  for (size_t begin = 0; begin < count; begin += kChunk) {
    const size_t chunk = count - begin < kChunk ? count - begin : kChunk;
    NormLanes lanes;
    const size_t runs =
        UpdateRunsWithNorms(update, w, begin, begin + chunk, before, &lanes) - begin;
    std::memcpy(before + runs, w + begin + runs, (chunk - runs) * sizeof(float));
    UpdateRange(update, w, begin + runs, begin + chunk);
    const bool weights_trusted = SquareLanesAreTrusted(lanes.weight, kNormLanes);
    if (weights_trusted) {
      for (float lane : lanes.weight) weight_squared += static_cast<double>(lane);
    } else {
      weight_squared += SumOfSquaresInDouble(before, runs);
    }
    if (SquareLanesAreTrusted(lanes.update, kNormLanes)) {
      for (float lane : lanes.update) update_squared += static_cast<double>(lane);
    } else if (!(weights_trusted && std::memcmp(before, w + begin, runs * sizeof(float)) == 0)) {
      // A chunk the update left as it was (a ReLU row that was off, say) has all-zero lanes,
      // which the lanes cannot tell from underflow; the same bits of finite weights say it.
      update_squared += SumOfSquaredDifferencesInDouble(before, w + begin, runs);
    }
    weight_squared += SumOfSquaresInDouble(before + runs, chunk - runs);
    update_squared +=
        SumOfSquaredDifferencesInDouble(before + runs, w + begin + runs, chunk - runs);
  }
  const size_t end = (p.first_row + p.row_count) * p.row_elements;
  weight_squared += SumOfSquares(p.weights, p.first_row * p.row_elements);
  weight_squared += SumOfSquares(p.weights + end, p.element_count - end);
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
              SgdUpdate{settings.learning_rate / static_cast<float>(batch_size), p.gradient});
  return Status::Ok();
}

namespace {

// The bias corrections in double (a power of a number near 1), the update in float.
Status AdamCorrections(const AdamSettings& settings, uint32_t step, float* correction1,
                       float* correction2) {
  if (step == 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "adam: optimizer step is 0; bias correction counts steps from 1");
  }
  const double beta1 = settings.beta1;
  const double beta2 = settings.beta2;
  const double c1 = 1.0 - std::pow(beta1, static_cast<double>(step));
  const double c2 = 1.0 - std::pow(beta2, static_cast<double>(step));
  if (!(c1 > 0.0) || !(c2 > 0.0)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "adam: beta1 %g and beta2 %g must lie in [0, 1)", beta1, beta2);
  }
  *correction1 = static_cast<float>(c1);
  *correction2 = static_cast<float>(c2);
  return Status::Ok();
}

Status ApplyAdamCorrected(const AdamSettings& settings, float correction1, float correction2,
                          bool fast, const ParameterSlice& p, UpdateNorms* norms) {
  TS_RETURN_IF_ERROR(CheckSlice(p, true));
  const AdamMoments moments{settings.beta1, settings.beta2, p.gradient, p.adam_m, p.adam_v};
  if (fast) {
    UpdateSlice(p, norms,
                AdamFastUpdate{moments, settings.learning_rate / correction1, 1.0f / correction2,
                               settings.epsilon});
  } else {
    UpdateSlice(
        p, norms,
        AdamUpdate{moments, correction1, correction2, settings.learning_rate, settings.epsilon});
  }
  return Status::Ok();
}

}  // namespace

Status ApplyAdam(const AdamSettings& settings, uint32_t step, const ParameterSlice& p,
                 UpdateNorms* norms) {
  float correction1 = 1.0f, correction2 = 1.0f;
  TS_RETURN_IF_ERROR(CheckSlice(p, true));
  TS_RETURN_IF_ERROR(AdamCorrections(settings, step, &correction1, &correction2));
  return ApplyAdamCorrected(settings, correction1, correction2, /*fast=*/false, p, norms);
}

ParameterSlice AsOnertMicroUpdates(OptimizerKind optimizer, ParameterSlice p) {
  if (p.first_row == 0) return p;
  if (optimizer == OptimizerKind::kAdam) {
    // In bounds: first_row <= first_row * row_elements, and the trained rows end the tensor.
    p.weights += p.first_row;
    p.element_count = TrainedElementCount(p);
  }
  p.first_row = 0;
  return p;
}

Status PrepareOptimizerStep(const TrainingOptions& options, uint32_t step, OptimizerStep* out) {
  OptimizerStep prepared;
  prepared.kind = options.optimizer;
  prepared.batch_size = options.batch_size;
  prepared.sgd = SgdSettings{options.learning_rate};
  prepared.adam =
      AdamSettings{options.learning_rate, options.beta1, options.beta2, options.epsilon};
  switch (options.optimizer) {
    case OptimizerKind::kSgd:
      if (options.batch_size == 0) {
        return Status::Error(StatusCode::kInvalidArgument, "sgd: batch size is 0");
      }
      break;
    case OptimizerKind::kAdam:
      TS_RETURN_IF_ERROR(
          AdamCorrections(prepared.adam, step, &prepared.correction1, &prepared.correction2));
      break;
    default:
      return Status::Error(StatusCode::kInvalidArgument, "optimizer kind %d is not defined",
                           static_cast<int>(options.optimizer));
  }
  *out = prepared;
  return Status::Ok();
}

Status ApplyOptimizerStep(const OptimizerStep& step, const ParameterSlice& p, UpdateNorms* norms) {
  if (step.kind == OptimizerKind::kAdam) {
    return ApplyAdamCorrected(step.adam, step.correction1, step.correction2, step.fast_adam, p,
                              norms);
  }
  return ApplySgd(step.sgd, step.batch_size, p, norms);
}

Status ApplyOptimizer(const TrainingOptions& options, uint32_t step, const ParameterSlice& p,
                      UpdateNorms* norms) {
  OptimizerStep prepared;
  TS_RETURN_IF_ERROR(PrepareOptimizerStep(options, step, &prepared));
  return ApplyOptimizerStep(prepared, p, norms);
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
