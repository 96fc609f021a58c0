// SPDX-License-Identifier: Apache-2.0
//
// ComputeMemoryReport ties selection, plans, timeline, heap accounting and the arena together.
#include <gtest/gtest.h>

#include <numeric>

#include "engine/memory/memory_report.h"
#include "engine/model/model.h"
#include "engine/model/model_builder.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

Graph Load(const std::string& relative) {
  Model model;
  const Status status = ReadModelFile(testing::ModelsDir() + "/" + relative, &model);
  EXPECT_TRUE(status.ok()) << status.message();
  return model.graph();
}

bool Contains(const std::vector<std::string>& warnings, const std::string& text) {
  for (const std::string& w : warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

// onert-micro's own step, against the hand count; TrainScope's step (the default) names it too.
TEST(MemoryReport, SimpleMnistAllLayers) {
  TS_REQUIRE_FIXTURES();
  const Graph graph = Load("onert-micro/simple_mnist/model.circle");
  MemoryReport ours;
  ASSERT_TRUE(ComputeMemoryReport(graph, {}, OptimizerKind::kSgd, false, &ours).ok());
  MemoryReportOptions options;
  options.step_model = StepModel::kOnertMicro;
  MemoryReport report;
  ASSERT_TRUE(ComputeMemoryReport(graph, {}, options, &report).ok());
  EXPECT_EQ(ours.onert_heap_peak_bytes, 6116u);
  // Hand count in memory_timeline_test.cpp: 6116 bytes during backward step 4 (MAX_POOL_2D).
  EXPECT_EQ(report.heap_peak_bytes, 6116u);
  ASSERT_EQ(report.rows.size(), 14u);
  const MemoryStepRow& peak = report.rows[report.heap_peak_tick];
  EXPECT_EQ(peak.tick.kind, TickKind::kBackwardStep);
  EXPECT_EQ(peak.tick.op_index, 1);
  EXPECT_EQ(peak.opcode, op::kMaxPool2D);
  EXPECT_EQ(peak.live_bytes, 6116u);
  EXPECT_EQ(report.rows.back().peak_bytes, 6116u);

  // Every buffer rounded up to 16 bytes can only add; the arena can only exceed the bound.
  EXPECT_GE(report.lower_bound_bytes, report.heap_peak_bytes);
  EXPECT_GE(report.arena_bytes, report.lower_bound_bytes);
  EXPECT_LE(report.arena_bytes, report.lower_bound_bytes * 105 / 100);
  for (const MemoryStepRow& row : report.rows) {
    EXPECT_GE(row.arena_planned_bytes, row.live_bytes);
    EXPECT_LE(row.arena_planned_bytes, report.arena_bytes);
  }
  const uint64_t by_category = std::accumulate(std::begin(report.heap_peak_by_category),
                                               std::end(report.heap_peak_by_category), uint64_t{0});
  EXPECT_EQ(by_category, report.heap_peak_bytes);
  // At the peak: the input 484 B, kept activations 6 and 7 = 1600 + 400 (8-11 were freed by
  // backward steps 0-3), gradients of 6 (1600) and 7 (400), weight gradients 1600 + 32.
  EXPECT_EQ(report.heap_peak_by_category[static_cast<size_t>(MemoryCategory::kInput)], 484u);
  EXPECT_EQ(report.heap_peak_by_category[static_cast<size_t>(MemoryCategory::kActivationKept)],
            2000u);
  EXPECT_EQ(report.heap_peak_by_category[static_cast<size_t>(MemoryCategory::kActivationGradient)],
            2000u);
  EXPECT_EQ(report.heap_peak_by_category[static_cast<size_t>(MemoryCategory::kWeightGradient)],
            1632u);

  bool named_gradient = false, named_temporary = false;
  for (const MemoryReportBuffer& b : report.buffers) {
    named_gradient = named_gradient || b.name == "arith.constant1 (gradient)";
    named_temporary = named_temporary || b.name == "SOFTMAX temporary (op 5)";
    EXPECT_EQ(b.offset % 16, 0u);
  }
  EXPECT_TRUE(named_gradient);
  EXPECT_TRUE(named_temporary);
  EXPECT_TRUE(report.warnings.empty()) << report.warnings.front();
}

TEST(MemoryReport, QuantizedModelsPlanWithTheirOwnSizesAndAWarning) {
  TS_REQUIRE_FIXTURES();
  const Graph graph = Load("tflite/person_detect.tflite");
  MemoryReport inference;
  ASSERT_TRUE(ComputeMemoryReport(graph, {}, OptimizerKind::kSgd, true, &inference).ok());
  EXPECT_EQ(inference.rows.size(), graph.main().operators.size());
  EXPECT_GT(inference.heap_peak_bytes, 96u * 96u);  // the INT8 input alone is 9216 bytes
  EXPECT_TRUE(inference.warnings.empty());

  MemoryReport training;
  ASSERT_TRUE(ComputeMemoryReport(graph, {}, OptimizerKind::kAdam, false, &training).ok());
  EXPECT_TRUE(Contains(training.warnings, "onert-micro trains float32 models only"));
  EXPECT_TRUE(Contains(training.warnings,
                       "(DEPTHWISE_CONV_2D) runs backward but onert-micro has "
                       "no backward kernel"));
  EXPECT_GE(training.arena_bytes, training.lower_bound_bytes);
}

TEST(MemoryReport, WarnsWhenOnlyBiasMeetsAnOperatorWithoutBias) {
  TS_REQUIRE_FIXTURES();
  const Graph graph = Load("onert-micro/simple_mnist/model.circle");
  TrainabilityConfig config;
  config.op_ranks = {{3, TrainRank::kOnlyBias}};
  MemoryReport report;
  ASSERT_TRUE(ComputeMemoryReport(graph, config, OptimizerKind::kSgd, false, &report).ok());
  EXPECT_TRUE(
      Contains(report.warnings, "operator 3 (FULLY_CONNECTED) is ONLY_BIAS but has no bias"));
}

TEST(MemoryReport, WarnsWhenTheLowerHalfHasMoreRowsThanItsGradientBuffer) {
  // x[1,3] -> FULLY_CONNECTED(w[3,3]) -> y[1,3]: LOWER_1_2_PART trains rows [1, 3), two rows,
  // while onert-micro's gradient buffer holds 3/2 = 1 row.
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 3});
  const int w = b.AddConstant("w", {3, 3}, std::vector<float>(9, 1.0f));
  const int y = b.AddTensor("y", {1, 3});
  b.AddOperator(op::kFullyConnected, {x, w, -1}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(b.Finish(&bytes).ok());
  Model model;
  ASSERT_TRUE(Model::FromBytes(bytes, &model).ok());
  TrainabilityConfig config;
  config.op_ranks = {{0, TrainRank::kLowerHalf}};
  MemoryReportOptions options;
  options.optimizer = OptimizerKind::kAdam;
  for (StepModel step : {StepModel::kOnertMicro, StepModel::kTrainScope}) {
    SCOPED_TRACE(StepModelName(step));
    options.step_model = step;
    MemoryReport report;
    ASSERT_TRUE(ComputeMemoryReport(model.graph(), config, options, &report).ok());
    EXPECT_TRUE(Contains(report.warnings,
                         "has 3 rows; the trained half has 2 but onert-micro's "
                         "gradient buffer holds 1"));
    // The weight gradient and its Adam m and v: one 12-byte row each in onert-micro's step, the
    // two trained rows in TrainScope's, which says so.
    const uint64_t row_bytes = step == StepModel::kOnertMicro ? 12u : 24u;
    EXPECT_EQ(step == StepModel::kTrainScope,
              Contains(report.warnings, "onert-micro allocates 12 gradient bytes for 24 bytes"));
    int sized = 0;
    for (const MemoryReportBuffer& buffer : report.buffers) {
      if (buffer.buffer.tensor == w && buffer.buffer.category != MemoryCategory::kActivation) {
        EXPECT_EQ(buffer.buffer.bytes, row_bytes) << buffer.name;
        ++sized;
      }
    }
    EXPECT_EQ(sized, 3);
  }
  MemoryReport report;

  config.op_ranks = {{0, TrainRank::kUpperHalf}};
  ASSERT_TRUE(
      ComputeMemoryReport(model.graph(), config, OptimizerKind::kAdam, false, &report).ok());
  EXPECT_TRUE(report.warnings.empty());
}

TEST(MemoryReport, RefusesInvalidInput) {
  TS_REQUIRE_FIXTURES();
  MemoryReport report;
  EXPECT_EQ(ComputeMemoryReport(Graph{}, {}, OptimizerKind::kSgd, false, &report).code(),
            StatusCode::kInvalidModel);
  TrainabilityConfig config;
  config.op_ranks = {{40, TrainRank::kAll}};
  EXPECT_EQ(ComputeMemoryReport(Load("onert-micro/simple_mnist/model.circle"), config,
                                OptimizerKind::kSgd, false, &report)
                .code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trainscope
