// SPDX-License-Identifier: Apache-2.0
//
// Experiments without a window: every arm starts from the same initial weights, an arm equals a
// local session of the same choice run from the start, running again reproduces every curve,
// freezing layers lowers the planned memory by what PlanTrainabilityCost says, and bad specs are
// refused with a message that names the arm.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "tests/app/wait_for.h"
#include "tests/engine/exec/test_models.h"
#include "ui/session/experiment.h"
#include "ui/session/sources/local_event_source.h"

namespace trainscope {
namespace {

using namespace std::chrono_literals;

ExperimentSpec ConvNetSpec(uint32_t epochs) {
  ExperimentSpec spec;
  spec.model_bytes = testing::ConvNet().bytes();
  spec.options.optimizer = OptimizerKind::kAdam;
  spec.options.learning_rate = 0.01f;
  spec.options.loss = LossKind::kSparseCrossEntropy;
  spec.options.metric = MetricKind::kSparseCrossEntropyAccuracy;
  spec.options.epochs = epochs;
  spec.train = testing::ConvNetData(6);
  TrainabilityConfig last_two;
  last_two.num_train_layers = 2;
  spec.arms = {{QStringLiteral("all layers"), TrainabilityConfig()},
               {QStringLiteral("last 2 layers"), last_two}};
  return spec;
}

TEST(Experiment, ArmsTrainFromTheSameWeightsAndRepeatExactly) {
  const ExperimentSpec spec = ConvNetSpec(4);
  ExperimentSnapshot first;
  ASSERT_TRUE(RunExperiment(spec, &first).ok());
  ASSERT_EQ(first.arms.size(), 2u);
  EXPECT_FALSE(first.running);
  EXPECT_EQ(first.steps_per_epoch, 6u);
  for (const ArmResult& arm : first.arms) {
    EXPECT_TRUE(arm.error.isEmpty()) << arm.error.toStdString();
    EXPECT_EQ(arm.step_loss.size(), 24u);
    EXPECT_EQ(arm.epoch_loss.size(), 4u);
    EXPECT_EQ(arm.epoch_metric.size(), 4u);
    EXPECT_GT(arm.median_step_seconds, 0.0);
  }
  // The first forward pass sees the same initial weights whatever trains: equal first losses.
  EXPECT_EQ(first.arms[0].step_loss[0], first.arms[1].step_loss[0]);
  EXPECT_NE(first.arms[0].step_loss[1], first.arms[1].step_loss[1]) << "then they part";

  ExperimentSnapshot again;
  ASSERT_TRUE(RunExperiment(spec, &again).ok());
  for (size_t a = 0; a < 2; ++a) {
    EXPECT_EQ(again.arms[a].step_loss, first.arms[a].step_loss);
    EXPECT_EQ(again.arms[a].epoch_metric, first.arms[a].epoch_metric);
  }
}

TEST(Experiment, AnArmEqualsALocalSessionOfTheSameChoice) {
  ExperimentSpec spec = ConvNetSpec(2);
  spec.arms.erase(spec.arms.begin());  // "last 2 layers" alone
  ExperimentSnapshot experiment;
  ASSERT_TRUE(RunExperiment(spec, &experiment).ok());

  struct Losses final : BatchRecorder {
    void record(const EventBatch& batch) override {
      std::lock_guard<std::mutex> lock(mutex);
      for (const LossEvent& loss : batch.losses) values.push_back(loss.value);
    }
    std::mutex mutex;
    std::vector<double> values;
  };
  auto store = std::make_shared<SessionStore>();
  LocalEventSource source(store);
  LocalSetup setup;
  setup.options = spec.options;
  setup.trainability = spec.arms[0].trainability;
  setup.train = spec.train;
  ASSERT_TRUE(source.load(testing::ConvNet(), setup, QStringLiteral("convnet")).ok());
  auto losses = std::make_shared<Losses>();
  source.setRecorder(losses);
  source.start();
  ASSERT_TRUE(
      testing::WaitFor([&] { return source.progress() == LocalEventSource::Progress::kFinished; }));
  source.stop();
  EXPECT_EQ(losses->values, experiment.arms[0].step_loss);
}

TEST(Experiment, CostsAreThePlannedFiguresOfEachChoice) {
  const ExperimentSpec spec = ConvNetSpec(1);
  ExperimentSnapshot result;
  ASSERT_TRUE(RunExperiment(spec, &result).ok());
  const Model model = testing::ConvNet();
  for (const ArmResult& arm : result.arms) {
    const TrainabilityCost expected =
        PlanTrainabilityCost(model.graph(), spec.options, arm.arm.trainability);
    EXPECT_TRUE(arm.cost.planned);
    EXPECT_EQ(arm.cost.heap_peak_bytes, expected.heap_peak_bytes);
    EXPECT_EQ(arm.cost.arena_bytes, expected.arena_bytes);
    EXPECT_EQ(arm.cost.trained_params, expected.trained_params);
  }
  // Freezing the lower layers trains fewer parameters and keeps fewer gradients live.
  EXPECT_LT(result.arms[1].cost.trained_params, result.arms[0].cost.trained_params);
  EXPECT_LT(result.arms[1].cost.heap_peak_bytes, result.arms[0].cost.heap_peak_bytes);
  // And the trainer plans exactly that arena.
  Model copy = testing::ConvNet();
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&copy, spec.options, spec.arms[1].trainability).ok());
  EXPECT_EQ(trainer.memory().arena_bytes, result.arms[1].cost.arena_bytes);
  EXPECT_EQ(trainer.memory().heap_peak_bytes, result.arms[1].cost.heap_peak_bytes);
}

TEST(Experiment, RunnerPublishesWhileTrainingAndCancelKeepsWhatRan) {
  ExperimentRunner runner;
  EXPECT_EQ(runner.snapshot(), nullptr);
  ASSERT_TRUE(runner.start(ConvNetSpec(100000)).ok());
  ASSERT_NE(runner.snapshot(), nullptr);
  EXPECT_EQ(runner.snapshot()->arms.size(), 2u) << "the arms are there before the first step";
  ASSERT_TRUE(testing::WaitFor([&] {
    const auto s = runner.snapshot();
    return s->arms[1].epoch_loss.size() >= 3;
  }));
  EXPECT_TRUE(runner.running());
  runner.cancel();
  const auto stopped = runner.snapshot();
  EXPECT_FALSE(stopped->running);
  EXPECT_TRUE(stopped->cancelled);
  const size_t steps = stopped->arms[0].step_loss.size();
  EXPECT_GE(steps, 18u);
  // Turns: no arm is more than one step ahead of another.
  EXPECT_LE(steps - stopped->arms[1].step_loss.size(), 1u);
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(runner.snapshot()->arms[0].step_loss.size(), steps) << "cancelled means stopped";
}

TEST(Experiment, BadSpecsAreRefusedWithTheArmNamed) {
  ExperimentSpec spec = ConvNetSpec(1);
  spec.arms[1].trainability.op_ranks[99] = TrainRank::kAll;
  ExperimentSnapshot result;
  Status status = RunExperiment(spec, &result);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("arm 'last 2 layers'"), std::string::npos)
      << status.message();

  spec = ConvNetSpec(1);
  spec.arms.clear();
  EXPECT_FALSE(RunExperiment(spec, &result).ok());
  spec = ConvNetSpec(1);
  spec.options.batch_size = 7;  // more than the 6 samples
  status = RunExperiment(spec, &result);
  EXPECT_FALSE(status.ok());
  spec = ConvNetSpec(1);
  spec.model_bytes.resize(10);
  EXPECT_FALSE(RunExperiment(spec, &result).ok());
  ExperimentRunner runner;
  EXPECT_FALSE(runner.start(spec).ok());
  EXPECT_FALSE(runner.running());
}

TEST(Experiment, TrainabilityNamesReadAsTheLayersPanelSaysThem) {
  const Model model = testing::ConvNet();
  const Subgraph& main = model.graph().main();
  TrainabilityConfig config;
  EXPECT_EQ(DescribeTrainability(main, config), QStringLiteral("all layers"));
  config.num_train_layers = 1;
  EXPECT_EQ(DescribeTrainability(main, config), QStringLiteral("last layer"));
  config.num_train_layers = 3;
  EXPECT_EQ(DescribeTrainability(main, config), QStringLiteral("last 3 layers"));
  config.num_train_layers = static_cast<uint32_t>(main.operators.size());
  EXPECT_EQ(DescribeTrainability(main, config), QStringLiteral("all layers"));
  config.op_ranks[4] = TrainRank::kOnlyBias;
  EXPECT_EQ(DescribeTrainability(main, config), QStringLiteral("1 op(s) by rank"));
}

}  // namespace
}  // namespace trainscope
