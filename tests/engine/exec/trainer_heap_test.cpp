// SPDX-License-Identifier: Apache-2.0
//
// One plan, one memory truth: a real train step of the Trainer allocates exactly the buffers
// ComputeMemoryReport plans for the same optimizer, batch size and trainability. Its heap figures
// (Trainer::memory() and every MemorySummaryEvent), its arena and the MemoryEvents it emits (each
// buffer at its planned offset, Adam's m and v included, the stack at every tick) equal the
// report's, on generated models and on every float model of the shared fixtures.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/exec/trainer.h"
#include "engine/kernels/kernel.h"
#include "engine/memory/memory_report.h"
#include "engine/train/losses.h"
#include "tests/common/fixtures.h"
#include "tests/engine/exec/test_models.h"

namespace trainscope {
namespace {

class MemoryRecorder : public TrainingObserver {
 public:
  uint32_t wanted_events() const override { return kEventMemory | kEventMemorySummary; }
  void OnMemory(const MemoryEvent& event) override { memory.push_back(event); }
  void OnMemorySummary(const MemorySummaryEvent& event) override { summaries.push_back(event); }
  std::vector<MemoryEvent> memory;
  std::vector<MemorySummaryEvent> summaries;
};

struct Setup {
  OptimizerKind optimizer;
  uint32_t batch;
  TrainabilityConfig config;
};

std::string Describe(const Setup& setup) {
  return std::string(OptimizerName(setup.optimizer)) + ", batch " + std::to_string(setup.batch) +
         ", train layers " + std::to_string(setup.config.num_train_layers) + ", " +
         std::to_string(setup.config.op_ranks.size()) + " op ranks";
}

// Deterministic samples of the model's shapes; the loss is MSE, so targets are output-shaped.
DataSet SamplesFor(const Subgraph& main, uint32_t count) {
  DataSet data;
  data.sample_count = count;
  for (int32_t input : main.inputs) {
    data.inputs.push_back(
        testing::Pattern(main.tensors[input].element_count() * count, 0.5f, 0.3f));
  }
  data.targets =
      testing::Pattern(main.tensors[main.outputs[0]].element_count() * count, 0.2f, 1.1f);
  return data;
}

// Runs one train step and holds everything the trainer reports about memory against the report.
// Returns the report's heap peak (0 when the setup cannot train).
uint64_t ExpectStepEqualsReport(Model model, const Setup& setup, LossKind loss = LossKind::kMse) {
  SCOPED_TRACE(Describe(setup));
  MemoryReportOptions report_options;
  report_options.optimizer = setup.optimizer;
  report_options.batch_size = setup.batch;
  MemoryReport report;
  Status status = ComputeMemoryReport(model.graph(), setup.config, report_options, &report);
  EXPECT_TRUE(status.ok()) << status.message();
  if (!status.ok()) return 0;

  TrainingOptions options;
  options.optimizer = setup.optimizer;
  options.batch_size = setup.batch;
  options.loss = loss;
  Trainer trainer;
  status = trainer.Init(&model, options, setup.config);
  EXPECT_TRUE(status.ok()) << status.message();
  if (!status.ok()) return 0;
  MemoryRecorder recorder;
  trainer.set_observer(&recorder);
  const Subgraph& main = model.graph().main();
  status = trainer.TrainStep(
      loss == LossKind::kMse ? SamplesFor(main, setup.batch) : testing::ConvNetData(setup.batch),
      0);
  EXPECT_TRUE(status.ok()) << status.message();

  EXPECT_EQ(trainer.memory().heap_peak_bytes, report.heap_peak_bytes);
  EXPECT_EQ(trainer.memory().arena_bytes, report.arena_bytes);
  EXPECT_EQ(trainer.memory().lower_bound_bytes, report.lower_bound_bytes);

  // Summaries: the plan's live bytes at every tick.
  uint64_t observed_peak = 0;
  for (const MemorySummaryEvent& event : recorder.summaries) {
    observed_peak = std::max(observed_peak, event.peak_bytes);
    EXPECT_LT(event.tick, report.rows.size());
    if (event.tick < report.rows.size()) {
      EXPECT_EQ(event.current_bytes, report.rows[event.tick].live_bytes) << "tick " << event.tick;
    }
  }
  // Every tick of the step is summarized (later samples of a batch reuse sample 1's ticks).
  EXPECT_GE(recorder.summaries.size(), report.rows.size());
  EXPECT_EQ(observed_peak, report.heap_peak_bytes);

  // Memory events: every planned buffer at its planned offset, and the bytes they hold at the
  // highest point of each tick equal the plan's live bytes (allocations come before frees).
  std::vector<uint32_t> seen(report.buffers.size(), 0);
  uint64_t live = 0;
  std::vector<uint64_t> high_water(report.rows.size(), 0);
  for (const MemoryEvent& event : recorder.memory) {
    // What entered the tick is live during it, and so is each allocation before the frees.
    if (event.tick < high_water.size())
      high_water[event.tick] = std::max(high_water[event.tick], live);
    live = event.alloc ? live + event.bytes : live - std::min(live, event.bytes);
    if (event.tick < high_water.size())
      high_water[event.tick] = std::max(high_water[event.tick], live);
    if (!event.alloc) continue;
    bool planned = false;
    for (size_t b = 0; b < report.buffers.size() && !planned; ++b) {
      const MemoryReportBuffer& entry = report.buffers[b];
      planned = entry.buffer.first_tick == event.tick && entry.buffer.tensor == event.tensor &&
                entry.buffer.category == event.category && entry.buffer.bytes == event.bytes &&
                entry.offset == event.offset;
      if (planned) ++seen[b];
    }
    EXPECT_TRUE(planned) << "tensor " << event.tensor << " at tick " << event.tick << ", "
                         << event.bytes << " bytes at offset " << event.offset;
  }
  EXPECT_EQ(live, 0u) << "every buffer of the step is freed by its end";
  for (size_t b = 0; b < report.buffers.size(); ++b) {
    EXPECT_GE(seen[b], 1u) << "buffer " << report.buffers[b].name << " was never reported";
  }
  for (uint32_t t = 0; t < report.rows.size(); ++t) {
    EXPECT_EQ(high_water[t], report.rows[t].live_bytes) << "stack at tick " << t;
  }
  return report.heap_peak_bytes;
}

TEST(TrainStepMemory, EqualsTheReportForEveryOptimizerAndBatchSize) {
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    for (uint32_t batch : {1u, 2u, 3u, 4u}) {
      ExpectStepEqualsReport(testing::ConvNet(), {optimizer, batch, TrainabilityConfig()},
                             LossKind::kSparseCrossEntropy);
    }
  }
}

TEST(TrainStepMemory, GruModelEqualsTheReport) {
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    for (uint32_t batch : {1u, 3u}) {
      EXPECT_GT(ExpectStepEqualsReport(testing::GruRegression(), {optimizer, batch, {}}), 0u);
    }
  }
}

TEST(TrainStepMemory, EqualsTheReportForPartialTrainability) {
  TrainabilityConfig last_two;
  last_two.num_train_layers = 2;
  // fc1's weights have 5 rows: onert-micro allocates 2 gradient rows for the lower half; the
  // step (and so the plan) holds the 3 rows the trainer computes.
  TrainabilityConfig ranks;
  ranks.op_ranks = {{0, TrainRank::kOnlyBias}, {3, TrainRank::kLowerHalf}};
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    for (uint32_t batch : {1u, 4u}) {
      ExpectStepEqualsReport(testing::ConvNet(), {optimizer, batch, last_two},
                             LossKind::kSparseCrossEntropy);
      ExpectStepEqualsReport(testing::ConvNet(), {optimizer, batch, ranks},
                             LossKind::kSparseCrossEntropy);
    }
  }
}

// Counted by hand for the last two operators (FULLY_CONNECTED fc2, SOFTMAX). The forward pass of
// CONV_2D holds the input x (36 floats, 144 B) and conv/y (48 floats, 192 B): 336 B, more than
// any backward step. From the second sample on, the accumulated gradients of fc2 (w 15 + b 3
// floats = 72 B) are live through it; Adam's m and v (2 x 72 B) are live always.
TEST(TrainStepMemory, LastTwoLayersPeakMatchesAHandCount) {
  TrainabilityConfig last_two;
  last_two.num_train_layers = 2;
  const auto peak = [&](OptimizerKind optimizer, uint32_t batch) {
    return ExpectStepEqualsReport(testing::ConvNet(), {optimizer, batch, last_two},
                                  LossKind::kSparseCrossEntropy);
  };
  EXPECT_EQ(peak(OptimizerKind::kSgd, 1), 336u);
  EXPECT_EQ(peak(OptimizerKind::kSgd, 2), 336u + 72u);
  EXPECT_EQ(peak(OptimizerKind::kAdam, 1), 336u + 144u);
  EXPECT_EQ(peak(OptimizerKind::kAdam, 2), 336u + 72u + 144u);
}

// The conv backward kernel's scratch is a buffer of the plan (it was a live-only allocation that
// `memory` and `fit` did not count): the report names it and holds it at the CONV_2D step.
TEST(TrainStepMemory, KernelScratchIsPlannedAtItsBackwardStep) {
  Model model = testing::ConvNet();
  MemoryReport report;
  ASSERT_TRUE(ComputeMemoryReport(model.graph(), {}, OptimizerKind::kSgd, false, &report).ok());
  uint64_t scratch = 0;
  for (const MemoryReportBuffer& entry : report.buffers) {
    if (entry.buffer.category != MemoryCategory::kTemporary) continue;
    const Tick& tick = report.rows[entry.buffer.first_tick].tick;
    EXPECT_EQ(tick.kind, TickKind::kBackwardStep) << entry.name;
    EXPECT_EQ(tick.op_index, entry.buffer.op_index) << entry.name;
    if (entry.buffer.op_index == 0) scratch += entry.buffer.bytes;
  }
  EXPECT_GT(scratch, 0u) << "CONV_2D (op 0) backward asks for scratch";
  ExpectStepEqualsReport(std::move(model), {OptimizerKind::kSgd, 1, TrainabilityConfig()},
                         LossKind::kSparseCrossEntropy);
}

// The same figure, for onert-micro's own step, stays available beside it.
TEST(TrainStepMemory, ReportAlsoGivesOnertMicrosOwnPeak) {
  Model model = testing::ConvNet();
  MemoryReportOptions options;
  MemoryReport ours, onert;
  ASSERT_TRUE(ComputeMemoryReport(model.graph(), {}, options, &ours).ok());
  options.step_model = StepModel::kOnertMicro;
  ASSERT_TRUE(ComputeMemoryReport(model.graph(), {}, options, &onert).ok());
  EXPECT_EQ(ours.onert_heap_peak_bytes, onert.heap_peak_bytes);
  EXPECT_EQ(onert.onert_heap_peak_bytes, 0u);
  EXPECT_GT(onert.heap_peak_bytes, 0u);
}

// A batch of two or more holds a later sample's weight gradients next to the accumulated ones, so
// the batch-1 report (the overload without options) is below the peak of a batch-2 step by exactly
// the parameter gradient bytes.
TEST(TrainStepMemory, BatchOfTwoAddsOneSetOfWeightGradients) {
  Model model = testing::ConvNet();
  MemoryReport batch_one;
  ASSERT_TRUE(ComputeMemoryReport(model.graph(), {}, OptimizerKind::kAdam, false, &batch_one).ok());
  uint64_t gradient_bytes = 0;
  for (const ParameterGradient& p :
       ListParameterGradients(model.graph().main(), SelectBackwardRange(model.graph().main(), {})))
    gradient_bytes += p.gradient_bytes();
  // conv 27+3, fc1 60+5, fc2 15+3 floats.
  EXPECT_EQ(gradient_bytes, 113u * 4u);
  EXPECT_EQ(ExpectStepEqualsReport(testing::ConvNet(), {OptimizerKind::kAdam, 2, {}},
                                   LossKind::kSparseCrossEntropy),
            batch_one.heap_peak_bytes + gradient_bytes);
}

// Every float model of the shared fixtures that the trainer can train: all layers, the last two,
// a half rank on the last trainable op; SGD and Adam; batch 1 and 4.
TEST(TrainStepMemory, EqualsTheReportOnEveryTrainableSharedModel) {
  TS_REQUIRE_FIXTURES();
  namespace fs = std::filesystem;
  int trained = 0;
  for (const auto& entry : fs::recursive_directory_iterator(testing::ModelsDir())) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".circle" && ext != ".tflite") continue;
    Model probe;
    if (!ReadModelFile(entry.path().string(), &probe).ok()) continue;
    Trainer can_train;
    if (!can_train.Init(&probe, TrainingOptions(), TrainabilityConfig()).ok()) continue;
    SCOPED_TRACE(entry.path().string());
    TrainabilityConfig last_two;
    last_two.num_train_layers = 2;
    TrainabilityConfig half;
    const Subgraph& main = probe.graph().main();
    for (uint32_t k = static_cast<uint32_t>(main.operators.size()); k-- > 0;) {
      if (TrainableParamsOf(main.operators[k]).weights >= 0) {
        half.op_ranks = {{k, TrainRank::kUpperHalf}};
        break;
      }
    }
    for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
      for (uint32_t batch : {1u, 4u}) {
        for (const TrainabilityConfig& config : {TrainabilityConfig(), last_two, half}) {
          Model model;
          ASSERT_TRUE(ReadModelFile(entry.path().string(), &model).ok());
          Trainer trainer;
          TrainingOptions options;
          options.optimizer = optimizer;
          options.batch_size = batch;
          if (!trainer.Init(&model, options, config).ok()) continue;
          ExpectStepEqualsReport(std::move(model), {optimizer, batch, config});
        }
      }
    }
    ++trained;
  }
  EXPECT_GE(trained, 3) << "the shared fixtures hold several trainable float models";
}

}  // namespace
}  // namespace trainscope
