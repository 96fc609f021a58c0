// SPDX-License-Identifier: Apache-2.0
//
// The desktop side of board breakpoints, as pure functions: turning the app's BreakpointSet into
// the SET_BREAKPOINT commands a board understands, naming one such command in a message, and
// turning a RUN_STATE that reports a breakpoint pause back into a BreakpointHit, so the reason
// text comes from DescribeHit() exactly as for the local engine.
//
// Translation (PlanBreakpointCommands) clears and sets: the first command clears every op
// breakpoint, then each watched op is set, then NaN/Inf, the RAM budget and the gradient
// threshold are each enabled or disabled. Sent in that order the board ends up holding exactly
// the set, whatever it held before (another desktop, an earlier session), and the same list can
// be sent again after a reconnect. What the wire cannot express is left disabled and named in
// `not_expressible`:
//   - a gradient threshold on the L2 norm: boards compare max |g| only;
//   - a RAM budget above 4 GiB - 1: the wire's budget is a u32.
// A budget of 0 means "never fires" in the app, so it is sent as disabled.
//
// What RUN_STATE carries and what is inferred (HitFromRunState): the reason, op, tensor, max |g|
// and current bytes come from the message itself. The rest comes from the events the board sent
// just before pausing, which arrive on the same stream ahead of the RUN_STATE (the agent sends
// an event, then judges it): the backward step i of an op hit (fallback: i = n-1-k), the NaN and
// Inf counts and optimizer step of a gradient hit (fallback: 0 counts, RUN_STATE's step), the
// phase and 64-bit live bytes of a budget hit (fallback: forward phase, no op). The fallbacks
// only matter for a board whose event mask drops those events. The threshold and budget shown are
// the ones this desktop asked for.
//
//   const BreakpointPlan plan = PlanBreakpointCommands(set);
//   for (const QString& why : plan.not_expressible) ReportError(why);
//   for (const wire::SetBreakpointCommand& command : plan.commands) Send(command);
#pragma once

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

#include "engine/core/events.h"
#include "serial/protocol/messages.h"
#include "ui/session/announced_model.h"
#include "ui/session/breakpoints.h"

namespace trainscope {

struct BreakpointPlan {
  std::vector<wire::SetBreakpointCommand> commands;  // command ids left 0
  QStringList not_expressible;                       // user-facing, one per kind left out
};

BreakpointPlan PlanBreakpointCommands(const BreakpointSet& set);

// "the op breakpoint at op #3", "clearing every op breakpoint", "the gradient threshold 0.5
// (max |g|)": what a refused or unanswered command was about.
QString DescribeBreakpointCommand(const wire::SetBreakpointCommand& command);

// The last events of the kinds a breakpoint pause refers to, as the reader decoded them.
struct RecentBreakpointEvents {
  std::optional<BackwardStepEvent> backward_begin;
  std::optional<GradientStatsEvent> gradient;
  std::optional<MemorySummaryEvent> summary;
};

// The hit a breakpoint pause stands for; nothing for a pause that is not a breakpoint's (PAUSE,
// a finished step, running). `asked` is the set this desktop last sent; `op_count` the announced
// op count (0: unknown).
std::optional<BreakpointHit> HitFromRunState(const wire::RunStateMessage& state,
                                             const BreakpointSet& asked,
                                             const RecentBreakpointEvents& recent,
                                             uint32_t op_count);

// DescribeHit() with the op codes and the op and tensor names the board announced (`model` may
// be null: indices only). BuildAnnouncedGraph() is for drawing and renumbers tensors, so the
// names are looked up here by the board's own tensor indices.
QString DescribeDeviceHit(const BreakpointHit& hit, const AnnouncedModel* model);

}  // namespace trainscope
