// SPDX-License-Identifier: Apache-2.0
//
// The Trainer end to end: the simple_mnist task of onert-micro's own tests, batch semantics,
// the arena it runs in, and the events it emits.
#include <gtest/gtest.h>

#include <map>

#include "engine/exec/trainer.h"
#include "tests/common/fixtures.h"
#include "tests/engine/exec/test_models.h"

namespace trainscope {
namespace {

DataSet SimpleMnist(const std::string& dir) {
  DataSet data;
  data.inputs = {testing::ReadFloats(dir + "/train_input.bin")};
  data.targets = testing::ReadFloats(dir + "/train_target.bin");
  data.sample_count = static_cast<uint32_t>(data.targets.size());
  return data;
}

// onert-micro's ADAM_SPARSE_CROSS_ENTROPY_P test, with the labels indexed one per sample.
TEST(Trainer, SimpleMnistReachesNinetyPercentAccuracyWithAdam) {
  TS_REQUIRE_FIXTURES();
  const std::string dir = testing::ModelsDir() + "/onert-micro/simple_mnist";
  Model model;
  ASSERT_TRUE(ReadModelFile(dir + "/model.circle", &model).ok());
  const DataSet data = SimpleMnist(dir);
  ASSERT_EQ(data.sample_count, 20u);
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.learning_rate = 0.001f;
  options.beta1 = 0.9f;
  options.beta2 = 0.999f;
  options.epsilon = 1e-7f;
  options.loss = LossKind::kSparseCrossEntropy;
  options.batch_size = 1;
  Trainer trainer;
  Status status = trainer.Init(&model, options, TrainabilityConfig());
  ASSERT_TRUE(status.ok()) << status.message();
  float before = 0.0f;
  ASSERT_TRUE(trainer.Evaluate(data, MetricKind::kSparseCrossEntropyAccuracy, &before).ok());
  for (int epoch = 0; epoch < 10; ++epoch) ASSERT_TRUE(trainer.TrainEpoch(data).ok());
  float after = 0.0f;
  ASSERT_TRUE(trainer.Evaluate(data, MetricKind::kSparseCrossEntropyAccuracy, &after).ok());
  EXPECT_GT(after, before);
  EXPECT_GE(after, 0.9f);
  EXPECT_EQ(trainer.optimizer_step(), 200u);
  EXPECT_EQ(trainer.epoch(), 10u);
}

// SGD divides the batch sum by the batch size, so one step over samples {a, b} moves the weights
// by the mean of the moves of one-sample steps on a and on b (from the same start).
TEST(Trainer, SgdBatchStepIsTheMeanOfSingleSampleSteps) {
  const DataSet data = testing::ConvNetData(3);
  TrainingOptions options;
  options.loss = LossKind::kSparseCrossEntropy;
  options.learning_rate = 0.05f;
  auto delta = [&](uint32_t batch, uint32_t first) {
    Model model = testing::ConvNet();
    const std::vector<float> before = testing::Floats(model, testing::ConvNetTensors::kFc1W);
    TrainingOptions o = options;
    o.batch_size = batch;
    Trainer trainer;
    EXPECT_TRUE(trainer.Init(&model, o, TrainabilityConfig()).ok());
    EXPECT_TRUE(trainer.TrainStep(data, first).ok());
    EXPECT_TRUE(trainer.WriteWeightsToModel().ok());
    std::vector<float> after = testing::Floats(model, testing::ConvNetTensors::kFc1W);
    for (size_t i = 0; i < after.size(); ++i) after[i] -= before[i];
    return after;
  };
  const std::vector<float> a = delta(1, 0), b = delta(1, 1), c = delta(1, 2);
  const std::vector<float> batch = delta(3, 0);
  double largest = 0.0;
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_NEAR(batch[i], (a[i] + b[i] + c[i]) / 3.0f, 1e-6f) << "weight " << i;
    largest = std::max(largest, static_cast<double>(std::fabs(batch[i])));
  }
  EXPECT_GT(largest, 1e-4) << "the step must actually move the weights";
}

// Adam does not divide by the batch size: with two identical samples the summed gradient is
// twice one sample's, and Adam's first step (m/sqrt(v) = sign) moves by the same lr anyway.
TEST(Trainer, AdamFirstStepMovesEveryTrainedWeightByAboutTheLearningRate) {
  Model model = testing::ConvNet();
  const std::vector<float> before = testing::Floats(model, testing::ConvNetTensors::kFc2W);
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.learning_rate = 0.01f;
  options.beta2 = 0.999f;
  options.epsilon = 1e-12f;
  options.loss = LossKind::kSparseCrossEntropy;
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&model, options, TrainabilityConfig()).ok());
  ASSERT_TRUE(trainer.TrainStep(testing::ConvNetData(1), 0).ok());
  ASSERT_TRUE(trainer.WriteWeightsToModel().ok());
  const std::vector<float> after = testing::Floats(model, testing::ConvNetTensors::kFc2W);
  int moved = 0;
  for (size_t i = 0; i < after.size(); ++i) {
    const float step = std::fabs(after[i] - before[i]);
    if (step > 0.0f) {
      EXPECT_NEAR(step, 0.01f, 1e-4f) << "weight " << i;
      ++moved;
    }
  }
  EXPECT_GT(moved, 0);
}

// Records every memory event and checks that buffers live at the same time never share bytes.
class ArenaChecker : public TrainingObserver {
 public:
  void OnMemory(const MemoryEvent& event) override {
    const auto key =
        std::make_pair(event.offset, event.tensor * 16 + static_cast<int>(event.category));
    if (event.alloc) {
      for (const auto& [other_key, other] : live_) {
        const bool overlap =
            event.offset < other.offset + other.bytes && other.offset < event.offset + event.bytes;
        if (overlap) ++overlaps;
      }
      live_[key] = event;
      ++allocations;
    } else {
      live_.erase(key);
    }
  }
  void OnBackwardStep(const BackwardStepEvent& event) override {
    if (event.begin) backward_ops.push_back(event.op_index);
  }
  void OnLoss(const LossEvent&) override { ++losses; }
  void OnOptimizerStep(const OptimizerStepEvent&) override { ++optimizer_steps; }
  void OnGradientStats(const GradientStatsEvent& event) override {
    stats_tensors.push_back(event.tensor);
  }
  int overlaps = 0, allocations = 0, losses = 0, optimizer_steps = 0;
  std::vector<uint32_t> backward_ops;
  std::vector<int32_t> stats_tensors;

 private:
  std::map<std::pair<uint64_t, int>, MemoryEvent> live_;
};

TEST(Trainer, RunsInItsArenaWithoutOverlapsAndReportsEveryBackwardStep) {
  Model model = testing::ConvNet();
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.loss = LossKind::kSparseCrossEntropy;
  options.batch_size = 2;
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&model, options, TrainabilityConfig()).ok());
  ArenaChecker checker;
  trainer.set_observer(&checker);
  ASSERT_TRUE(trainer.TrainStep(testing::ConvNetData(2), 0).ok());
  EXPECT_EQ(checker.overlaps, 0);
  EXPECT_GT(checker.allocations, 20);
  EXPECT_EQ(checker.losses, 2);
  EXPECT_EQ(checker.optimizer_steps, 1);
  // Two samples, each walking ops 5..0 in reverse.
  EXPECT_EQ(checker.backward_ops, (std::vector<uint32_t>{5, 4, 3, 2, 1, 0, 5, 4, 3, 2, 1, 0}));
  EXPECT_FALSE(checker.stats_tensors.empty());
  EXPECT_LE(trainer.memory().lower_bound_bytes, trainer.memory().arena_bytes);
  EXPECT_GE(trainer.memory().heap_peak_bytes, trainer.memory().lower_bound_bytes / 2);
}

// GRU trains end to end: every one of its parameters moves and the loss falls well below where
// it started (the gradients themselves are checked against finite differences in
// backward_gru_test).
TEST(Trainer, GruLearnsTheMeanOfASequence) {
  Model model = testing::GruRegression();
  ASSERT_FALSE(model.graph().subgraphs.empty());
  const Model initial = testing::GruRegression();
  TrainingOptions options;
  options.loss = LossKind::kMse;
  options.optimizer = OptimizerKind::kAdam;
  options.learning_rate = 0.01f;
  Trainer trainer;
  const Status init = trainer.Init(&model, options, {});
  ASSERT_TRUE(init.ok()) << init.message();
  const DataSet data = testing::GruRegressionData(16);
  float first = 0.0f;
  ASSERT_TRUE(trainer.TrainEpoch(data, &first).ok());
  float last = first;
  for (int epoch = 0; epoch < 150; ++epoch) ASSERT_TRUE(trainer.TrainEpoch(data, &last).ok());
  EXPECT_LT(last, first / 4.0f) << "first epoch " << first << ", last " << last;
  ASSERT_TRUE(trainer.WriteWeightsToModel().ok());
  for (int32_t tensor = 1; tensor <= 5; ++tensor) {
    EXPECT_NE(testing::Floats(model, tensor), testing::Floats(initial, tensor))
        << model.graph().main().tensors[tensor].name << " did not train";
  }
}

TEST(Trainer, BadDataIsRefusedWithAClearMessage) {
  Model model = testing::ConvNet();
  TrainingOptions options;
  options.loss = LossKind::kSparseCrossEntropy;
  options.batch_size = 2;
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&model, options, TrainabilityConfig()).ok());
  DataSet data = testing::ConvNetData(2);
  data.targets[1] = 7.0f;  // class 7 of 3
  Status status = trainer.TrainStep(data, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("sample 1"), std::string::npos) << status.message();
  status = trainer.TrainStep(testing::ConvNetData(2), 1);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("needs 3 samples"), std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace trainscope
