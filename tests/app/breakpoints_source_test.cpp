// SPDX-License-Identifier: Apache-2.0
//
// Breakpoints on the local engine: a real training run pauses before a watched op's backward
// step, on NaN in a gradient, above a RAM budget and above a gradient norm, says why, and goes
// on to the next hit when continued.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "tests/app/wait_for.h"
#include "tests/engine/exec/test_models.h"
#include "ui/session/session_snapshot.h"
#include "ui/session/session_store.h"
#include "ui/session/sources/local_event_source.h"

namespace trainscope {
namespace {

using namespace std::chrono_literals;

using testing::WaitFor;

class BreakpointSourceTest : public ::testing::Test {
 protected:
  // Ops of ConvNet(): 0 CONV_2D, 1 MAX_POOL_2D, 2 RESHAPE, 3 FC, 4 FC, 5 SOFTMAX; backward runs
  // 5, 4, 3, ...
  void Load(DataSet data) {
    LocalSetup setup;
    setup.options.loss = LossKind::kSparseCrossEntropy;
    setup.options.metric = MetricKind::kSparseCrossEntropyAccuracy;
    setup.options.epochs = 100000;  // runs until stopped
    setup.train = std::move(data);
    Model model = testing::ConvNet();
    graph_ = model.graph();
    ASSERT_TRUE(source_.load(std::move(model), setup, QStringLiteral("convnet")).ok());
  }
  void TearDown() override { source_.stop(); }

  // Starts or continues, then waits for the next hit and the pause that follows it.
  std::shared_ptr<const SessionSnapshot> RunToHit() {
    const uint64_t hits = source_.breakpointHitCount();
    if (source_.state() == EventSource::State::kPaused) {
      source_.resume();
    } else {
      source_.start();
    }
    EXPECT_TRUE(WaitFor([&] {
      return source_.breakpointHitCount() > hits && source_.state() == EventSource::State::kPaused;
    }));
    return store_->snapshot();
  }

  std::shared_ptr<SessionStore> store_ = std::make_shared<SessionStore>();
  LocalEventSource source_{store_};
  Graph graph_;
};

TEST_F(BreakpointSourceTest, OpBreakpointPausesExactlyBeforeThatOpsBackwardStep) {
  Load(testing::ConvNetData(6));
  BreakpointSet set;
  set.ops = {3};
  ASSERT_TRUE(source_.setBreakpoints(set));
  const auto snapshot = RunToHit();
  const std::optional<BreakpointHit> hit = source_.lastBreakpointHit();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->kind, BreakpointKind::kOpIndex);
  EXPECT_EQ(hit->op_index, 3u);
  EXPECT_EQ(hit->backward_step, 2u);  // i = n-1-k
  // The last backward event is op 4 finishing: op 3 has not begun.
  ASSERT_TRUE(snapshot->progress.has_backward_step);
  EXPECT_EQ(snapshot->progress.op_index, 4u);
  EXPECT_FALSE(snapshot->progress.backward_step_running);
  EXPECT_EQ(snapshot->progress.done_ops, (std::vector<uint32_t>{5, 4}));
  EXPECT_TRUE(source_.lastBreakpointReason().contains(QStringLiteral("op #3 FULLY_CONNECTED")))
      << source_.lastBreakpointReason().toStdString();
  // The reason is also in the store, as the newest message.
  ASSERT_FALSE(snapshot->messages->empty());
  EXPECT_EQ(snapshot->messages->back().text, source_.lastBreakpointReason());
  EXPECT_EQ(snapshot->messages->back().level, MessageLevel::kWarning);
}

TEST_F(BreakpointSourceTest, ContinuingAfterAHitRunsOnToTheNextHit) {
  Load(testing::ConvNetData(6));
  BreakpointSet set;
  set.ops = {3};
  source_.setBreakpoints(set);
  const auto first = RunToHit();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(source_.breakpointHitCount(), 1u) << "a paused run does not hit again";
  const auto second = RunToHit();
  EXPECT_EQ(source_.breakpointHitCount(), 2u);
  EXPECT_EQ(second->progress.samples_started, first->progress.samples_started + 1)
      << "the next hit is op 3 of the next sample";
  EXPECT_EQ(second->progress.done_ops, (std::vector<uint32_t>{5, 4}));
}

TEST_F(BreakpointSourceTest, ClearingTheBreakpointsLetsTheRunGoOn) {
  Load(testing::ConvNetData(6));
  BreakpointSet set;
  set.ops = {3};
  source_.setBreakpoints(set);
  RunToHit();
  source_.setBreakpoints(BreakpointSet());
  const uint32_t step = store_->snapshot()->progress.optimizer_step;
  source_.resume();
  EXPECT_TRUE(WaitFor([&] { return store_->snapshot()->progress.optimizer_step >= step + 3; }));
  EXPECT_EQ(source_.breakpointHitCount(), 1u);
}

TEST_F(BreakpointSourceTest, NanInAGradientPausesAndNamesTheTensor) {
  DataSet data = testing::ConvNetData(6);
  data.inputs[0][20] = std::numeric_limits<float>::quiet_NaN();  // sample 0
  Load(std::move(data));
  BreakpointSet set;
  set.nan_inf = true;
  source_.setBreakpoints(set);
  const auto snapshot = RunToHit();
  const std::optional<BreakpointHit> hit = source_.lastBreakpointHit();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->kind, BreakpointKind::kNanInf);
  EXPECT_GT(hit->nan_count + hit->inf_count, 0u);
  ASSERT_GE(hit->tensor, 0);
  const std::string& name = graph_.main().tensors[static_cast<size_t>(hit->tensor)].name;
  EXPECT_FALSE(name.empty());
  EXPECT_TRUE(source_.lastBreakpointReason().contains(QString::fromStdString(name)))
      << source_.lastBreakpointReason().toStdString();
  EXPECT_TRUE(source_.lastBreakpointReason().contains(QStringLiteral("NaN")));
  // The store holds the offending statistics, and the run stopped at the first gradient that
  // held NaN: no other tensor has seen one yet.
  bool seen = false;
  for (const TensorGradient& tensor : snapshot->tensors) {
    if (tensor.tensor == hit->tensor) {
      seen = tensor.nan_total + tensor.inf_total > 0;
      EXPECT_EQ(tensor.op_index, hit->op_index);
    } else {
      EXPECT_EQ(tensor.nan_total + tensor.inf_total, 0u) << "tensor " << tensor.tensor;
    }
  }
  EXPECT_TRUE(seen);
}

TEST_F(BreakpointSourceTest, TinyRamBudgetPausesWhenLiveBytesRiseAboveIt) {
  Load(testing::ConvNetData(6));
  BreakpointSet set;
  set.budget_enabled = true;
  set.budget_bytes = 64;
  source_.setBreakpoints(set);
  const auto snapshot = RunToHit();
  const std::optional<BreakpointHit> hit = source_.lastBreakpointHit();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->kind, BreakpointKind::kArenaAbove);
  EXPECT_GT(hit->bytes, 64u);
  EXPECT_EQ(hit->budget, 64u);
  // Paused at the tick that crossed: the newest live-byte value in the store is the hit's.
  EXPECT_EQ(snapshot->currentBytes(), hit->bytes);
  EXPECT_TRUE(source_.lastBreakpointReason().contains(QStringLiteral("budget")));
}

TEST_F(BreakpointSourceTest, GradientNormAboveTheThresholdPausesWithTheNorm) {
  Load(testing::ConvNetData(6));
  BreakpointSet set;
  set.gradient_enabled = true;
  set.gradient_threshold = 1e-6f;
  source_.setBreakpoints(set);
  const auto snapshot = RunToHit();
  const std::optional<BreakpointHit> hit = source_.lastBreakpointHit();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->kind, BreakpointKind::kGradientAbove);
  bool compared = false;
  for (const TensorGradient& tensor : snapshot->tensors) {
    if (tensor.tensor != hit->tensor || !tensor.has_stats) continue;
    EXPECT_FLOAT_EQ(static_cast<float>(hit->value), tensor.stats.l2);
    compared = true;
  }
  EXPECT_TRUE(compared);
  // A threshold no gradient reaches never pauses.
  set.gradient_threshold = 1e30f;
  source_.setBreakpoints(set);
  const uint32_t step = snapshot->progress.optimizer_step;
  source_.resume();
  EXPECT_TRUE(WaitFor([&] { return store_->snapshot()->progress.optimizer_step >= step + 3; }));
  EXPECT_EQ(source_.breakpointHitCount(), 1u);
}

}  // namespace
}  // namespace trainscope
