// SPDX-License-Identifier: Apache-2.0
#include "engine/core/detail_budget.h"

#include <algorithm>

namespace trainscope {
namespace {

// Running means follow the last few dozen steps: a mean over the whole run would not see a
// model that slows down, a single step is too noisy.
constexpr uint32_t kMeanWindow = 32;

double NonNegative(double value) {
  return value > 0.0 ? value : 0.0;  // also NaN -> 0
}

}  // namespace

void DetailBudget::set_limits(double steps_per_second, double time_share) {
  steps_per_second_ = NonNegative(steps_per_second);
  time_share_ = NonNegative(time_share);
  Reset();
}

void DetailBudget::Reset() {
  started_ = false;
  in_step_ = false;
  unpriced_ns_ = 0.0;
  unpriced_steps_ = 0;
  mean_ns_[0] = mean_ns_[1] = 0.0;
  timed_[0] = timed_[1] = 0;
}

double DetailBudget::detail_extra_ns() const {
  if (timed_[0] == 0 || timed_[1] == 0) return 0.0;
  return NonNegative(mean_ns_[1] - mean_ns_[0]);
}

void DetailBudget::Charge(double extra_ns) {
  allowance_ns_ -= NonNegative(extra_ns);
}

void DetailBudget::Time(uint64_t end_ns) {
  in_step_ = false;
  if (end_ns < step_start_ns_) return;
  const int kind = step_detailed_ ? 1 : 0;
  double duration = static_cast<double>(end_ns - step_start_ns_);
  if (timed_[kind] >= 4 && duration > kOutlierFactor * mean_ns_[kind]) {
    duration = kOutlierFactor * mean_ns_[kind];
  }
  if (timed_[kind] < kMeanWindow) ++timed_[kind];
  mean_ns_[kind] += (duration - mean_ns_[kind]) / static_cast<double>(timed_[kind]);
  if (step_detailed_) {
    if (timed_[0] > 0) {
      Charge(duration - mean_ns_[0]);
    } else {
      unpriced_ns_ += duration;
      ++unpriced_steps_;
    }
  } else if (unpriced_steps_ > 0) {
    Charge(unpriced_ns_ - static_cast<double>(unpriced_steps_) * mean_ns_[0]);
    unpriced_ns_ = 0.0;
    unpriced_steps_ = 0;
  }
}

void DetailBudget::EndStep(uint64_t now_ns) {
  if (in_step_) Time(now_ns);
}

bool DetailBudget::Take(uint64_t now_ns) {
  if (every_step()) return true;
  // A clock that went back (another clock installed) starts over rather than stalling.
  if (started_ && (now_ns < step_start_ns_ || now_ns < refilled_ns_)) Reset();
  if (!started_) {
    started_ = true;
    refilled_ns_ = now_ns;
    rate_tokens_ = std::max(1.0, steps_per_second_ * kDetailBurstSeconds);
    allowance_ns_ = time_share_ * kDetailBurstSeconds * 1e9;
  } else if (in_step_) {
    Time(now_ns);
  }
  const double elapsed_s = static_cast<double>(now_ns - refilled_ns_) / 1e9;
  refilled_ns_ = now_ns;
  rate_tokens_ = std::min(std::max(1.0, steps_per_second_ * kDetailBurstSeconds),
                          rate_tokens_ + elapsed_s * steps_per_second_);
  allowance_ns_ = std::min(time_share_ * kDetailBurstSeconds * 1e9,
                           allowance_ns_ + elapsed_s * 1e9 * time_share_);

  bool detailed = steps_per_second_ == 0.0 || rate_tokens_ >= 1.0;
  if (detailed && time_share_ > 0.0) {
    // Unpriced steps may have spent up to their whole duration: time a plain one before that
    // could overdraw the budget.
    detailed = timed_[0] > 0 ? allowance_ns_ > 0.0 : unpriced_ns_ < allowance_ns_;
  }
  if (detailed) {
    rate_tokens_ -= steps_per_second_ > 0.0 ? 1.0 : 0.0;
  } else {
    ++skipped_steps_;
  }
  step_detailed_ = detailed;
  step_start_ns_ = now_ns;
  in_step_ = true;
  return detailed;
}

}  // namespace trainscope
