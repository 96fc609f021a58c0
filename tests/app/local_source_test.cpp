// SPDX-License-Identifier: Apache-2.0
//
// The local engine as an event source: it trains on a worker thread, pauses and steps at the
// boundaries the debugger offers, and applies trainability changes at the next optimizer step.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <numeric>
#include <thread>

#include "tests/app/endless_convnet.h"
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
    ASSERT_TRUE(
        source_.load(testing::ConvNet(), testing::EndlessConvNetSetup(), QStringLiteral("convnet"))
            .ok());
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
    // Paused after the sample's last backward op (op 0): the step finishes the sample, runs the
    // next forward pass and stops after the next sample's first backward op (op 5). The sample
    // the pause interrupted may list only the ops since then: at full speed it ran without
    // per-op detail until the pause turned it back on.
    ASSERT_FALSE(before->progress.done_ops.empty());
    EXPECT_EQ(before->progress.done_ops.back(), 0u);
    EXPECT_EQ(after->progress.done_ops, std::vector<uint32_t>{5});
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

// Keeps every loss a source publishes, in order.
class LossRecorder final : public BatchRecorder {
 public:
  void record(const EventBatch& batch) override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const LossEvent& loss : batch.losses) losses_.push_back(loss.value);
  }
  std::vector<float> losses() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return losses_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<float> losses_;
};

class LocalScheduleTest : public ::testing::Test {
 protected:
  // A short schedule: 3 epochs of 6 samples.
  // Epochs no test reaches the end of: at full speed the ConvNet trains 6,000 steps in a tenth of
  // a second, before a test that waits for a few losses can stop it.
  static constexpr uint32_t kEndless = 1000000;
  void Load(uint32_t epochs = 3) {
    LocalSetup setup;
    setup.options.optimizer = OptimizerKind::kAdam;
    setup.options.learning_rate = 0.01f;
    setup.options.loss = LossKind::kSparseCrossEntropy;
    setup.options.metric = MetricKind::kSparseCrossEntropyAccuracy;
    setup.options.epochs = epochs;
    setup.train = testing::ConvNetData(6);
    ASSERT_TRUE(source_.load(testing::ConvNet(), setup, QStringLiteral("convnet")).ok());
  }
  std::vector<float> RunToTheEnd() {
    auto recorder = std::make_shared<LossRecorder>();
    source_.setRecorder(recorder);
    source_.start();
    EXPECT_TRUE(WaitFor([&] {
      return source_.progress() == LocalEventSource::Progress::kFinished &&
             source_.state() == EventSource::State::kStopped;
    }));
    return recorder->losses();
  }
  void TearDown() override { source_.stop(); }

  std::shared_ptr<SessionStore> store_ = std::make_shared<SessionStore>();
  LocalEventSource source_{store_};
};

TEST_F(LocalScheduleTest, RestartReproducesTheSameRunFromTheInitialWeights) {
  Load();
  const std::vector<float> first = RunToTheEnd();
  ASSERT_EQ(first.size(), 18u);
  EXPECT_EQ(source_.optimizerSteps(), 18u);
  ASSERT_TRUE(source_.restart().ok());
  EXPECT_EQ(source_.progress(), LocalEventSource::Progress::kFresh);
  EXPECT_EQ(source_.optimizerSteps(), 0u);
  EXPECT_EQ(store_->snapshot()->progress.last_optimizer_step, 0u) << "the store was cleared";
  const std::vector<float> second = RunToTheEnd();
  EXPECT_EQ(second, first) << "same weights, optimizer state and data order: the same losses";
  const auto epoch_mean = [&first](size_t epoch) {
    return std::accumulate(first.begin() + epoch * 6, first.begin() + epoch * 6 + 6, 0.0) / 6;
  };
  EXPECT_LT(epoch_mean(2), epoch_mean(0)) << "the run learns, so a no-op restart would differ";
}

TEST_F(LocalScheduleTest, AnotherScheduleAfterTheEndContinuesFromTheWeightsReached) {
  Load(1);
  const std::vector<float> first = RunToTheEnd();
  ASSERT_EQ(first.size(), 6u);
  const std::vector<float> second = RunToTheEnd();
  ASSERT_EQ(second.size(), 6u);
  EXPECT_NE(second, first) << "continuing trains on from the weights reached, not from the start";
  EXPECT_EQ(source_.optimizerSteps(), 12u);
}

TEST_F(LocalScheduleTest, RunAfterStopStartsAgainFromTheInitialWeights) {
  Load(kEndless);
  auto recorder = std::make_shared<LossRecorder>();
  source_.setRecorder(recorder);
  source_.start();
  ASSERT_TRUE(WaitFor([&] { return recorder->losses().size() >= 10; }));
  source_.stop();
  EXPECT_EQ(source_.progress(), LocalEventSource::Progress::kStopped);
  const std::vector<float> stopped = recorder->losses();
  bool restarted = false;
  QObject::connect(&source_, &LocalEventSource::sessionRestarted, [&] { restarted = true; });
  auto again = std::make_shared<LossRecorder>();
  source_.start();
  EXPECT_TRUE(restarted) << "Run after Stop begins a new session";
  source_.setRecorder(again);  // restart() ended the first recording
  ASSERT_TRUE(WaitFor([&] { return again->losses().size() >= 5; }));
  source_.stop();
  const std::vector<float> losses = again->losses();
  ASSERT_GE(losses.size(), 5u);
  // The recorder attached after start() may miss the first few losses; they line up from the
  // start of the stopped run wherever they begin.
  const auto match =
      std::search(stopped.begin(), stopped.end(), losses.begin(), losses.begin() + 5);
  EXPECT_NE(match, stopped.end()) << "the new run repeats the first run's losses";
  EXPECT_LT(match - stopped.begin(), 6);
}

TEST_F(LocalScheduleTest, PaceHoldsTheStepRateAndStopCutsTheWaitShort) {
  Load(kEndless);
  source_.setStepsPerSecond(20.0);
  source_.start();
  std::this_thread::sleep_for(500ms);
  const uint32_t steps = source_.optimizerSteps();
  // A full-speed run takes microseconds per step; at 20 per second half a second holds about 10.
  EXPECT_LE(steps, 12u);
  EXPECT_GE(steps, 1u);
  const auto before_stop = std::chrono::steady_clock::now();
  source_.setStepsPerSecond(0.5);  // a two-second wait that stop must not sit out
  std::this_thread::sleep_for(50ms);
  source_.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before_stop, 1500ms);
}

TEST_F(LocalScheduleTest, WatchRatePacesEveryBackwardStep) {
  Load(kEndless);
  source_.setStepsPerSecond(2.0);  // 7 pace points per step: 6 backward steps and the update
  source_.stepBackwardOp();
  ASSERT_TRUE(WaitFor([&] { return source_.state() == EventSource::State::kPaused; }));
  const auto begin = std::chrono::steady_clock::now();
  source_.resume();
  ASSERT_TRUE(WaitFor([&] { return store_->snapshot()->progress.done_ops.size() >= 3; }));
  const auto elapsed = std::chrono::steady_clock::now() - begin;
  // The third backward step ends at least one pace point (1/14 s) after the second.
  EXPECT_GE(elapsed, 50ms);
  EXPECT_EQ(source_.optimizerSteps(), 0u) << "the first step is still being watched";
}

}  // namespace
}  // namespace trainscope
