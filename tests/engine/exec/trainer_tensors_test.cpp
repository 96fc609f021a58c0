// SPDX-License-Identifier: Apache-2.0
//
// Trainer::ReadTensor, checked against what the step does with what it read: a weight gradient
// read before the optimizer is exactly the change SGD applies to the weights, Adam's first
// moment after one step is (1 - beta1) times that gradient, and an activation read at the gate
// is the forward output Predict computes on the same weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/exec/trainer.h"
#include "tests/engine/exec/test_models.h"

namespace trainscope {
namespace {

using T = testing::ConvNetTensors;
constexpr int32_t kFc1Output = 9;       // "fc1/y", FC(5, RELU)
constexpr int32_t kProbabilities = 13;  // "p", SOFTMAX

// Runs `read` at the gate before op `op`'s backward step (once, in the first sample).
class ReadingGate : public ExecutionGate {
 public:
  ReadingGate(uint32_t op, std::function<void()> read) : op_(op), read_(std::move(read)) {}
  void BeforeBackwardStep(const BackwardStepEvent& event) override {
    if (event.op_index == op_ && !done_) {
      done_ = true;
      read_();
    }
  }
  bool done() const { return done_; }

 private:
  uint32_t op_;
  std::function<void()> read_;
  bool done_ = false;
};

TrainingOptions Options(OptimizerKind optimizer) {
  TrainingOptions options;
  options.loss = LossKind::kSparseCrossEntropy;
  options.optimizer = optimizer;
  options.learning_rate = 0.1f;
  return options;
}

TEST(TrainerTensors, WeightsBeforeTrainingAreTheModelsAndActivationsAreNotHeld) {
  Model model = testing::ConvNet();
  const std::vector<float> weights = testing::Floats(model, T::kFc1W);
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&model, Options(OptimizerKind::kSgd), {}).ok());
  TensorCopy copy;
  ASSERT_TRUE(trainer.ReadTensor(T::kFc1W, TensorAspect::kValue, &copy).ok());
  EXPECT_EQ(copy.values, weights);
  EXPECT_EQ(copy.shape, (std::vector<int32_t>{5, 12}));

  Status activation = trainer.ReadTensor(kFc1Output, TensorAspect::kValue, &copy);
  EXPECT_EQ(activation.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(activation.message()).find("not held"), std::string::npos)
      << activation.message();
  EXPECT_EQ(trainer.ReadTensor(T::kFc1W, TensorAspect::kAdamM, &copy).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(trainer.ReadTensor(99, TensorAspect::kValue, &copy).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(trainer.ReadTensor(-1, TensorAspect::kGradient, &copy).code(),
            StatusCode::kInvalidArgument);
}

TEST(TrainerTensors, GradientReadBeforeTheUpdateIsWhatSgdApplies) {
  Model model = testing::ConvNet();
  const std::vector<float> before = testing::Floats(model, T::kFc2W);
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&model, Options(OptimizerKind::kSgd), {}).ok());
  TensorCopy gradient;
  Status read;
  // fc2's weight gradient is computed at op 4's step; op 3's gate comes after it.
  ReadingGate gate(
      3, [&] { read = trainer.ReadTensor(T::kFc2W, TensorAspect::kGradient, &gradient); });
  trainer.set_gate(&gate);
  ASSERT_TRUE(trainer.TrainStep(testing::ConvNetData(1), 0).ok());
  ASSERT_TRUE(gate.done());
  ASSERT_TRUE(read.ok()) << read.message();
  TensorCopy after;
  ASSERT_TRUE(trainer.ReadTensor(T::kFc2W, TensorAspect::kValue, &after).ok());
  ASSERT_EQ(gradient.values.size(), before.size());
  double largest = 0.0;
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_NEAR(before[i] - 0.1f * gradient.values[i], after.values[i], 1e-6f) << i;
    largest = std::max(largest, std::abs(static_cast<double>(gradient.values[i])));
  }
  EXPECT_GT(largest, 1e-3) << "a zero gradient would make the check vacuous";
  // After the optimizer step the gradients are freed: reading one says so.
  Status freed = trainer.ReadTensor(T::kFc2W, TensorAspect::kGradient, &gradient);
  EXPECT_EQ(freed.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(freed.message()).find("not held"), std::string::npos) << freed.message();
}

TEST(TrainerTensors, AdamFirstMomentAfterOneStepIsOneMinusBetaTimesTheGradient) {
  Model model = testing::ConvNet();
  const TrainingOptions options = Options(OptimizerKind::kAdam);
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&model, options, {}).ok());
  TensorCopy gradient;
  ReadingGate gate(3,
                   [&] { (void)trainer.ReadTensor(T::kFc2B, TensorAspect::kGradient, &gradient); });
  trainer.set_gate(&gate);
  ASSERT_TRUE(trainer.TrainStep(testing::ConvNetData(1), 0).ok());
  TensorCopy m;
  TensorCopy v;
  ASSERT_TRUE(trainer.ReadTensor(T::kFc2B, TensorAspect::kAdamM, &m).ok());
  ASSERT_TRUE(trainer.ReadTensor(T::kFc2B, TensorAspect::kAdamV, &v).ok());
  ASSERT_EQ(gradient.values.size(), 3u);
  ASSERT_EQ(m.values.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const float g = gradient.values[i];
    EXPECT_NEAR(m.values[i], (1.0f - options.beta1) * g, 1e-6f) << i;
    EXPECT_NEAR(v.values[i], (1.0f - options.beta2) * g * g, 1e-6f) << i;
  }
}

TEST(TrainerTensors, ActivationAtTheGateIsTheForwardOutput) {
  Model model = testing::ConvNet();
  Model reference_model = testing::ConvNet();
  Trainer reference;
  ASSERT_TRUE(reference.Init(&reference_model, Options(OptimizerKind::kSgd), {}).ok());
  const DataSet data = testing::ConvNetData(1);
  std::vector<std::vector<float>> expected;
  ASSERT_TRUE(reference.Predict({data.inputs[0].data()}, &expected).ok());

  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&model, Options(OptimizerKind::kSgd), {}).ok());
  TensorCopy probabilities;
  Status read;
  ReadingGate gate(
      5, [&] { read = trainer.ReadTensor(kProbabilities, TensorAspect::kValue, &probabilities); });
  trainer.set_gate(&gate);
  ASSERT_TRUE(trainer.TrainStep(data, 0).ok());
  ASSERT_TRUE(read.ok()) << read.message();
  ASSERT_EQ(expected.size(), 1u);
  ASSERT_EQ(probabilities.values.size(), expected[0].size());
  for (size_t i = 0; i < expected[0].size(); ++i) {
    EXPECT_NEAR(probabilities.values[i], expected[0][i], 1e-6f) << i;
  }
}

// Runs `read` when the first sample's backward pass has finished (its gradients still bound).
class SampleEndReader : public TrainingObserver {
 public:
  explicit SampleEndReader(std::function<void()> read) : read_(std::move(read)) {}
  uint32_t wanted_events() const override { return kEventSample; }
  void OnSample(const SampleEvent& event) override {
    if (!event.begin && !done_) {
      done_ = true;
      read_();
    }
  }

 private:
  std::function<void()> read_;
  bool done_ = false;
};

TEST(TrainerTensors, HalfRankGradientHoldsOnlyItsRows) {
  Model model = testing::ConvNet();
  TrainabilityConfig config;
  config.op_ranks = {{3, TrainRank::kUpperHalf}, {4, TrainRank::kAll}};
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&model, Options(OptimizerKind::kSgd), config).ok());
  TensorCopy half;
  TensorCopy full;
  Status read_half;
  Status read_full;
  SampleEndReader reader([&] {
    read_half = trainer.ReadTensor(T::kFc1W, TensorAspect::kGradient, &half);
    read_full = trainer.ReadTensor(T::kFc2W, TensorAspect::kGradient, &full);
  });
  trainer.set_observer(&reader);
  ASSERT_TRUE(trainer.TrainStep(testing::ConvNetData(1), 0).ok());
  ASSERT_TRUE(read_half.ok()) << read_half.message();
  ASSERT_TRUE(read_full.ok()) << read_full.message();
  EXPECT_EQ(half.shape, (std::vector<int32_t>{2, 12}));  // UP_1_2_PART of 5 rows: rows 0..1
  EXPECT_EQ(half.values.size(), 24u);
  EXPECT_EQ(full.shape, (std::vector<int32_t>{3, 5}));
  // The conv layer is outside the backward range: it has no gradient, and the reason says so.
  TensorCopy none;
  Status frozen = trainer.ReadTensor(T::kConvW, TensorAspect::kGradient, &none);
  EXPECT_EQ(frozen.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(frozen.message()).find("no gradient"), std::string::npos)
      << frozen.message();
}

// Reads fc2's weight gradient at the gates before ops 4 (its own backward step) and 3 (the next)
// of every sample.
class EveryStepGradientReader : public ExecutionGate {
 public:
  explicit EveryStepGradientReader(const Trainer* trainer) : trainer_(trainer) {}
  void BeforeBackwardStep(const BackwardStepEvent& event) override {
    if (event.op_index != 3 && event.op_index != 4) return;
    TensorCopy copy;
    const Status status = trainer_->ReadTensor(T::kFc2W, TensorAspect::kGradient, &copy);
    (event.op_index == 4 ? before : after).push_back({status, copy.values});
  }
  std::vector<std::pair<Status, std::vector<float>>> before, after;

 private:
  const Trainer* trainer_;
};

// An FC op writes its weight gradient whole in a batch's first sample: the buffer is not
// zero-filled first, so before its backward step it holds the previous step's bytes and a read
// says it is not computed yet. With a learning rate of zero every step sees the same weights, so
// each step's gradient must be the first's to the bit (nothing of the step before is left in
// it), and a batch of the same sample twice exactly twice that (the second sample adds).
TEST(TrainerTensors, AWeightGradientWrittenWholeKeepsNothingOfTheStepBefore) {
  for (uint32_t batch : {1u, 2u}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Model model = testing::ConvNet();
    TrainingOptions options = Options(OptimizerKind::kSgd);
    options.learning_rate = 0.0f;
    options.batch_size = batch;
    Trainer trainer;
    ASSERT_TRUE(trainer.Init(&model, options, {}).ok());
    EveryStepGradientReader reader(&trainer);
    trainer.set_gate(&reader);
    DataSet data = testing::ConvNetData(1);
    if (batch == 2) {
      // The same sample twice.
      for (std::vector<float>& input : data.inputs) {
        const std::vector<float> once = input;
        input.insert(input.end(), once.begin(), once.end());
      }
      const std::vector<float> targets = data.targets;
      data.targets.insert(data.targets.end(), targets.begin(), targets.end());
      data.sample_count = 2;
    }
    for (int step = 0; step < 3; ++step) ASSERT_TRUE(trainer.TrainStep(data, 0).ok());
    ASSERT_EQ(reader.before.size(), 3u * batch);
    ASSERT_EQ(reader.after.size(), 3u * batch);
    for (size_t i = 0; i < reader.before.size(); ++i) {
      const Status& status = reader.before[i].first;
      if (i % batch == 0) {
        EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << "sample " << i;
        EXPECT_NE(std::string(status.message()).find("not computed yet"), std::string::npos)
            << status.message();
      } else {
        EXPECT_TRUE(status.ok()) << "a later sample adds into the sum so far: " << status.message();
      }
    }
    const std::vector<float>& first = reader.after[batch - 1].second;
    ASSERT_TRUE(reader.after[batch - 1].first.ok()) << reader.after[batch - 1].first.message();
    ASSERT_EQ(first.size(), 15u);
    if (batch == 2) {
      const std::vector<float>& one_sample = reader.after[0].second;
      for (size_t k = 0; k < first.size(); ++k) EXPECT_EQ(first[k], 2.0f * one_sample[k]) << k;
    }
    for (int step = 1; step < 3; ++step) {
      EXPECT_EQ(reader.after[step * batch + batch - 1].second, first) << "step " << step;
    }
    float largest = 0.0f;
    for (float g : first) largest = std::max(largest, std::fabs(g));
    EXPECT_GT(largest, 1e-3f) << "a zero gradient would make the check vacuous";
  }
}

}  // namespace
}  // namespace trainscope
