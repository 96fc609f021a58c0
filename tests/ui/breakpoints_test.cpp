// SPDX-License-Identifier: Apache-2.0
//
// The breakpoint rules without threads: which event hits which breakpoint, the budget's edge,
// one gradient hit per backward step, the user-facing reasons, and the settings round trip.
#include <gtest/gtest.h>

#include <limits>

#include "serial/protocol/messages.h"
#include "tests/ui/test_models.h"
#include "ui/session/breakpoints.h"

namespace trainscope {
namespace {

// A device source forwards the set as wire commands: the kinds must keep the wire's codes.
static_assert(static_cast<int>(BreakpointKind::kOpIndex) ==
              static_cast<int>(wire::BreakpointKind::kOpIndex));
static_assert(static_cast<int>(BreakpointKind::kNanInf) ==
              static_cast<int>(wire::BreakpointKind::kNanInf));
static_assert(static_cast<int>(BreakpointKind::kArenaAbove) ==
              static_cast<int>(wire::BreakpointKind::kArenaAbove));
static_assert(static_cast<int>(BreakpointKind::kGradientAbove) ==
              static_cast<int>(wire::BreakpointKind::kGradientAbove));

BackwardStepEvent Backward(uint32_t step, uint32_t op) {
  BackwardStepEvent event;
  event.step = step;
  event.op_index = op;
  return event;
}

GradientStatsEvent Gradient(uint32_t op, int32_t tensor, float l2, float max_abs,
                            uint32_t nan_count = 0, uint32_t inf_count = 0) {
  GradientStatsEvent event;
  event.optimizer_step = 7;
  event.op_index = op;
  event.tensor = tensor;
  event.l2 = l2;
  event.max_abs = max_abs;
  event.nan_count = nan_count;
  event.inf_count = inf_count;
  return event;
}

MemorySummaryEvent Memory(Phase phase, uint32_t step, uint64_t current) {
  MemorySummaryEvent event;
  event.phase = phase;
  event.step = step;
  event.current_bytes = current;
  event.peak_bytes = current;
  return event;
}

TEST(BreakpointRules, OpBreakpointHitsOnlyItsOwnOp) {
  BreakpointSet set;
  set.ops = {2, 5};
  EXPECT_FALSE(CheckBeforeBackwardStep(set, Backward(1, 4)));
  const auto hit = CheckBeforeBackwardStep(set, Backward(3, 2));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->kind, BreakpointKind::kOpIndex);
  EXPECT_EQ(hit->op_index, 2u);
  EXPECT_EQ(hit->backward_step, 3u);
  EXPECT_FALSE(CheckBeforeBackwardStep(BreakpointSet(), Backward(3, 2)));
}

TEST(BreakpointRules, ToggleAddsThenRemovesAnOp) {
  BreakpointSet set;
  set.toggleOp(4);
  EXPECT_TRUE(set.hasOp(4));
  EXPECT_FALSE(set.empty());
  set.toggleOp(4);
  EXPECT_FALSE(set.hasOp(4));
  EXPECT_TRUE(set.empty());
}

TEST(BreakpointRules, NanOrInfHitsOnlyWhenEnabled) {
  BreakpointSet set;
  EXPECT_FALSE(CheckGradientStats(set, Gradient(1, 3, 1.0f, 1.0f, 2, 0)));
  set.nan_inf = true;
  EXPECT_FALSE(CheckGradientStats(set, Gradient(1, 3, 1.0f, 1.0f)));
  const auto nan_hit = CheckGradientStats(set, Gradient(1, 3, 1.0f, 1.0f, 2, 0));
  ASSERT_TRUE(nan_hit);
  EXPECT_EQ(nan_hit->kind, BreakpointKind::kNanInf);
  EXPECT_EQ(nan_hit->tensor, 3);
  EXPECT_EQ(nan_hit->nan_count, 2u);
  const auto inf_hit = CheckGradientStats(set, Gradient(1, 3, 1.0f, 1.0f, 0, 1));
  ASSERT_TRUE(inf_hit);
  EXPECT_EQ(inf_hit->inf_count, 1u);
}

TEST(BreakpointRules, GradientThresholdUsesTheChosenMeasure) {
  BreakpointSet set;
  set.gradient_enabled = true;
  set.gradient_threshold = 10.0f;
  // L2 12 > 10 but max |g| 3 < 10.
  const GradientStatsEvent event = Gradient(0, 1, 12.0f, 3.0f);
  const auto by_norm = CheckGradientStats(set, event);
  ASSERT_TRUE(by_norm);
  EXPECT_EQ(by_norm->kind, BreakpointKind::kGradientAbove);
  EXPECT_DOUBLE_EQ(by_norm->value, 12.0);
  EXPECT_DOUBLE_EQ(by_norm->threshold, 10.0);
  set.gradient_measure = GradientMeasure::kMaxAbs;
  EXPECT_FALSE(CheckGradientStats(set, event));
  // Equal to the threshold is not above it.
  set.gradient_measure = GradientMeasure::kL2Norm;
  EXPECT_FALSE(CheckGradientStats(set, Gradient(0, 1, 10.0f, 1.0f)));
}

TEST(BreakpointRules, NanWinsOverTheThresholdAndANanNormDoesNotPassIt) {
  BreakpointSet set;
  set.gradient_enabled = true;
  set.gradient_threshold = 1.0f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(CheckGradientStats(set, Gradient(0, 1, nan, nan, 4, 0)));
  set.nan_inf = true;
  const auto hit = CheckGradientStats(set, Gradient(0, 1, 50.0f, 50.0f, 4, 0));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->kind, BreakpointKind::kNanInf);
}

TEST(BreakpointRules, BudgetFiresOnCrossingAndReArmsBelowIt) {
  BreakpointSet set;
  set.budget_enabled = true;
  set.budget_bytes = 1000;
  bool above = false;
  EXPECT_FALSE(CheckMemorySummary(set, Memory(Phase::kForward, 0, 1000), 6, &above));
  const auto hit = CheckMemorySummary(set, Memory(Phase::kForward, 2, 1001), 6, &above);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->kind, BreakpointKind::kArenaAbove);
  EXPECT_EQ(hit->bytes, 1001u);
  EXPECT_EQ(hit->budget, 1000u);
  EXPECT_EQ(hit->op_index, 2u);  // forward: the step is the op
  EXPECT_FALSE(CheckMemorySummary(set, Memory(Phase::kForward, 3, 5000), 6, &above));
  EXPECT_FALSE(CheckMemorySummary(set, Memory(Phase::kBackward, 0, 10), 6, &above));
  const auto again = CheckMemorySummary(set, Memory(Phase::kBackward, 1, 2000), 6, &above);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->op_index, 4u);  // backward step 1 of 6 ops is op 4
  EXPECT_EQ(again->backward_step, 1u);
  EXPECT_FALSE(CheckMemorySummary(set, Memory(Phase::kOptimizer, 0, 1), 6, &above));
  const auto optimizer = CheckMemorySummary(set, Memory(Phase::kOptimizer, 0, 3000), 6, &above);
  ASSERT_TRUE(optimizer);
  EXPECT_EQ(optimizer->op_index, kNoOp);
}

TEST(BreakpointRules, DisabledOrZeroBudgetNeverFires) {
  BreakpointSet set;
  set.budget_bytes = 10;
  bool above = false;
  EXPECT_FALSE(CheckMemorySummary(set, Memory(Phase::kForward, 0, 100), 3, &above));
  set.budget_enabled = true;
  set.budget_bytes = 0;
  above = false;
  EXPECT_FALSE(CheckMemorySummary(set, Memory(Phase::kForward, 0, 100), 3, &above));
}

TEST(BreakpointMonitorTest, GradientHitsOncePerBackwardStep) {
  BreakpointSet set;
  set.nan_inf = true;
  BreakpointMonitor monitor(set, 6);
  EXPECT_FALSE(monitor.beforeBackwardStep(Backward(1, 4)));
  EXPECT_TRUE(monitor.onGradientStats(Gradient(4, 10, 1, 1, 3, 0)));   // weights
  EXPECT_FALSE(monitor.onGradientStats(Gradient(4, 11, 1, 1, 1, 0)));  // bias of the same op
  monitor.beforeBackwardStep(Backward(2, 3));
  EXPECT_TRUE(monitor.onGradientStats(Gradient(3, 7, 1, 1, 1, 0)));
}

TEST(BreakpointMonitorTest, NewBreakpointsReArmTheBudget) {
  BreakpointSet set;
  set.budget_enabled = true;
  set.budget_bytes = 100;
  BreakpointMonitor monitor(set, 6);
  EXPECT_TRUE(monitor.onMemorySummary(Memory(Phase::kForward, 0, 200)));
  EXPECT_FALSE(monitor.onMemorySummary(Memory(Phase::kForward, 1, 300)));
  monitor.setBreakpoints(set);
  EXPECT_TRUE(monitor.onMemorySummary(Memory(Phase::kForward, 2, 300)));
}

TEST(BreakpointReasons, NameTheOpAndTheTensorFromTheGraph) {
  const Graph graph = testing::MakeMlp({16, 8, 4});  // FC RELU FC SOFTMAX
  ASSERT_FALSE(graph.subgraphs.empty());
  BreakpointHit op_hit;
  op_hit.kind = BreakpointKind::kOpIndex;
  op_hit.op_index = 2;
  op_hit.backward_step = 1;
  const QString op_text = DescribeHit(op_hit, &graph);
  EXPECT_TRUE(op_text.contains(QStringLiteral("op #2 FULLY_CONNECTED"))) << op_text.toStdString();
  EXPECT_TRUE(op_text.contains(QStringLiteral("backward step 1")));

  int32_t weights = -1;
  for (size_t t = 0; t < graph.main().tensors.size(); ++t) {
    if (graph.main().tensors[t].name == "dense2/w") weights = static_cast<int32_t>(t);
  }
  ASSERT_GE(weights, 0);
  BreakpointHit nan_hit;
  nan_hit.kind = BreakpointKind::kNanInf;
  nan_hit.op_index = 2;
  nan_hit.tensor = weights;
  nan_hit.nan_count = 5;
  const QString nan_text = DescribeHit(nan_hit, &graph);
  EXPECT_TRUE(nan_text.contains(QStringLiteral("'dense2/w'"))) << nan_text.toStdString();
  EXPECT_TRUE(nan_text.contains(QStringLiteral("5 NaN")));
  // Without a graph (or with an index past it) the reason still names the indices.
  nan_hit.tensor = 9999;
  EXPECT_TRUE(DescribeHit(nan_hit, &graph).contains(QStringLiteral("tensor 9999")));
  EXPECT_TRUE(DescribeHit(nan_hit, nullptr).contains(QStringLiteral("op #2")));

  BreakpointHit budget_hit;
  budget_hit.kind = BreakpointKind::kArenaAbove;
  budget_hit.op_index = kNoOp;
  budget_hit.phase = Phase::kOptimizer;
  budget_hit.bytes = 4096;
  budget_hit.budget = 1024;
  const QString budget_text = DescribeHit(budget_hit, &graph);
  EXPECT_TRUE(budget_text.contains(QStringLiteral("4096 B"))) << budget_text.toStdString();
  EXPECT_TRUE(budget_text.contains(QStringLiteral("optimizer")));
}

TEST(BreakpointSettings, RoundTripThroughAVariantMapKeepsEverythingButTheBudgetValue) {
  BreakpointSet set;
  set.ops = {1, 7};
  set.nan_inf = true;
  set.budget_enabled = true;
  set.budget_bytes = 4096;
  set.gradient_enabled = true;
  set.gradient_threshold = 2.5f;
  set.gradient_measure = GradientMeasure::kMaxAbs;
  BreakpointSet back = BreakpointSet::FromVariantMap(set.toVariantMap());
  EXPECT_EQ(back.budget_bytes, 0u);
  back.budget_bytes = set.budget_bytes;
  EXPECT_EQ(back, set);
}

TEST(BreakpointSettings, BadStoredValuesFallBackToDefaults) {
  QVariantMap map;
  map.insert(QStringLiteral("ops"), QVariantList{QStringLiteral("x"), 3});
  map.insert(QStringLiteral("threshold"), -4.0);
  const BreakpointSet set = BreakpointSet::FromVariantMap(map);
  EXPECT_EQ(set.ops, (std::set<uint32_t>{3}));
  EXPECT_EQ(set.gradient_threshold, BreakpointSet().gradient_threshold);
}

}  // namespace
}  // namespace trainscope
