// SPDX-License-Identifier: Apache-2.0
//
// The Trainer's heap numbers (Trainer::memory() and the MemorySummaryEvents of a real step) are
// onert-micro's heap, the same accounting ComputeMemoryReport gives for the same optimizer, batch
// size and trainability, even where the trainer's own arena differs (TrainScope's kernel scratch,
// widened half-rank gradients, no SOFTMAX Jacobian row).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/exec/trainer.h"
#include "engine/memory/memory_report.h"
#include "tests/engine/exec/test_models.h"

namespace trainscope {
namespace {

class SummaryRecorder : public TrainingObserver {
 public:
  uint32_t wanted_events() const override { return kEventMemorySummary; }
  void OnMemorySummary(const MemorySummaryEvent& event) override { summaries.push_back(event); }
  std::vector<MemorySummaryEvent> summaries;
};

struct Setup {
  OptimizerKind optimizer;
  uint32_t batch;
  TrainabilityConfig config;
};

std::string Describe(const Setup& setup) {
  return std::string(setup.optimizer == OptimizerKind::kAdam ? "Adam" : "SGD") + ", batch " +
         std::to_string(setup.batch) + ", train layers " +
         std::to_string(setup.config.num_train_layers) + ", " +
         std::to_string(setup.config.op_ranks.size()) + " op ranks";
}

// Runs one train step and checks the trainer's heap numbers tick by tick against the report's.
// Returns the report's heap peak.
uint64_t ExpectTrainerHeapEqualsReport(const Setup& setup) {
  SCOPED_TRACE(Describe(setup));
  Model model = testing::ConvNet();
  MemoryReportOptions report_options;
  report_options.optimizer = setup.optimizer;
  report_options.batch_size = setup.batch;
  MemoryReport report;
  Status status = ComputeMemoryReport(model.graph(), setup.config, report_options, &report);
  EXPECT_TRUE(status.ok()) << status.message();

  TrainingOptions options;
  options.optimizer = setup.optimizer;
  options.batch_size = setup.batch;
  options.loss = LossKind::kSparseCrossEntropy;
  Trainer trainer;
  status = trainer.Init(&model, options, setup.config);
  EXPECT_TRUE(status.ok()) << status.message();
  if (!status.ok()) return 0;
  SummaryRecorder recorder;
  trainer.set_observer(&recorder);
  status = trainer.TrainStep(testing::ConvNetData(setup.batch), 0);
  EXPECT_TRUE(status.ok()) << status.message();

  EXPECT_EQ(trainer.memory().heap_peak_bytes, report.heap_peak_bytes);
  uint64_t observed_peak = 0, observed_live = 0;
  for (const MemorySummaryEvent& event : recorder.summaries) {
    observed_peak = std::max(observed_peak, event.peak_bytes);
    observed_live = std::max(observed_live, event.current_bytes);
    EXPECT_LT(event.tick, report.rows.size());
    if (event.tick < report.rows.size()) {
      EXPECT_EQ(event.current_bytes, report.rows[event.tick].live_bytes) << "tick " << event.tick;
    }
  }
  // Every tick of the step is summarized once (later samples of a batch reuse sample 1's ticks).
  EXPECT_GE(recorder.summaries.size(), report.rows.size());
  EXPECT_EQ(observed_peak, report.heap_peak_bytes);
  EXPECT_EQ(observed_live, report.heap_peak_bytes);
  return report.heap_peak_bytes;
}

TEST(TrainerHeap, EqualsTheMemoryReportForEveryOptimizerAndBatchSize) {
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    for (uint32_t batch : {1u, 2u, 3u}) {
      ExpectTrainerHeapEqualsReport({optimizer, batch, TrainabilityConfig()});
    }
  }
}

TEST(TrainerHeap, EqualsTheMemoryReportForPartialTrainability) {
  TrainabilityConfig last_two;
  last_two.num_train_layers = 2;
  // fc1's weights have 5 rows: onert-micro allocates 2 gradient rows for the lower half, the
  // trainer widens its own buffer to the 3 rows it trains; the heap stays onert-micro's.
  TrainabilityConfig ranks;
  ranks.op_ranks = {{0, TrainRank::kOnlyBias}, {3, TrainRank::kLowerHalf}};
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    for (uint32_t batch : {1u, 2u}) {
      ExpectTrainerHeapEqualsReport({optimizer, batch, last_two});
      ExpectTrainerHeapEqualsReport({optimizer, batch, ranks});
    }
  }
}

// Counted by hand for the last two operators (FULLY_CONNECTED fc2, SOFTMAX). The forward pass of
// CONV_2D holds the input x (36 floats, 144 B) and conv/y (48 floats, 192 B): 336 B, more than
// any backward step. From the second sample on, the accumulated gradients of fc2 (w 15 + b 3
// floats = 72 B) are live through it; Adam's m and v (2 x 72 B) are live always.
TEST(TrainerHeap, LastTwoLayersPeakMatchesAHandCount) {
  TrainabilityConfig last_two;
  last_two.num_train_layers = 2;
  EXPECT_EQ(ExpectTrainerHeapEqualsReport({OptimizerKind::kSgd, 1, last_two}), 336u);
  EXPECT_EQ(ExpectTrainerHeapEqualsReport({OptimizerKind::kSgd, 2, last_two}), 336u + 72u);
  EXPECT_EQ(ExpectTrainerHeapEqualsReport({OptimizerKind::kAdam, 1, last_two}), 336u + 144u);
  EXPECT_EQ(ExpectTrainerHeapEqualsReport({OptimizerKind::kAdam, 2, last_two}), 336u + 72u + 144u);
}

// A batch of two or more holds a later sample's weight gradients next to the accumulated ones, so
// the batch-1 report (the overload without options) is below the peak of a batch-2 step by exactly
// the parameter gradient bytes.
TEST(TrainerHeap, BatchOfTwoAddsOneSetOfWeightGradients) {
  Model model = testing::ConvNet();
  MemoryReport batch_one;
  ASSERT_TRUE(ComputeMemoryReport(model.graph(), {}, OptimizerKind::kAdam, false, &batch_one).ok());
  uint64_t gradient_bytes = 0;
  for (const ParameterGradient& p :
       ListParameterGradients(model.graph().main(), SelectBackwardRange(model.graph().main(), {})))
    gradient_bytes += p.gradient_bytes();
  // conv 27+3, fc1 60+5, fc2 15+3 floats.
  EXPECT_EQ(gradient_bytes, 113u * 4u);
  EXPECT_EQ(ExpectTrainerHeapEqualsReport({OptimizerKind::kAdam, 2, TrainabilityConfig()}),
            batch_one.heap_peak_bytes + gradient_bytes);
}

}  // namespace
}  // namespace trainscope
