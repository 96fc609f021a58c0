// SPDX-License-Identifier: Apache-2.0
//
// DetailBudget keeps detail within its two limits, measured on simulated runs where a detailed
// step takes longer than a plain one: never more detailed steps than the rate allows, never more
// extra time than the share (past the first second's burst), every step of a short run and of a
// run whose detail costs little.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "engine/core/detail_budget.h"

namespace trainscope {
namespace {

constexpr uint64_t kUs = 1000;
constexpr uint64_t kMs = 1000 * kUs;

struct RunTally {
  int steps = 0;
  int detailed = 0;
  uint64_t elapsed_ns = 0;
  uint64_t extra_ns = 0;  // what the detailed steps took beyond a plain one
};

// Runs steps until `duration_ns` of simulated time: a plain step takes `plain_ns`, a detailed one
// `plain_ns + extra_ns`.
RunTally Simulate(DetailBudget* budget, uint64_t plain_ns, uint64_t extra_ns, uint64_t duration_ns,
                  uint64_t start_ns = 7 * kMs) {
  RunTally tally;
  uint64_t now = start_ns;
  while (now - start_ns < duration_ns) {
    const bool detailed = budget->Take(now);
    ++tally.steps;
    tally.detailed += detailed ? 1 : 0;
    tally.extra_ns += detailed ? extra_ns : 0;
    now += plain_ns + (detailed ? extra_ns : 0);
  }
  tally.elapsed_ns = now - start_ns;
  return tally;
}

TEST(DetailBudget, AFastRunIsDetailedAtTheRateAndNoMore) {
  DetailBudget budget(100.0, 0.0);
  // 10 s of 50 us steps: 100 a second, plus the first second's burst of 100.
  const RunTally run = Simulate(&budget, 50 * kUs, 0, 10000 * kMs);
  EXPECT_GE(run.detailed, 1000);
  EXPECT_LE(run.detailed, 1100);
  EXPECT_EQ(budget.skipped_steps(), static_cast<uint64_t>(run.steps - run.detailed));
}

TEST(DetailBudget, ARunSlowerThanTheRateIsDetailedAtEveryStep) {
  DetailBudget budget(100.0, 0.0);
  const RunTally run = Simulate(&budget, 25 * kMs, 0, 2000 * kMs);
  EXPECT_EQ(run.detailed, run.steps);
}

TEST(DetailBudget, AShortRunIsDetailedWhole) {
  DetailBudget budget;  // 100 steps/s, 5 %
  const RunTally run = Simulate(&budget, 50 * kUs, 100 * kUs, 6 * 150 * kUs);
  EXPECT_EQ(run.steps, 6);
  EXPECT_EQ(run.detailed, 6);
}

TEST(DetailBudget, ExpensiveDetailStaysWithinItsShareOfTheTime) {
  // Detail triples a 50 us step; at 5 % the budget allows about one detailed step in 40.
  DetailBudget budget(0.0, 0.05);
  const RunTally run = Simulate(&budget, 50 * kUs, 100 * kUs, 20000 * kMs);
  const double share = static_cast<double>(run.extra_ns) / static_cast<double>(run.elapsed_ns);
  // The first second's 50 ms and one step's overdraft above the share, at most.
  EXPECT_LE(share, 0.05 + (50.0 * kMs + 100.0 * kUs) / static_cast<double>(run.elapsed_ns));
  EXPECT_GT(share, 0.045);  // and it uses the budget, not a fraction of it
  EXPECT_NEAR(budget.detail_extra_ns(), 100.0 * kUs, 1.0);
}

TEST(DetailBudget, TheTighterLimitWins) {
  // Cheap detail on a fast run: the rate limits. Expensive detail on a slow run: the share does.
  DetailBudget rate_bound(100.0, 0.05);
  const RunTally fast = Simulate(&rate_bound, 20 * kUs, 1 * kUs, 10000 * kMs);
  EXPECT_GE(fast.detailed, 1000);
  EXPECT_LE(fast.detailed, 1100);
  DetailBudget share_bound(100.0, 0.05);
  // 5 % of 40 s at 4 ms a detailed step: about 500 (+ the first second's 12).
  const RunTally slow = Simulate(&share_bound, 2 * kMs, 4 * kMs, 40000 * kMs);
  EXPECT_LT(slow.detailed, 530);
  EXPECT_GT(slow.detailed, 450);
}

TEST(DetailBudget, CheapDetailOnASlowRunIsKeptAtEveryStepButTheTimingProbe) {
  DetailBudget budget;  // 100 steps/s, 5 %
  const RunTally run = Simulate(&budget, 30 * kMs, 100 * kUs, 3000 * kMs);
  // Two 30 ms steps could have spent the first second's 50 ms: the third is left plain to time
  // one, and from then on each detailed step costs 0.1 ms.
  EXPECT_EQ(run.detailed, run.steps - 1);
  EXPECT_EQ(budget.skipped_steps(), 1u);
  EXPECT_NEAR(budget.detail_extra_ns(), 100.0 * kUs, 1.0);
}

TEST(DetailBudget, TimeBetweenEndStepAndTheNextTakeIsNotCharged) {
  // Steps of 50 us plain, 150 us detailed, each followed by 1 ms of the caller's own work (a
  // pace, a view) that detail does not change: only the steps count.
  DetailBudget budget(0.0, 0.05);
  uint64_t now = 0, extra = 0;
  int detailed = 0;
  for (int i = 0; i < 20000; ++i) {
    const bool d = budget.Take(now);
    detailed += d ? 1 : 0;
    const uint64_t step = d ? 150 * kUs : 50 * kUs;
    extra += d ? 100 * kUs : 0;
    now += step;
    budget.EndStep(now);
    now += 1 * kMs;
  }
  EXPECT_NEAR(budget.detail_extra_ns(), 100.0 * kUs, 1.0);
  // The share refills by wall time: a step and its 1 ms earn about 55 us, half a detailed step.
  EXPECT_GT(detailed, 9000);
  EXPECT_LT(detailed, 13000);
  EXPECT_LE(static_cast<double>(extra), 0.05 * static_cast<double>(now) + 50.0 * kMs);
}

TEST(DetailBudget, APauseInsideAStepCountsAsAnOutlierOnly) {
  DetailBudget budget(0.0, 0.05);
  // Settle: plain 50 us, detailed 150 us.
  RunTally run = Simulate(&budget, 50 * kUs, 100 * kUs, 200 * kMs, 0);
  uint64_t now = run.elapsed_ns;
  // The next detailed step is held for 30 s (a breakpoint), then training goes on.
  while (!budget.Take(now)) now += 50 * kUs;
  now += 30000 * kMs;
  budget.EndStep(now);
  EXPECT_LE(budget.detail_extra_ns(), DetailBudget::kOutlierFactor * 150.0 * kUs);
  // After a few seconds of training the estimate is back near the truth.
  run = Simulate(&budget, 50 * kUs, 100 * kUs, 5000 * kMs, now);
  EXPECT_NEAR(budget.detail_extra_ns(), 100.0 * kUs, 10.0 * kUs);
}

TEST(DetailBudget, TheFirstStepAndTheOneAfterResetAreDetailed) {
  DetailBudget budget(1.0, 0.0);
  EXPECT_TRUE(budget.Take(7 * kMs));
  EXPECT_FALSE(budget.Take(8 * kMs));
  budget.Reset();
  EXPECT_TRUE(budget.Take(9 * kMs));
  EXPECT_FALSE(budget.Take(10 * kMs));
}

TEST(DetailBudget, NoLimitMeansEveryStep) {
  for (double value : {0.0, -3.0, std::numeric_limits<double>::quiet_NaN()}) {
    DetailBudget budget(value, value);
    EXPECT_TRUE(budget.every_step());
    EXPECT_EQ(budget.steps_per_second(), 0.0);
    EXPECT_EQ(budget.time_share(), 0.0);
    const RunTally run = Simulate(&budget, 1 * kUs, 5 * kUs, 10 * kMs);
    EXPECT_EQ(run.detailed, run.steps);
  }
}

TEST(DetailBudget, ChangedLimitsTakeEffectAtTheNextStep) {
  DetailBudget budget(0.0, 0.0);
  EXPECT_EQ(Simulate(&budget, 1 * kUs, 0, 100 * kUs).detailed, 100);
  budget.set_limits(1.0, 0.0);
  // The first step under the new limits is detailed (a full budget of one step), none of the
  // next 99 microseconds' steps.
  EXPECT_EQ(Simulate(&budget, 1 * kUs, 0, 100 * kUs, 200 * kMs).detailed, 1);
}

TEST(DetailBudget, AClockThatGoesBackStartsOver) {
  DetailBudget budget(1.0, 0.0);
  EXPECT_TRUE(budget.Take(5000 * kMs));
  EXPECT_TRUE(budget.Take(10 * kMs));  // back in time: detailed, spacing restarts from here
  EXPECT_FALSE(budget.Take(20 * kMs));
  EXPECT_TRUE(budget.Take(1010 * kMs));
}

TEST(DetailBudget, ATinyRateNeverOverflows) {
  DetailBudget budget(1e-12, 0.0);
  EXPECT_TRUE(budget.Take(0));
  EXPECT_FALSE(budget.Take(std::numeric_limits<uint64_t>::max() - 1));
}

}  // namespace
}  // namespace trainscope
