// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/device_breakpoints.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace trainscope {
namespace {

wire::SetBreakpointCommand Command(wire::BreakpointKind kind, bool enable) {
  wire::SetBreakpointCommand command;
  command.kind = kind;
  command.enable = enable;
  return command;
}

// The Check* functions of breakpoints.h judge one event against a set; a set holding only the
// condition the board reported lets them fill in the hit from the event the board paused at.
BreakpointHit OpHit(const wire::RunStateMessage& state, const RecentBreakpointEvents& recent,
                    uint32_t op_count) {
  if (recent.backward_begin && recent.backward_begin->op_index == state.op_index) {
    BreakpointSet only_this_op;
    only_this_op.ops.insert(state.op_index);
    if (auto hit = CheckBeforeBackwardStep(only_this_op, *recent.backward_begin)) return *hit;
  }
  BreakpointHit hit;
  hit.kind = BreakpointKind::kOpIndex;
  hit.op_index = state.op_index;
  hit.backward_step = state.op_index < op_count ? op_count - 1 - state.op_index : 0;
  return hit;
}

BreakpointHit GradientHit(const wire::RunStateMessage& state, const BreakpointSet& asked,
                          const RecentBreakpointEvents& recent) {
  BreakpointHit hit;
  hit.kind = state.reason == wire::PauseReason::kNanInfBreakpoint ? BreakpointKind::kNanInf
                                                                  : BreakpointKind::kGradientAbove;
  hit.op_index = state.op_index;
  hit.tensor = state.tensor;
  hit.optimizer_step = state.optimizer_step;
  hit.value = static_cast<double>(state.value);
  hit.threshold = static_cast<double>(asked.gradient_threshold);
  hit.measure = GradientMeasure::kMaxAbs;  // the only measure a board compares
  const std::optional<GradientStatsEvent>& event = recent.gradient;
  if (event && event->op_index == state.op_index && event->tensor == state.tensor) {
    hit.optimizer_step = event->optimizer_step;
    hit.nan_count = event->nan_count;
    hit.inf_count = event->inf_count;
  }
  return hit;
}

BreakpointHit BudgetHit(const wire::RunStateMessage& state, const BreakpointSet& asked,
                        const RecentBreakpointEvents& recent, uint32_t op_count) {
  const uint64_t clamped = recent.summary ? std::min<uint64_t>(recent.summary->current_bytes,
                                                               std::numeric_limits<uint32_t>::max())
                                          : 0;
  if (recent.summary && clamped == state.bytes) {
    BreakpointSet only_budget;
    only_budget.budget_enabled = true;
    only_budget.budget_bytes = asked.budget_bytes;
    bool was_above = false;
    if (auto hit = CheckMemorySummary(only_budget, *recent.summary, op_count, &was_above)) {
      return *hit;
    }
  }
  BreakpointHit hit;
  hit.kind = BreakpointKind::kArenaAbove;
  hit.phase = Phase::kForward;
  hit.op_index = kNoOp;
  hit.bytes = state.bytes;
  hit.budget = asked.budget_bytes;
  return hit;
}

}  // namespace

BreakpointPlan PlanBreakpointCommands(const BreakpointSet& set) {
  BreakpointPlan plan;
  wire::SetBreakpointCommand clear_ops = Command(wire::BreakpointKind::kOpIndex, false);
  clear_ops.op_index = wire::kAllOps;
  plan.commands.push_back(clear_ops);
  for (uint32_t op : set.ops) {
    wire::SetBreakpointCommand watch = Command(wire::BreakpointKind::kOpIndex, true);
    watch.op_index = op;
    plan.commands.push_back(watch);
  }
  plan.commands.push_back(Command(wire::BreakpointKind::kNanInf, set.nan_inf));

  constexpr uint64_t kMaxWireBudget = std::numeric_limits<uint32_t>::max();
  wire::SetBreakpointCommand budget = Command(wire::BreakpointKind::kArenaAbove, false);
  if (set.budget_enabled && set.budget_bytes > kMaxWireBudget) {
    plan.not_expressible.append(
        QStringLiteral("the RAM budget breakpoint was not set on the board: %1 B is more than a "
                       "board budget can hold (%2 B)")
            .arg(set.budget_bytes)
            .arg(kMaxWireBudget));
  } else if (set.budget_enabled && set.budget_bytes > 0) {
    budget.enable = true;
    budget.budget_bytes = static_cast<uint32_t>(set.budget_bytes);
  }
  plan.commands.push_back(budget);

  wire::SetBreakpointCommand gradient = Command(wire::BreakpointKind::kGradientAbove, false);
  if (set.gradient_enabled && set.gradient_measure != GradientMeasure::kMaxAbs) {
    plan.not_expressible.append(
        QStringLiteral("the gradient breakpoint was not set on the board: a board compares max "
                       "|g| with the threshold, not the L2 norm (choose max |g|)"));
  } else if (set.gradient_enabled) {
    gradient.enable = true;
    gradient.threshold = set.gradient_threshold;
  }
  plan.commands.push_back(gradient);
  return plan;
}

QString DescribeBreakpointCommand(const wire::SetBreakpointCommand& command) {
  switch (command.kind) {
    case wire::BreakpointKind::kOpIndex:
      if (!command.enable && command.op_index == wire::kAllOps) {
        return QStringLiteral("clearing every op breakpoint");
      }
      return QStringLiteral("%1 the op breakpoint at op #%2")
          .arg(command.enable ? QStringLiteral("setting") : QStringLiteral("clearing"))
          .arg(command.op_index);
    case wire::BreakpointKind::kNanInf:
      return command.enable ? QStringLiteral("setting the NaN/Inf breakpoint")
                            : QStringLiteral("clearing the NaN/Inf breakpoint");
    case wire::BreakpointKind::kArenaAbove:
      return command.enable ? QStringLiteral("setting the RAM budget breakpoint at %1 B")
                                  .arg(command.budget_bytes)
                            : QStringLiteral("clearing the RAM budget breakpoint");
    case wire::BreakpointKind::kGradientAbove:
      return command.enable ? QStringLiteral("setting the gradient breakpoint at max |g| > %1")
                                  .arg(static_cast<double>(command.threshold), 0, 'g', 4)
                            : QStringLiteral("clearing the gradient breakpoint");
  }
  return QStringLiteral("a breakpoint of unknown kind %1").arg(static_cast<int>(command.kind));
}

std::optional<BreakpointHit> HitFromRunState(const wire::RunStateMessage& state,
                                             const BreakpointSet& asked,
                                             const RecentBreakpointEvents& recent,
                                             uint32_t op_count) {
  if (state.state != wire::RunStateKind::kPaused) return std::nullopt;
  switch (state.reason) {
    case wire::PauseReason::kOpBreakpoint:
      return OpHit(state, recent, op_count);
    case wire::PauseReason::kNanInfBreakpoint:
    case wire::PauseReason::kGradientBreakpoint:
      return GradientHit(state, asked, recent);
    case wire::PauseReason::kArenaBreakpoint:
      return BudgetHit(state, asked, recent, op_count);
    case wire::PauseReason::kNone:
    case wire::PauseReason::kCommand:
    case wire::PauseReason::kStepDone:
      break;
  }
  return std::nullopt;
}

QString DescribeDeviceHit(const BreakpointHit& hit, const AnnouncedModel* model) {
  if (model == nullptr || model->ops.empty()) return DescribeHit(hit, nullptr);
  Subgraph main;
  main.operators.resize(model->ops.size());
  for (size_t k = 0; k < model->ops.size(); ++k) main.operators[k].opcode = model->ops[k].opcode;
  // Only the tensor the hit names, and only a low index: the tensors up to it are allocated, so a
  // board naming tensor 2^31-1 gets its hit described without the name instead.
  constexpr uint32_t kMaxNamedTensor = 1u << 16;
  if (hit.tensor >= 0 && static_cast<uint32_t>(hit.tensor) < model->tensor_count &&
      static_cast<uint32_t>(hit.tensor) < kMaxNamedTensor) {
    const uint32_t tensor = static_cast<uint32_t>(hit.tensor);
    main.tensors.resize(size_t{tensor} + 1);
    const auto name = model->tensor_names.find(tensor);
    if (name != model->tensor_names.end()) main.tensors[tensor].name = name->second;
  }
  Graph graph;
  graph.subgraphs.push_back(std::move(main));
  return DescribeHit(hit, &graph);
}

}  // namespace trainscope
