// SPDX-License-Identifier: Apache-2.0
//
// The local engine as an event source: it trains on a worker thread, pauses and steps at the
// boundaries the debugger offers, and applies trainability changes at the next optimizer step.
#include <gtest/gtest.h>

#include <chrono>
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

class LocalSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LocalSetup setup;
    setup.options.loss = LossKind::kSparseCrossEntropy;
    setup.options.metric = MetricKind::kSparseCrossEntropyAccuracy;
    setup.options.epochs = 100000;  // runs until stopped
    setup.train = testing::ConvNetData(6);
    ASSERT_TRUE(source_.load(testing::ConvNet(), setup, QStringLiteral("convnet")).ok());
  }
  void TearDown() override { source_.stop(); }

  std::shared_ptr<const SessionSnapshot> Pause() {
    source_.pause();
    EXPECT_TRUE(WaitFor([&] { return source_.state() == EventSource::State::kPaused; }));
    std::this_thread::sleep_for(20ms);  // a paused worker publishes nothing more
    return store_->snapshot();
  }

  std::shared_ptr<SessionStore> store_ = std::make_shared<SessionStore>();
  LocalEventSource source_{store_};
};

TEST_F(LocalSourceTest, TrainsOnAWorkerThreadAndPublishesEvents) {
  source_.start();
  EXPECT_TRUE(WaitFor([&] { return store_->snapshot()->progress.optimizer_step >= 5; }));
  const auto paused = Pause();
  EXPECT_GE(paused->progress.optimizer_step, 5u);
  EXPECT_EQ(Pause()->progress.optimizer_step, paused->progress.optimizer_step)
      << "nothing runs while paused";
}

TEST_F(LocalSourceTest, StepBackwardOpRunsExactlyOneBackwardOp) {
  source_.start();
  ASSERT_TRUE(WaitFor([&] { return store_->snapshot()->progress.optimizer_step >= 2; }));
  Pause();
  // A step publishes when it pauses again: wait for that publication, not for the old state.
  auto step = [&] {
    const uint64_t generation = store_->generation();
    source_.stepBackwardOp();
    EXPECT_TRUE(WaitFor([&] {
      return store_->generation() != generation && source_.state() == EventSource::State::kPaused;
    }));
    return store_->snapshot();
  };
  const auto first = step();
  EXPECT_TRUE(first->progress.has_backward_step) << "a step pauses after a backward op ran";
  const auto before = step();
  const auto after = step();
  const bool same_sample = after->progress.optimizer_step == before->progress.optimizer_step &&
                           after->progress.sample == before->progress.sample;
  if (same_sample) {
    EXPECT_EQ(after->progress.done_ops.size(), before->progress.done_ops.size() + 1);
  } else {
    // Paused after the sample's last backward op: the step finishes the sample, runs the next
    // forward pass and stops after the next sample's first backward op.
    EXPECT_EQ(before->progress.done_ops.size(), 6u);
    EXPECT_EQ(after->progress.done_ops.size(), 1u);
  }
}

TEST_F(LocalSourceTest, StepBatchAdvancesOneOptimizerStep) {
  source_.start();
  ASSERT_TRUE(WaitFor([&] { return store_->snapshot()->progress.last_optimizer_step >= 2; }));
  // last_optimizer_step is the latest update applied (optimizer_step is the one the current
  // sample contributes to, which only moves when the next sample begins).
  const uint32_t before = Pause()->progress.last_optimizer_step;
  source_.stepBatch();
  ASSERT_TRUE(WaitFor([&] {
    return store_->snapshot()->progress.last_optimizer_step > before &&
           source_.state() == EventSource::State::kPaused;
  }));
  std::this_thread::sleep_for(50ms);  // a paused worker must not run on
  EXPECT_EQ(store_->snapshot()->progress.last_optimizer_step, before + 1);
  EXPECT_EQ(source_.state(), EventSource::State::kPaused);
}

TEST_F(LocalSourceTest, TrainabilityChangeAppliesAtTheNextOptimizerStep) {
  source_.start();
  ASSERT_TRUE(WaitFor([&] { return store_->snapshot()->progress.optimizer_step >= 2; }));
  source_.setTrainability(2, {});
  source_.resume();
  // After the change only ops 5 and 4 run backward: op 3 never becomes the current op again.
  ASSERT_TRUE(WaitFor([&] {
    for (const StatusMessage& m : *store_->snapshot()->messages) {
      if (m.text.contains(QStringLiteral("trainability applied"))) return true;
    }
    return false;
  }));
  const uint32_t applied_at = store_->snapshot()->progress.optimizer_step;
  ASSERT_TRUE(
      WaitFor([&] { return store_->snapshot()->progress.optimizer_step >= applied_at + 3; }));
  for (int i = 0; i < 20; ++i) {
    const auto snapshot = store_->snapshot();
    if (snapshot->progress.has_backward_step) {
      EXPECT_GE(snapshot->progress.op_index, 4u);
    }
    std::this_thread::sleep_for(1ms);
  }
}

}  // namespace
}  // namespace trainscope
