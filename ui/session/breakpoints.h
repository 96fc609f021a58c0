// SPDX-License-Identifier: Apache-2.0
//
// Breakpoints of a training run, as plain values: which conditions pause the run (BreakpointSet)
// and why it paused (BreakpointHit). The kinds and their codes are the wire's
// (wire::BreakpointKind in serial/protocol/messages.h), so a device source can forward the same
// set as SetBreakpoint commands; a device compares max |g| with the threshold, so a set meant for
// a board uses GradientMeasure::kMaxAbs.
//
// The Check* functions are pure: given the set and one event they return the hit or nothing.
// BreakpointMonitor adds the little state the rules need (the budget fires when live bytes cross
// above it, not on every tick while above; a gradient condition fires once per backward step,
// not once per tensor of the op) and is what a source calls on its training thread.
//
//   BreakpointSet set;
//   set.ops.insert(3);
//   set.nan_inf = true;
//   BreakpointMonitor monitor(set, op_count);
//   if (auto hit = monitor.beforeBackwardStep(event)) pause(DescribeHit(*hit, &graph));
#pragma once

#include <QString>
#include <QVariantMap>

#include <cstdint>
#include <optional>
#include <set>

#include "engine/core/events.h"
#include "engine/model/graph.h"

namespace trainscope {

enum class BreakpointKind : uint8_t {
  kOpIndex = 0,        // before the backward step of a watched op
  kNanInf = 1,         // a gradient holds NaN or Inf
  kArenaAbove = 2,     // live bytes rose above the RAM budget
  kGradientAbove = 3,  // a gradient's size exceeds the threshold
};
enum class GradientMeasure : uint8_t { kL2Norm = 0, kMaxAbs = 1 };

inline constexpr uint32_t kNoOp = 0xFFFFFFFFu;

struct BreakpointSet {
  std::set<uint32_t> ops;  // op indices k (file order)
  bool nan_inf = false;
  bool budget_enabled = false;
  uint64_t budget_bytes = 0;  // 0 never fires
  bool gradient_enabled = false;
  float gradient_threshold = 1000.0f;
  GradientMeasure gradient_measure = GradientMeasure::kL2Norm;

  bool empty() const { return ops.empty() && !nan_inf && !budget_enabled && !gradient_enabled; }
  // The events these breakpoints read that a step may leave out with its per-op detail
  // (TrainingObserver::StepDetail): every step must then carry them.
  uint32_t watchedEvents() const {
    return (nan_inf || gradient_enabled ? kEventGradientStats : 0u) |
           (budget_enabled ? kEventMemorySummary : 0u);
  }
  bool hasOp(uint32_t op) const { return ops.count(op) > 0; }
  void toggleOp(uint32_t op);

  // For QSettings; the budget value is not included (the memory view owns it).
  QVariantMap toVariantMap() const;
  static BreakpointSet FromVariantMap(const QVariantMap& map);
  bool operator==(const BreakpointSet& other) const;
  bool operator!=(const BreakpointSet& other) const { return !(*this == other); }
};

struct BreakpointHit {
  BreakpointKind kind = BreakpointKind::kOpIndex;
  uint32_t op_index = kNoOp;  // the op to show; kNoOp for the optimizer tick
  uint32_t backward_step = 0;
  Phase phase = Phase::kBackward;
  uint32_t optimizer_step = 0;
  int32_t tensor = -1;  // gradient hits
  uint32_t nan_count = 0;
  uint32_t inf_count = 0;
  double value = 0.0;      // the gradient measure that exceeded the threshold
  double threshold = 0.0;  // copied from the set
  GradientMeasure measure = GradientMeasure::kL2Norm;
  uint64_t bytes = 0;   // live bytes for a budget hit
  uint64_t budget = 0;  // copied from the set
};

std::optional<BreakpointHit> CheckBeforeBackwardStep(const BreakpointSet& set,
                                                     const BackwardStepEvent& event);
// NaN/Inf wins over the threshold when both apply.
std::optional<BreakpointHit> CheckGradientStats(const BreakpointSet& set,
                                                const GradientStatsEvent& event);
// Fires when live bytes exceed the budget and `was_above` is false; updates `*was_above`.
// `op_count` maps a backward step i to its op n-1-i (0: the op stays unknown).
std::optional<BreakpointHit> CheckMemorySummary(const BreakpointSet& set,
                                                const MemorySummaryEvent& event, uint32_t op_count,
                                                bool* was_above);

// A user-facing sentence naming the op and tensor ("breakpoint: gradient of tensor 7 'fc1/w'
// (op #3 FULLY_CONNECTED) holds 5 NaN ..."); `graph` may be null (indices only).
QString DescribeHit(const BreakpointHit& hit, const Graph* graph);
QString BreakpointKindName(BreakpointKind kind);  // "op", "NaN/Inf", "RAM budget", "gradient"

class BreakpointMonitor {
 public:
  explicit BreakpointMonitor(BreakpointSet set = {}, uint32_t op_count = 0);

  // Replaces the set and re-arms the budget (it fires at the next tick above it).
  void setBreakpoints(const BreakpointSet& set);
  const BreakpointSet& breakpoints() const { return set_; }
  void setOpCount(uint32_t op_count) { op_count_ = op_count; }

  std::optional<BreakpointHit> beforeBackwardStep(const BackwardStepEvent& event);
  std::optional<BreakpointHit> onGradientStats(const GradientStatsEvent& event);
  std::optional<BreakpointHit> onMemorySummary(const MemorySummaryEvent& event);

 private:
  BreakpointSet set_;
  uint32_t op_count_ = 0;
  bool above_budget_ = false;
  bool gradient_hit_in_step_ = false;
};

}  // namespace trainscope
