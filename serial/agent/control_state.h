// SPDX-License-Identifier: Apache-2.0
//
// ControlState is the board-side state machine behind the desktop's commands: run / pause /
// step, breakpoints and queued trainability changes. It only keeps state and judges events;
// the Agent feeds it commands and events and does all I/O. No heap, fixed capacities.
//
// Where the run stops:
//   PAUSE              at the next event the agent sees (a safe point of the training loop)
//   STEP_BACKWARD_OP   after the next BACKWARD_STEP end event
//   STEP_SAMPLE        after the next SAMPLE end event
//   STEP_BATCH         after the next OPTIMIZER_STEP event
//   op breakpoint      at the BACKWARD_STEP begin event of a watched op (before it runs)
//   NaN/Inf            at a GRADIENT_STATS event with nan_count + inf_count > 0
//   gradient threshold at a GRADIENT_STATS event with max_abs > threshold
//   arena budget       at the MEMORY_SUMMARY event whose current_bytes first exceeds the budget
//                      (edge-triggered: it fires again only after dropping back under it)
//
// Trainability changes are only queued: the firmware applies them at the next optimizer-step
// boundary (TakeTrainabilityChange), where changing the trained set cannot split a batch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/events.h"
#include "serial/protocol/messages.h"

namespace trainscope {

struct TrainabilityChange {
  wire::TrainabilityMode mode = wire::TrainabilityMode::kSetOp;
  TrainRank rank = TrainRank::kAll;
  uint32_t value = 0;  // op index, or the number of last layers
};

class ControlState {
 public:
  static constexpr size_t kMaxOpBreakpoints = 8;
  static constexpr size_t kMaxPendingTrainability = 8;

  explicit ControlState(uint32_t capabilities = 0) : capabilities_(capabilities) {}

  // Bounds op indices in commands once the model is known (0 = unknown: not checked).
  void set_op_count(uint32_t op_count) { op_count_ = op_count; }

  // PAUSE, RESUME, STEP_*, PING, REQUEST_MEMORY_PLAN, REQUEST_HELLO.
  wire::AckResult Apply(const wire::BasicCommand& command);
  wire::AckResult Apply(const wire::SetBreakpointCommand& command);
  wire::AckResult Apply(const wire::SetTrainabilityCommand& command);

  // Event hooks. Each updates the state; paused() tells whether the run must now wait.
  void OnSample(const SampleEvent& event);
  void OnOptimizerStep(const OptimizerStepEvent& event);
  void OnBackwardStep(const BackwardStepEvent& event);
  void OnGradientStats(const GradientStatsEvent& event);
  void OnMemorySummary(const MemorySummaryEvent& event);

  bool paused() const { return mode_ == Mode::kPaused; }
  // The board's schedule stage; a change is a new run-state transition.
  void SetActivity(wire::BoardActivity activity);
  // The current run state, numbered by its transition (the agent repeats it with heartbeats).
  const wire::RunStateMessage& run_state() const { return state_; }
  // Copies the run state into *out and returns true if it changed since the last call, so the
  // agent sends one RUN_STATE per transition.
  bool TakeRunStateChange(wire::RunStateMessage* out);
  bool TakeTrainabilityChange(TrainabilityChange* out);
  bool TakeMemoryPlanRequest();
  bool TakeHelloRequest();

 private:
  enum class Mode : uint8_t { kRunning, kPaused, kStepBackwardOp, kStepSample, kStepBatch };

  static wire::RunStateMessage InitialState() {
    wire::RunStateMessage state;
    state.transition = 1;  // running since boot
    return state;
  }
  // `detail` carries op_index / tensor / value / bytes of the event that stopped the run.
  void Pause(wire::PauseReason reason, const wire::RunStateMessage& detail);
  void Run(Mode mode);
  bool OpIndexValid(uint32_t op_index) const { return op_count_ == 0 || op_index < op_count_; }
  bool Has(uint32_t capability) const { return (capabilities_ & capability) != 0; }
  wire::AckResult SetOpBreakpoint(uint32_t op_index, bool enable);

  uint32_t capabilities_;
  uint32_t op_count_ = 0;
  Mode mode_ = Mode::kRunning;
  wire::RunStateMessage state_ = InitialState();
  bool state_changed_ = false;

  uint32_t op_breakpoints_[kMaxOpBreakpoints] = {};
  size_t op_breakpoint_count_ = 0;
  bool break_on_nan_inf_ = false;
  bool break_on_gradient_ = false;
  float gradient_threshold_ = 0.0f;
  bool break_on_arena_ = false;
  uint32_t arena_budget_ = 0;
  bool arena_above_ = false;

  TrainabilityChange pending_[kMaxPendingTrainability];
  size_t pending_first_ = 0;
  size_t pending_count_ = 0;
  bool memory_plan_requested_ = false;
  bool hello_requested_ = false;
};

}  // namespace trainscope
