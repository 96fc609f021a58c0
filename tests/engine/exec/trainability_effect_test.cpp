// SPDX-License-Identifier: Apache-2.0
//
// Trainability as onert-micro selects it, asserted on real weights after a real step: what a
// rank or "last N layers" says trains is exactly what changes, and the backward loop visits
// exactly the ops of the range.
#include <gtest/gtest.h>

#include "engine/exec/trainer.h"
#include "tests/engine/exec/test_models.h"

namespace trainscope {
namespace {

using T = testing::ConvNetTensors;

class CountingGate : public ExecutionGate {
 public:
  void BeforeBackwardStep(const BackwardStepEvent& event) override {
    ops.push_back(event.op_index);
  }
  std::vector<uint32_t> ops;
};

struct StepResult {
  Model before;
  Model after;
  std::vector<uint32_t> backward_ops;
};

StepResult TrainOneStep(const TrainabilityConfig& config) {
  StepResult result{testing::ConvNet(), testing::ConvNet(), {}};
  TrainingOptions options;
  options.loss = LossKind::kSparseCrossEntropy;
  options.learning_rate = 0.1f;
  Trainer trainer;
  Status status = trainer.Init(&result.after, options, config);
  EXPECT_TRUE(status.ok()) << status.message();
  CountingGate gate;
  trainer.set_gate(&gate);
  EXPECT_TRUE(trainer.TrainStep(testing::ConvNetData(1), 0).ok());
  EXPECT_TRUE(trainer.WriteWeightsToModel().ok());
  result.backward_ops = gate.ops;
  return result;
}

// Rows of dim 0 whose values changed.
std::vector<int> ChangedRows(const StepResult& r, int tensor) {
  const std::vector<float> a = testing::Floats(r.before, tensor);
  const std::vector<float> b = testing::Floats(r.after, tensor);
  const int rows = r.before.graph().main().tensors[tensor].shape[0];
  const size_t per_row = a.size() / static_cast<size_t>(rows);
  std::vector<int> changed;
  for (int row = 0; row < rows; ++row) {
    for (size_t e = 0; e < per_row; ++e) {
      if (a[row * per_row + e] != b[row * per_row + e]) {
        changed.push_back(row);
        break;
      }
    }
  }
  return changed;
}

// Rows a rank may change: those in [begin, end) that move when everything trains (a row whose
// unit is inactive for this sample gets a zero gradient under any rank).
std::vector<int> ExpectedRows(int tensor, int begin, int end) {
  std::vector<int> rows;
  for (int row : ChangedRows(TrainOneStep(TrainabilityConfig()), tensor)) {
    if (row >= begin && row < end) rows.push_back(row);
  }
  EXPECT_FALSE(rows.empty()) << "the test needs at least one active row in the half";
  return rows;
}

bool Changed(const StepResult& r, int tensor) {
  return testing::Floats(r.before, tensor) != testing::Floats(r.after, tensor);
}

TEST(TrainabilityEffect, AllLayersTrainEveryWeightAndBias) {
  const StepResult r = TrainOneStep(TrainabilityConfig());
  EXPECT_GE(ChangedRows(r, T::kFc1W).size(), 4u);
  EXPECT_EQ(ChangedRows(r, T::kConvW), (std::vector<int>{0, 1, 2}));
  for (int tensor : {T::kConvW, T::kConvB, T::kFc1W, T::kFc1B, T::kFc2W, T::kFc2B}) {
    EXPECT_TRUE(Changed(r, tensor)) << "tensor " << tensor;
  }
  EXPECT_EQ(r.backward_ops, (std::vector<uint32_t>{5, 4, 3, 2, 1, 0}));
}

TEST(TrainabilityEffect, LastTwoLayersVisitTwoOpsAndTrainOnlyTheLastDense) {
  TrainabilityConfig config;
  config.num_train_layers = 2;
  const StepResult r = TrainOneStep(config);
  EXPECT_EQ(r.backward_ops, (std::vector<uint32_t>{5, 4}));
  EXPECT_TRUE(Changed(r, T::kFc2W));
  EXPECT_TRUE(Changed(r, T::kFc2B));
  for (int tensor : {T::kConvW, T::kConvB, T::kFc1W, T::kFc1B}) {
    EXPECT_FALSE(Changed(r, tensor)) << "tensor " << tensor;
  }
}

TEST(TrainabilityEffect, OnlyBiasChangesOnlyTheBias) {
  TrainabilityConfig config;
  config.op_ranks = {{3, TrainRank::kOnlyBias}};
  const StepResult r = TrainOneStep(config);
  EXPECT_EQ(r.backward_ops, (std::vector<uint32_t>{5, 4, 3}));
  EXPECT_TRUE(Changed(r, T::kFc1B));
  for (int tensor : {T::kFc1W, T::kFc2W, T::kFc2B, T::kConvW, T::kConvB}) {
    EXPECT_FALSE(Changed(r, tensor)) << "tensor " << tensor << " is not listed or is a weight";
  }
}

TEST(TrainabilityEffect, UpperHalfChangesExactlyTheFirstHalfOfTheRows) {
  TrainabilityConfig config;
  config.op_ranks = {{3, TrainRank::kUpperHalf}};
  const StepResult r = TrainOneStep(config);
  EXPECT_EQ(ChangedRows(r, T::kFc1W), ExpectedRows(T::kFc1W, 0, 2));  // d0 = 5: rows [0, 2)
  EXPECT_TRUE(Changed(r, T::kFc1B));
}

TEST(TrainabilityEffect, LowerHalfChangesExactlyTheSecondHalfOfTheRows) {
  TrainabilityConfig config;
  config.op_ranks = {{3, TrainRank::kLowerHalf}, {0, TrainRank::kLowerHalf}};
  const StepResult r = TrainOneStep(config);
  EXPECT_EQ(ChangedRows(r, T::kFc1W), ExpectedRows(T::kFc1W, 2, 5));    // d0 = 5: rows [2, 5)
  EXPECT_EQ(ChangedRows(r, T::kConvW), ExpectedRows(T::kConvW, 1, 3));  // d0 = 3: rows [1, 3)
  EXPECT_EQ(r.backward_ops, (std::vector<uint32_t>{5, 4, 3, 2, 1, 0}));
  EXPECT_FALSE(Changed(r, T::kFc2W)) << "op 4 is in the backward range but not listed";
}

TEST(TrainabilityEffect, ConfigWithAnOutOfRangeOpIsRefused) {
  Model model = testing::ConvNet();
  TrainabilityConfig config;
  config.op_ranks = {{9, TrainRank::kAll}};
  Trainer trainer;
  TrainingOptions options;
  Status status = trainer.Init(&model, options, config);
  EXPECT_FALSE(status.ok());
}

}  // namespace
}  // namespace trainscope
