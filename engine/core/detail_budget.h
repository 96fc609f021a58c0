// SPDX-License-Identifier: Apache-2.0
//
// DetailBudget: which optimizer steps carry per-op detail (TrainingObserver::StepDetail) when
// training runs faster than anyone can look. Two limits, each a budget that refills with time
// and holds at most kDetailBurstSeconds of it (so a run's first second, or the second after a
// pause, is detailed more densely, and a short run entirely):
//  - a rate: at most `steps_per_second` detailed steps a second;
//  - a time share: what detail adds to the steps that carry it stays within `time_share` of the
//    training time. The extra is measured, not assumed: every step is timed (from its Take() to
//    EndStep(), or to the next Take()) and a detailed step is charged what it took beyond the
//    running mean of plain steps. Until a plain step has been timed, detailed steps are charged
//    once one is; if they may already have spent the whole budget, the next step is left plain
//    to time one. A step far longer than the others of its kind (the user paused inside it)
//    counts as at most kOutlierFactor times their mean.
// So detail that costs little is kept at every step the rate allows (a slow model: every step),
// and a small model at thousands of steps a second gets about `steps_per_second` of them. A
// limit of 0 is off; with both off every step is detailed.
//
// The caller passes the time (MonotonicNowNs() in the engine's clock), so tests drive it.
//
//   DetailBudget budget;
//   uint32_t StepDetail(uint32_t) override {
//     return budget.Take(MonotonicNowNs()) ? kDetailEvents : 0;
//   }
//   void OnOptimizerStep(const OptimizerStepEvent&) override { budget.EndStep(MonotonicNowNs()); }
#pragma once

#include <cstdint>

namespace trainscope {

// What the desktop uses: more steps a second than a 15 Hz repaint shows (and what a recording
// keeps with every event, ui/session/sources/trace_recorder.h), at a twentieth of the time.
inline constexpr double kDefaultDetailStepsPerSecond = 100.0;
inline constexpr double kDefaultDetailTimeShare = 0.05;
inline constexpr double kDetailBurstSeconds = 1.0;

class DetailBudget {
 public:
  explicit DetailBudget(double steps_per_second = kDefaultDetailStepsPerSecond,
                        double time_share = kDefaultDetailTimeShare) {
    set_limits(steps_per_second, time_share);
  }

  // Negative or NaN limits count as 0 (off). Take effect at the next Take(), budgets full.
  void set_limits(double steps_per_second, double time_share);
  double steps_per_second() const { return steps_per_second_; }
  double time_share() const { return time_share_; }
  bool every_step() const { return steps_per_second_ == 0.0 && time_share_ == 0.0; }

  // Whether the step beginning at `now_ns` is detailed (a previous step not yet ended ends now).
  bool Take(uint64_t now_ns);
  // The step begun at the last Take() ended: what happens until the next Take() (pacing, the
  // caller's own work) is not timed. Optional; ignored without a step in progress.
  void EndStep(uint64_t now_ns);
  // Budgets full, timings forgotten: a new run, another model.
  void Reset();

  // Steps Take() left without detail since construction.
  uint64_t skipped_steps() const { return skipped_steps_; }
  // The measured extra of a detailed step over a plain one, in ns (0 until both were timed).
  double detail_extra_ns() const;

  static constexpr double kOutlierFactor = 8.0;

 private:
  void Time(uint64_t end_ns);
  void Charge(double extra_ns);

  double steps_per_second_ = 0.0;
  double time_share_ = 0.0;
  bool started_ = false;
  bool in_step_ = false;  // a step was taken and has not ended
  bool step_detailed_ = false;
  uint64_t step_start_ns_ = 0;
  uint64_t refilled_ns_ = 0;
  double rate_tokens_ = 0.0;     // detailed steps the rate still allows
  double allowance_ns_ = 0.0;    // extra time the share still allows
  double unpriced_ns_ = 0.0;     // detailed steps' durations before any plain step was timed
  uint32_t unpriced_steps_ = 0;  // how many
  double mean_ns_[2] = {};       // running means of plain [0] and detailed [1] step durations
  uint32_t timed_[2] = {};       // steps each mean has seen (saturates)
  uint64_t skipped_steps_ = 0;
};

}  // namespace trainscope
