// SPDX-License-Identifier: Apache-2.0
#include "serial/agent/control_state.h"

#include <limits>

namespace trainscope {

using wire::AckResult;
using wire::PauseReason;
using wire::RunStateMessage;
namespace capability = wire::capability;

void ControlState::Pause(PauseReason reason, const RunStateMessage& detail) {
  mode_ = Mode::kPaused;
  state_.state = wire::RunStateKind::kPaused;
  state_.reason = reason;
  state_.op_index = detail.op_index;
  state_.tensor = detail.tensor;
  state_.value = detail.value;
  state_.bytes = detail.bytes;
  ++state_.transition;
  if (state_.transition == 0) state_.transition = 1;  // 0 would mean "an older board"
  state_changed_ = true;
}

void ControlState::SetActivity(wire::BoardActivity activity) {
  if (state_.activity == activity) return;
  state_.activity = activity;
  ++state_.transition;
  if (state_.transition == 0) state_.transition = 1;
  state_changed_ = true;
}

void ControlState::Run(Mode mode) {
  const bool was_paused = paused();
  mode_ = mode;
  if (was_paused) {
    state_.state = wire::RunStateKind::kRunning;
    state_.reason = PauseReason::kNone;
    ++state_.transition;
    if (state_.transition == 0) state_.transition = 1;
    state_changed_ = true;
  }
}

AckResult ControlState::Apply(const wire::BasicCommand& command) {
  using wire::MessageType;
  switch (command.type) {
    case MessageType::kPing:
      return AckResult::kOk;
    case MessageType::kRequestHello:
      hello_requested_ = true;
      return AckResult::kOk;
    case MessageType::kRequestMemoryPlan:
      if (!Has(capability::kMemoryPlan)) return AckResult::kUnsupported;
      memory_plan_requested_ = true;
      return AckResult::kOk;
    case MessageType::kPause:
    case MessageType::kResume:
    case MessageType::kStepBackwardOp:
    case MessageType::kStepSample:
    case MessageType::kStepBatch:
      break;
    default:
      return AckResult::kUnknownCommand;
  }
  if (!Has(capability::kPauseStep)) return AckResult::kUnsupported;
  switch (command.type) {
    case MessageType::kPause: {
      RunStateMessage detail = state_;
      if (!paused()) Pause(PauseReason::kCommand, detail);
      break;
    }
    case MessageType::kResume:
      Run(Mode::kRunning);
      break;
    case MessageType::kStepBackwardOp:
      Run(Mode::kStepBackwardOp);
      break;
    case MessageType::kStepSample:
      Run(Mode::kStepSample);
      break;
    default:
      Run(Mode::kStepBatch);
      break;
  }
  return AckResult::kOk;
}

AckResult ControlState::SetOpBreakpoint(uint32_t op_index, bool enable) {
  if (!enable && op_index == wire::kAllOps) {
    op_breakpoint_count_ = 0;
    return AckResult::kOk;
  }
  if (!OpIndexValid(op_index)) return AckResult::kInvalidArgument;
  for (size_t i = 0; i < op_breakpoint_count_; ++i) {
    if (op_breakpoints_[i] != op_index) continue;
    if (!enable) op_breakpoints_[i] = op_breakpoints_[--op_breakpoint_count_];
    return AckResult::kOk;
  }
  if (!enable) return AckResult::kOk;  // clearing a breakpoint that is not set is harmless
  if (op_breakpoint_count_ == kMaxOpBreakpoints) return AckResult::kNoRoom;
  op_breakpoints_[op_breakpoint_count_++] = op_index;
  return AckResult::kOk;
}

AckResult ControlState::Apply(const wire::SetBreakpointCommand& command) {
  if (!Has(capability::kBreakpoints)) return AckResult::kUnsupported;
  switch (command.kind) {
    case wire::BreakpointKind::kOpIndex:
      return SetOpBreakpoint(command.op_index, command.enable);
    case wire::BreakpointKind::kNanInf:
      break_on_nan_inf_ = command.enable;
      return AckResult::kOk;
    case wire::BreakpointKind::kArenaAbove:
      break_on_arena_ = command.enable;
      arena_budget_ = command.budget_bytes;
      arena_above_ = false;
      return AckResult::kOk;
    case wire::BreakpointKind::kGradientAbove: {
      const float threshold = command.threshold;
      const bool usable = threshold >= 0.0f && threshold <= std::numeric_limits<float>::max();
      if (command.enable && !usable) return AckResult::kInvalidArgument;  // NaN, Inf, negative
      break_on_gradient_ = command.enable;
      gradient_threshold_ = threshold;
      return AckResult::kOk;
    }
  }
  return AckResult::kInvalidArgument;
}

AckResult ControlState::Apply(const wire::SetTrainabilityCommand& command) {
  if (!Has(capability::kTrainability)) return AckResult::kUnsupported;
  const bool value_ok = command.mode == wire::TrainabilityMode::kLastLayers
                            ? (op_count_ == 0 || command.value <= op_count_)
                            : OpIndexValid(command.value);
  if (!value_ok) return AckResult::kInvalidArgument;
  if (pending_count_ == kMaxPendingTrainability) return AckResult::kNoRoom;
  TrainabilityChange& change =
      pending_[(pending_first_ + pending_count_) % kMaxPendingTrainability];
  change.mode = command.mode;
  change.rank = command.rank;
  change.value = command.value;
  ++pending_count_;
  return AckResult::kOk;
}

void ControlState::OnSample(const SampleEvent& event) {
  state_.optimizer_step = event.optimizer_step;
  if (!event.begin && mode_ == Mode::kStepSample) Pause(PauseReason::kStepDone, state_);
}

void ControlState::OnOptimizerStep(const OptimizerStepEvent& event) {
  state_.optimizer_step = event.optimizer_step;
  if (mode_ == Mode::kStepBatch) Pause(PauseReason::kStepDone, state_);
}

void ControlState::OnBackwardStep(const BackwardStepEvent& event) {
  if (paused()) return;
  RunStateMessage detail = state_;
  detail.op_index = event.op_index;
  detail.tensor = -1;
  if (event.begin) {
    for (size_t i = 0; i < op_breakpoint_count_; ++i) {
      if (op_breakpoints_[i] == event.op_index) return Pause(PauseReason::kOpBreakpoint, detail);
    }
  } else if (mode_ == Mode::kStepBackwardOp) {
    Pause(PauseReason::kStepDone, detail);
  }
}

void ControlState::OnGradientStats(const GradientStatsEvent& event) {
  if (paused()) return;
  RunStateMessage detail = state_;
  detail.op_index = event.op_index;
  detail.tensor = event.tensor;
  detail.value = event.max_abs;
  if (break_on_nan_inf_ && (event.nan_count > 0 || event.inf_count > 0)) {
    Pause(PauseReason::kNanInfBreakpoint, detail);
  } else if (break_on_gradient_ && event.max_abs > gradient_threshold_) {
    Pause(PauseReason::kGradientBreakpoint, detail);
  }
}

void ControlState::OnMemorySummary(const MemorySummaryEvent& event) {
  const bool above = event.current_bytes > arena_budget_;
  const bool crossed = above && !arena_above_;
  arena_above_ = above;
  if (paused() || !break_on_arena_ || !crossed) return;
  RunStateMessage detail = state_;
  detail.bytes =
      event.current_bytes > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(event.current_bytes);
  Pause(PauseReason::kArenaBreakpoint, detail);
}

bool ControlState::TakeRunStateChange(RunStateMessage* out) {
  *out = state_;
  const bool changed = state_changed_;
  state_changed_ = false;
  return changed;
}

bool ControlState::TakeTrainabilityChange(TrainabilityChange* out) {
  if (pending_count_ == 0) return false;
  *out = pending_[pending_first_];
  pending_first_ = (pending_first_ + 1) % kMaxPendingTrainability;
  --pending_count_;
  return true;
}

bool ControlState::TakeMemoryPlanRequest() {
  const bool requested = memory_plan_requested_;
  memory_plan_requested_ = false;
  return requested;
}

bool ControlState::TakeHelloRequest() {
  const bool requested = hello_requested_;
  hello_requested_ = false;
  return requested;
}

}  // namespace trainscope
