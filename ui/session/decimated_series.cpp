// SPDX-License-Identifier: Apache-2.0
#include "ui/session/decimated_series.h"

#include <algorithm>
#include <cmath>

namespace trainscope {

DecimatedSeries::DecimatedSeries(size_t point_budget, size_t non_finite_budget)
    // An odd or tiny budget would make halving leave more buckets than allowed.
    : budget_(std::max<size_t>(2, point_budget & ~size_t{1})),
      non_finite_budget_(non_finite_budget) {
  buckets_.reserve(budget_ + 1);
}

void DecimatedSeries::clear() {
  *this = DecimatedSeries(budget_, non_finite_budget_);
}

void DecimatedSeries::append(double x, double y) {
  if (buckets_.empty() || buckets_.back().sample_count >= span_) {
    if (buckets_.size() >= budget_) halve();
    if (buckets_.empty() || buckets_.back().sample_count >= span_) {
      SeriesBucket fresh;
      fresh.x_first = x;
      buckets_.push_back(fresh);
    }
  }
  SeriesBucket& bucket = buckets_.back();
  bucket.x_last = x;
  ++bucket.sample_count;
  ++sample_count_;
  last_x_ = x;

  if (std::isfinite(y)) {
    if (bucket.finite_count == 0) {
      bucket.y_min = bucket.y_max = y;
    } else {
      bucket.y_min = std::min(bucket.y_min, y);
      bucket.y_max = std::max(bucket.y_max, y);
    }
    bucket.y_sum += y;
    bucket.y_last = y;
    ++bucket.finite_count;
    if (finite_count_ == 0) {
      min_ = max_ = y;
    } else {
      min_ = std::min(min_, y);
      max_ = std::max(max_, y);
    }
    ++finite_count_;
    last_finite_ = y;
    return;
  }

  const bool is_nan = std::isnan(y);
  if (is_nan) {
    ++bucket.nan_count;
    ++nan_count_;
  } else {
    ++bucket.inf_count;
    ++inf_count_;
  }
  if (non_finite_.size() < non_finite_budget_) non_finite_.push_back(NonFinitePoint{x, is_nan});
}

void DecimatedSeries::mergeInto(SeriesBucket& into, const SeriesBucket& from) {
  if (from.finite_count > 0) {
    if (into.finite_count == 0) {
      into.y_min = from.y_min;
      into.y_max = from.y_max;
    } else {
      into.y_min = std::min(into.y_min, from.y_min);
      into.y_max = std::max(into.y_max, from.y_max);
    }
    into.y_last = from.y_last;
  }
  into.x_last = from.x_last;
  into.y_sum += from.y_sum;
  into.sample_count += from.sample_count;
  into.finite_count += from.finite_count;
  into.nan_count += from.nan_count;
  into.inf_count += from.inf_count;
}

void DecimatedSeries::halve() {
  size_t write = 0;
  for (size_t read = 0; read < buckets_.size(); read += 2) {
    SeriesBucket merged = buckets_[read];
    if (read + 1 < buckets_.size()) mergeInto(merged, buckets_[read + 1]);
    buckets_[write++] = merged;
  }
  buckets_.resize(write);
  span_ *= 2;
}

}  // namespace trainscope
