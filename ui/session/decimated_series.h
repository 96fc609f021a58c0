// SPDX-License-Identifier: Apache-2.0
//
// DecimatedSeries: a y(x) series held within a fixed point budget. Samples go into buckets of
// `span` consecutive samples; when the bucket count would exceed the budget, neighbouring buckets
// merge pairwise and the span doubles. Every bucket keeps the min and max of its finite values,
// so decimation can flatten a curve but never hides a spike (a min/max envelope, not sampling).
//
// NaN and Inf never enter min/max/mean (they would poison the scale) and are never dropped:
// every bucket counts them, so their position survives at bucket resolution forever, and the
// first `non_finite_budget` of them are also kept with their exact x.
//
// A value type: copy it to hand a frozen version to another thread.
//
//   DecimatedSeries loss(2048);
//   loss.append(step, value);
//   for (const SeriesBucket& b : loss.buckets()) Draw(b.x_first, b.y_min, b.y_max);
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainscope {

struct SeriesBucket {
  double x_first = 0.0;
  double x_last = 0.0;
  double y_min = 0.0;  // of the finite values; meaningless when finite_count == 0
  double y_max = 0.0;
  double y_sum = 0.0;
  double y_last = 0.0;  // last finite value
  uint32_t sample_count = 0;
  uint32_t finite_count = 0;
  uint32_t nan_count = 0;
  uint32_t inf_count = 0;

  double mean() const { return finite_count ? y_sum / finite_count : 0.0; }
  bool hasFinite() const { return finite_count > 0; }
  bool hasNonFinite() const { return nan_count + inf_count > 0; }
};

struct NonFinitePoint {
  double x = 0.0;
  bool is_nan = true;  // false: +Inf or -Inf
};

class DecimatedSeries {
 public:
  explicit DecimatedSeries(size_t point_budget = 2048, size_t non_finite_budget = 1024);

  void append(double x, double y);
  void clear();

  const std::vector<SeriesBucket>& buckets() const { return buckets_; }
  size_t pointBudget() const { return budget_; }
  // Samples per bucket (the last bucket may hold fewer).
  uint64_t span() const { return span_; }

  uint64_t sampleCount() const { return sample_count_; }
  uint64_t nanCount() const { return nan_count_; }
  uint64_t infCount() const { return inf_count_; }
  bool hasFinite() const { return finite_count_ > 0; }
  double minimum() const { return min_; }  // over all finite values ever appended
  double maximum() const { return max_; }
  double lastX() const { return last_x_; }
  double lastFinite() const { return last_finite_; }
  // The first non-finite samples with their exact x (see the header comment for the rest).
  const std::vector<NonFinitePoint>& nonFinitePoints() const { return non_finite_; }

 private:
  static void mergeInto(SeriesBucket& into, const SeriesBucket& from);
  void halve();

  size_t budget_;
  size_t non_finite_budget_;
  uint64_t span_ = 1;
  std::vector<SeriesBucket> buckets_;
  std::vector<NonFinitePoint> non_finite_;
  uint64_t sample_count_ = 0;
  uint64_t finite_count_ = 0;
  uint64_t nan_count_ = 0;
  uint64_t inf_count_ = 0;
  double min_ = 0.0;
  double max_ = 0.0;
  double last_x_ = 0.0;
  double last_finite_ = 0.0;
};

}  // namespace trainscope
