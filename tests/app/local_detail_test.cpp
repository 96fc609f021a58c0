// SPDX-License-Identifier: Apache-2.0
//
// The local engine at full speed reports every optimizer step (samples, losses, the update) and
// the per-op detail of a few, within its DetailBudget; whatever needs every step's detail (a
// breakpoint on gradients, a pace, stepping) gets it; the views keep the last detailed picture.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>

#include "tests/app/endless_convnet.h"
#include "tests/app/wait_for.h"
#include "tests/engine/exec/test_models.h"
#include "ui/session/session_snapshot.h"
#include "ui/session/session_store.h"
#include "ui/session/sources/local_event_source.h"

namespace trainscope {
namespace {

using testing::WaitFor;

// Counts what every published batch held, per optimizer step.
class EventTally final : public BatchRecorder {
 public:
  struct Step {
    int losses = 0;
    int backward_steps = 0;
    int memory = 0;
    int gradient_stats = 0;
    int update_ratios = 0;
    bool updated = false;  // its OPTIMIZER_STEP arrived
  };
  void record(const EventBatch& batch) override {
    std::lock_guard<std::mutex> lock(mutex_);
    // Events carry their step where they have one; the others belong to the step in progress.
    for (const EventRef& ref : batch.order) {
      switch (ref.kind) {
        case EventKind::kSample:
          current_ = batch.samples[ref.index].optimizer_step;
          break;
        case EventKind::kLoss:
          ++steps_[batch.losses[ref.index].optimizer_step].losses;
          break;
        case EventKind::kBackwardStep:
          ++steps_[current_].backward_steps;
          break;
        case EventKind::kMemory:
          ++steps_[current_].memory;
          break;
        case EventKind::kGradientStats:
          ++steps_[batch.gradient_stats[ref.index].optimizer_step].gradient_stats;
          break;
        case EventKind::kUpdateRatio:
          ++steps_[batch.update_ratios[ref.index].optimizer_step].update_ratios;
          break;
        case EventKind::kOptimizerStep:
          steps_[batch.optimizer_steps[ref.index].optimizer_step].updated = true;
          break;
        default:
          break;
      }
    }
  }
  std::map<uint32_t, Step> steps() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return steps_;
  }

 private:
  mutable std::mutex mutex_;
  uint32_t current_ = 0;
  std::map<uint32_t, Step> steps_;
};

class LocalDetailTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        source_.load(testing::ConvNet(), testing::EndlessConvNetSetup(), QStringLiteral("convnet"))
            .ok());
    source_.setRecorder(tally_);
  }
  void TearDown() override { source_.stop(); }

  // Trains at full speed until `steps` optimizer steps have been applied, then pauses.
  std::map<uint32_t, EventTally::Step> RunFor(uint32_t steps) {
    source_.start();
    EXPECT_TRUE(WaitFor([&] { return source_.optimizerSteps() >= steps; }));
    source_.pause();
    EXPECT_TRUE(WaitFor([&] { return source_.state() == EventSource::State::kPaused; }));
    return tally_->steps();
  }

  std::shared_ptr<SessionStore> store_ = std::make_shared<SessionStore>();
  LocalEventSource source_{store_};
  std::shared_ptr<EventTally> tally_ = std::make_shared<EventTally>();
};

bool HasMessageContaining(const SessionSnapshot& snapshot, const QString& text) {
  for (const StatusMessage& message : *snapshot.messages) {
    if (message.text.contains(text)) return true;
  }
  return false;
}

// The ConvNet has 6 operators, all trained: 6 backward steps a sample, 6 parameter tensors.
constexpr int kBackwardOps = 6;
constexpr int kParameters = 6;

TEST_F(LocalDetailTest, AtFullSpeedEveryStepIsReportedAndAFewCarryTheirDetailWhole) {
  const auto steps = RunFor(3000);
  int updated = 0, detailed = 0;
  for (const auto& [step, tally] : steps) {
    if (!tally.updated) continue;  // the step the pause interrupted
    ++updated;
    EXPECT_EQ(tally.losses, 1) << "step " << step;
    if (tally.gradient_stats == 0) {
      EXPECT_EQ(tally.update_ratios, 0) << "step " << step;
      EXPECT_EQ(tally.memory, 0) << "step " << step;
      continue;
    }
    ++detailed;
    // A detailed step is whole: every statistic, ratio and backward step of it.
    EXPECT_EQ(tally.gradient_stats, kParameters) << "step " << step;
    EXPECT_EQ(tally.update_ratios, kParameters) << "step " << step;
    EXPECT_EQ(tally.backward_steps, 2 * kBackwardOps) << "step " << step;
    EXPECT_GT(tally.memory, 0) << "step " << step;
  }
  EXPECT_GE(updated, 3000);
  EXPECT_GE(detailed, 1);
  EXPECT_LT(detailed, updated / 4) << "detail was not thinned at full speed";
  const auto snapshot = store_->snapshot();
  EXPECT_TRUE(HasMessageContaining(*snapshot, QStringLiteral("per-op detail")));
  // The views show the last detailed step, not the empty picture of a step without detail.
  EXPECT_FALSE(snapshot->memory->empty());
  EXPECT_GT(snapshot->memory->peakBytes(), 0u);
}

TEST_F(LocalDetailTest, ABreakpointOnGradientsKeepsTheirStatisticsInEveryStep) {
  BreakpointSet breakpoints;
  breakpoints.gradient_enabled = true;
  breakpoints.gradient_threshold = 1e30f;  // watched, never hit
  source_.setBreakpoints(breakpoints);
  const auto steps = RunFor(3000);
  int updated = 0, with_memory = 0;
  for (const auto& [step, tally] : steps) {
    if (!tally.updated) continue;
    ++updated;
    EXPECT_EQ(tally.gradient_stats, kParameters) << "step " << step;
    with_memory += tally.memory > 0 ? 1 : 0;
  }
  EXPECT_GE(updated, 3000);
  // What the breakpoint does not read is still thinned.
  EXPECT_LT(with_memory, updated / 4);
  EXPECT_TRUE(HasMessageContaining(*store_->snapshot(), QStringLiteral("per-op detail")));
}

TEST_F(LocalDetailTest, WithoutLimitsEveryStepCarriesItsDetailAtFullSpeed) {
  source_.setDetailLimits(0.0, 0.0);
  const auto steps = RunFor(3000);
  int updated = 0;
  for (const auto& [step, tally] : steps) {
    if (!tally.updated) continue;
    ++updated;
    EXPECT_EQ(tally.gradient_stats, kParameters) << "step " << step;
  }
  EXPECT_GE(updated, 3000);
}

TEST_F(LocalDetailTest, StepsAfterAPauseInAStepWithoutDetailGoOpByOp) {
  RunFor(3000);
  // Wherever the pause landed, stepping goes one backward op at a time, each named.
  std::set<uint32_t> ops_seen;
  for (int i = 0; i < 2 * kBackwardOps; ++i) {
    const uint64_t generation = store_->generation();
    source_.stepBackwardOp();
    ASSERT_TRUE(WaitFor([&] {
      return store_->generation() != generation && source_.state() == EventSource::State::kPaused;
    }));
    const auto snapshot = store_->snapshot();
    ASSERT_TRUE(snapshot->progress.has_backward_step);
    EXPECT_FALSE(snapshot->progress.backward_step_running) << "paused after the op, not inside";
    ops_seen.insert(snapshot->progress.op_index);
  }
  EXPECT_EQ(ops_seen.size(), static_cast<size_t>(kBackwardOps));
}

}  // namespace
}  // namespace trainscope
