// SPDX-License-Identifier: Apache-2.0
//
// The "does it fit?" search against an independent brute force: every combination of
// {off, ALL, ONLY_BIAS, UP_1_2_PART, LOWER_1_2_PART} over the operators with trainable weights,
// each measured with ComputeMemoryReport (plans + heap accounting + arena) and counted from
// ListParameterGradients.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/memory/fit_search.h"
#include "engine/memory/memory_report.h"
#include "engine/model/model.h"
#include "engine/model/model_builder.h"
#include "engine/plan/train_config_file.h"
#include "tests/common/fixtures.h"
#include "tests/engine/memory/fit_test_models.h"

namespace trainscope {
namespace {

using testing::ConvNet;
using testing::Mlp;

struct Planned {
  std::map<uint16_t, TrainRank> ranks;
  uint64_t parameters = 0;
  uint32_t first_op = 0;
  uint64_t peak = 0;
};

// Every non-empty combination, measured the long way.
std::vector<Planned> BruteForce(const Graph& graph, const MemoryReportOptions& options) {
  const Subgraph& subgraph = graph.main();
  std::vector<uint16_t> ops;
  for (size_t k = 0; k < subgraph.operators.size(); ++k) {
    const int32_t opcode = subgraph.operators[k].opcode;
    if (opcode == op::kFullyConnected || opcode == op::kConv2D)
      ops.push_back(static_cast<uint16_t>(k));
  }
  std::vector<Planned> all;
  std::vector<int> digit(ops.size(), 0);
  while (true) {
    size_t c = 0;
    while (c < digit.size() && digit[c] == 4) digit[c++] = 0;
    if (c == digit.size()) break;
    ++digit[c];
    TrainabilityConfig config;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (digit[i] > 0) config.op_ranks[ops[i]] = static_cast<TrainRank>(digit[i] - 1);
    }
    MemoryReport report;
    EXPECT_TRUE(ComputeMemoryReport(graph, config, options, &report).ok());
    Planned planned;
    planned.ranks = config.op_ranks;
    planned.first_op = config.op_ranks.begin()->first;
    planned.peak = report.heap_peak_bytes;
    for (const ParameterGradient& p : ListParameterGradients(subgraph, report.selection)) {
      planned.parameters += (p.row_end - p.row_begin) * p.row_bytes / 4;
    }
    // Listing only ONLY_BIAS ops without a bias trains nothing: never an answer.
    if (planned.parameters > 0) all.push_back(planned);
  }
  return all;
}

// The documented ranking: parameters, then closest to the output, then the lower peak.
const Planned* BestWithin(const std::vector<Planned>& all, uint64_t budget) {
  const Planned* best = nullptr;
  for (const Planned& p : all) {
    if (p.peak > budget) continue;
    if (best == nullptr || p.parameters > best->parameters ||
        (p.parameters == best->parameters &&
         (p.first_op > best->first_op || (p.first_op == best->first_op && p.peak < best->peak)))) {
      best = &p;
    }
  }
  return best;
}

std::vector<uint64_t> InterestingBudgets(const std::vector<Planned>& all) {
  std::vector<uint64_t> peaks;
  for (const Planned& p : all) peaks.push_back(p.peak);
  std::sort(peaks.begin(), peaks.end());
  peaks.erase(std::unique(peaks.begin(), peaks.end()), peaks.end());
  std::vector<uint64_t> budgets = {0, peaks.front() - 1, peaks.back(), peaks.back() * 2};
  for (size_t i = 0; i < peaks.size(); i += std::max<size_t>(1, peaks.size() / 9)) {
    budgets.push_back(peaks[i]);
    budgets.push_back(peaks[i] + 7);
  }
  return budgets;
}

void ExpectSameAnswerAsBruteForce(const Graph& graph, const FitOptions& options,
                                  bool expect_exact) {
  const std::vector<Planned> all = BruteForce(graph, options.memory);
  ASSERT_FALSE(all.empty());
  for (uint64_t budget : InterestingBudgets(all)) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    FitResult fit;
    ASSERT_TRUE(FindBestFit(graph, budget, options, &fit).ok());
    const Planned* expected = BestWithin(all, budget);
    ASSERT_EQ(fit.fits, expected != nullptr);
    if (expected == nullptr) {
      if (expect_exact) {
        uint64_t smallest = UINT64_MAX;
        for (const Planned& p : all) smallest = std::min(smallest, p.peak);
        EXPECT_EQ(fit.smallest.heap_peak_bytes, smallest);
      }
      EXPECT_GT(fit.smallest.heap_peak_bytes, budget);
      continue;
    }
    EXPECT_LE(fit.best.heap_peak_bytes, budget);
    MemoryReport report;
    ASSERT_TRUE(ComputeMemoryReport(graph, fit.best.config, options.memory, &report).ok());
    EXPECT_EQ(report.heap_peak_bytes, fit.best.heap_peak_bytes);
    if (expect_exact) {
      EXPECT_EQ(fit.best.trained_parameters, expected->parameters);
      EXPECT_EQ(fit.best.first_op, expected->first_op);
      EXPECT_EQ(fit.best.heap_peak_bytes, expected->peak);
    } else {
      EXPECT_LE(fit.best.trained_parameters, expected->parameters);
      EXPECT_GE(fit.best.trained_parameters * 10, expected->parameters * 9);
    }
  }
}

TEST(FitSearch, MatchesBruteForceOnAConvNetWithSgdAndAdam) {
  const Graph graph = ConvNet();
  for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    SCOPED_TRACE(OptimizerName(optimizer));
    FitOptions options;
    options.memory.optimizer = optimizer;
    ExpectSameAnswerAsBruteForce(graph, options, true);
  }
}

TEST(FitSearch, MatchesBruteForceOnFourLayerPerceptronsWithOddWidthsAndBatches) {
  const Graph graph = Mlp({7, 5, 9, 3});
  FitOptions options;
  options.memory.optimizer = OptimizerKind::kAdam;
  options.memory.batch_size = 4;
  ExpectSameAnswerAsBruteForce(graph, options, true);
  const Graph wide = Mlp({16, 2, 12, 4}, 20);
  options.memory.optimizer = OptimizerKind::kSgd;
  options.memory.batch_size = 1;
  ExpectSameAnswerAsBruteForce(wide, options, true);
}

TEST(FitSearch, MatchesBruteForceOnSimpleMnist) {
  TS_REQUIRE_FIXTURES();
  Model model;
  ASSERT_TRUE(
      ReadModelFile(testing::ModelsDir() + "/onert-micro/simple_mnist/model.circle", &model).ok());
  FitOptions options;
  options.memory.optimizer = OptimizerKind::kAdam;
  ExpectSameAnswerAsBruteForce(model.graph(), options, true);
}

TEST(FitSearch, BeamSearchIsMarkedApproximateAndStaysWithinBudget) {
  const Graph graph = Mlp({7, 5, 9, 3});
  FitOptions options;
  options.exhaustive_limit = 0;  // force the approximate path on a model the brute force covers
  FitResult fit;
  ASSERT_TRUE(FindBestFit(graph, UINT64_MAX, options, &fit).ok());
  EXPECT_FALSE(fit.stats.exact);
  EXPECT_NE(fit.stats.method.find("beam"), std::string::npos);
  EXPECT_EQ(fit.best.trained_parameters, fit.full.trained_parameters);
  ExpectSameAnswerAsBruteForce(graph, options, false);
}

TEST(FitSearch, LargeModelsSwitchToTheBoundedSearch) {
  const Graph graph = Mlp({8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 4});
  FitOptions options;
  FitResult full;
  ASSERT_TRUE(FindBestFit(graph, UINT64_MAX, options, &full).ok());
  FitResult fit;
  const uint64_t budget = (full.smallest.heap_peak_bytes + full.full.heap_peak_bytes) / 2;
  ASSERT_TRUE(FindBestFit(graph, budget, options, &fit).ok());
  EXPECT_FALSE(fit.stats.exact);
  EXPECT_EQ(fit.stats.pruned_space_size, 16777215u);  // 4^12 - 1
  EXPECT_EQ(fit.stats.space_size, 244140624u);        // 5^12 - 1
  EXPECT_LT(fit.stats.evaluated, 20000u);
  ASSERT_TRUE(fit.fits);
  EXPECT_LE(fit.best.heap_peak_bytes, budget);
  EXPECT_GT(fit.best.trained_parameters, 0u);
  EXPECT_LT(fit.best.trained_parameters, full.full.trained_parameters);
}

// The search's pruning rests on this. onert-micro's step: same plans and buffers for both halves
// (floor(d0/2) rows), never more parameters for UP, so UP is skipped. TrainScope's step: each
// half holds the rows it trains, so for an odd d0 UP is smaller and searched.
TEST(FitSearch, HalvesCompareAsTheRowsTheyHold) {
  const Graph graph = Mlp({7, 5, 9, 3});
  for (StepModel model : {StepModel::kOnertMicro, StepModel::kTrainScope}) {
    SCOPED_TRACE(StepModelName(model));
    MemoryReportOptions options;
    options.optimizer = OptimizerKind::kAdam;
    options.step_model = model;
    int smaller = 0;
    for (uint16_t k = 0; k < 4; ++k) {
      TrainabilityConfig up, lower;
      up.op_ranks[k] = TrainRank::kUpperHalf;
      lower.op_ranks[k] = TrainRank::kLowerHalf;
      up.op_ranks[3] = lower.op_ranks[3] = TrainRank::kAll;
      MemoryReport up_report, lower_report;
      ASSERT_TRUE(ComputeMemoryReport(graph, up, options, &up_report).ok());
      ASSERT_TRUE(ComputeMemoryReport(graph, lower, options, &lower_report).ok());
      if (model == StepModel::kOnertMicro) {
        EXPECT_EQ(up_report.heap_peak_bytes, lower_report.heap_peak_bytes) << "op " << k;
      } else {
        EXPECT_LE(up_report.heap_peak_bytes, lower_report.heap_peak_bytes) << "op " << k;
        smaller += up_report.heap_peak_bytes < lower_report.heap_peak_bytes;
      }
      EXPECT_LE(CountTrainedParameters(graph.main(), up),
                CountTrainedParameters(graph.main(), lower));
    }
    if (model == StepModel::kTrainScope) {
      EXPECT_GT(smaller, 0) << "odd widths make UP smaller";
    }
  }
}

TEST(FitSearch, CandidateParametersAddUpToTheTrainedCount) {
  const Graph graph = ConvNet();
  FitResult fit;
  ASSERT_TRUE(FindBestFit(graph, UINT64_MAX, FitOptions(), &fit).ok());
  ASSERT_EQ(fit.candidates.size(), 3u);
  // conv 5x3x3x1 + 5, fc1 5x20 + 5, fc2 3x5 + 3, by hand.
  EXPECT_EQ(fit.candidates[0].rank_parameters[0], 50u);
  EXPECT_EQ(fit.candidates[1].rank_parameters[0], 105u);
  EXPECT_EQ(fit.candidates[2].rank_parameters[0], 18u);
  EXPECT_EQ(fit.full.trained_parameters, 173u);
  EXPECT_EQ(CountTrainedParameters(graph.main(), fit.full.config), 173u);
  // LOWER_1_2_PART of 5 conv filters trains filters 2..4 (3 x 9) plus the bias; UP_1_2_PART
  // filters 0..1 (2 x 9) plus the bias, searched because 5 is odd.
  const std::vector<TrainRank> ranks{TrainRank::kAll, TrainRank::kOnlyBias, TrainRank::kLowerHalf,
                                     TrainRank::kUpperHalf};
  ASSERT_EQ(fit.candidates[0].ranks, ranks);
  EXPECT_EQ(fit.candidates[0].rank_parameters[2], 32u);
  EXPECT_EQ(fit.candidates[0].rank_parameters[3], 23u);
}

TEST(FitSearch, CurveIsAMonotoneStepFunctionOfExactAnswers) {
  const Graph graph = Mlp({7, 5, 9, 3});
  FitOptions options;
  options.memory.optimizer = OptimizerKind::kAdam;
  FitCurve curve;
  ASSERT_TRUE(ComputeFitCurve(graph, options, &curve).ok());
  ASSERT_GE(curve.points.size(), 3u);
  EXPECT_TRUE(curve.stats.exact);
  EXPECT_EQ(curve.stats.evaluated, curve.stats.pruned_space_size);
  for (size_t i = 0; i < curve.points.size(); ++i) {
    const FitCurvePoint& point = curve.points[i];
    ASSERT_TRUE(point.fits);
    EXPECT_EQ(point.best.heap_peak_bytes, point.budget_bytes);
    FitResult at, below;
    ASSERT_TRUE(FindBestFit(graph, point.budget_bytes, options, &at).ok());
    ASSERT_TRUE(FindBestFit(graph, point.budget_bytes - 1, options, &below).ok());
    EXPECT_EQ(at.best.trained_parameters, point.best.trained_parameters);
    if (i == 0) {
      EXPECT_FALSE(below.fits);
      continue;
    }
    EXPECT_GT(point.budget_bytes, curve.points[i - 1].budget_bytes);
    EXPECT_GE(point.best.trained_parameters, curve.points[i - 1].best.trained_parameters);
    EXPECT_EQ(below.best.trained_parameters, curve.points[i - 1].best.trained_parameters);
  }
  EXPECT_EQ(curve.points.back().best.trained_parameters, 173u);  // 7*6+7 + 5*7+5 + 9*5+9 + 3*9+3
}

TEST(FitSearch, ApproximateCurveNeverDecreases) {
  const Graph graph = Mlp({8, 8, 8, 8, 8, 8, 8, 8, 8, 4});
  FitOptions options;
  options.curve_points = 8;
  FitCurve curve;
  ASSERT_TRUE(ComputeFitCurve(graph, options, &curve).ok());
  EXPECT_FALSE(curve.stats.exact);
  ASSERT_EQ(curve.points.size(), 8u);
  for (size_t i = 1; i < curve.points.size(); ++i) {
    EXPECT_GT(curve.points[i].budget_bytes, curve.points[i - 1].budget_bytes);
    EXPECT_GE(curve.points[i].best.trained_parameters, curve.points[i - 1].best.trained_parameters);
    if (curve.points[i].fits) {
      EXPECT_LE(curve.points[i].best.heap_peak_bytes, curve.points[i].budget_bytes);
    }
  }
  EXPECT_TRUE(curve.points.back().fits);
}

TEST(FitSearch, SavedConfigReloadsAndStaysWithinBudget) {
  const Graph graph = ConvNet();
  FitResult full;
  ASSERT_TRUE(FindBestFit(graph, UINT64_MAX, FitOptions(), &full).ok());
  const uint64_t budget = (full.smallest.heap_peak_bytes + full.full.heap_peak_bytes) / 2;
  FitResult fit;
  ASSERT_TRUE(FindBestFit(graph, budget, FitOptions(), &fit).ok());
  ASSERT_TRUE(fit.fits);
  const std::string path = ::testing::TempDir() + "/fit_search_test.cfg";
  ASSERT_TRUE(WriteTrainConfigFile(path, fit.best.config.op_ranks).ok());
  TrainabilityConfig reloaded;
  ASSERT_TRUE(ReadTrainConfigFile(path, graph.main().operators.size(), &reloaded.op_ranks).ok());
  EXPECT_EQ(reloaded.op_ranks, fit.best.config.op_ranks);
  MemoryReport report;
  ASSERT_TRUE(ComputeMemoryReport(graph, reloaded, OptimizerKind::kSgd, false, &report).ok());
  EXPECT_LE(report.heap_peak_bytes, budget);
  std::remove(path.c_str());
}

TEST(FitSearch, ImpossibleBudgetIsRefusedWithTheSmallestNeed) {
  const Graph graph = ConvNet();
  FitResult fit;
  ASSERT_TRUE(FindBestFit(graph, 100, FitOptions(), &fit).ok());
  EXPECT_FALSE(fit.fits);
  EXPECT_GT(fit.smallest.heap_peak_bytes, 100u);
  FitResult at_smallest;
  ASSERT_TRUE(FindBestFit(graph, fit.smallest.heap_peak_bytes, FitOptions(), &at_smallest).ok());
  EXPECT_TRUE(at_smallest.fits);
}

TEST(FitSearch, OperatorsBeforeAnOpWithoutOnertBackwardKernelAreLeftOut) {
  const Graph graph = Mlp({5, 4, 3}, 6, /*add_after=*/1);  // FC, ADD, FC, FC, SOFTMAX
  FitResult fit;
  ASSERT_TRUE(FindBestFit(graph, UINT64_MAX, FitOptions(), &fit).ok());
  ASSERT_EQ(fit.candidates.size(), 2u);
  EXPECT_EQ(fit.candidates[0].op_index, 2u);
  ASSERT_EQ(fit.notes.size(), 1u);
  EXPECT_NE(fit.notes[0].find("operator 1 (ADD)"), std::string::npos) << fit.notes[0];
  EXPECT_EQ(fit.best.first_op, 2u);

  FitOptions any_kernel;
  any_kernel.onert_backward_kernels_only = false;
  ASSERT_TRUE(FindBestFit(graph, UINT64_MAX, any_kernel, &fit).ok());
  EXPECT_EQ(fit.candidates.size(), 3u);
  EXPECT_EQ(fit.best.first_op, 0u);
}

TEST(FitSearch, BadOptionsAndModelsWithoutParametersAreErrors) {
  FitResult fit;
  FitOptions inference;
  inference.memory.inference = true;
  EXPECT_EQ(FindBestFit(ConvNet(), 1000, inference, &fit).code(), StatusCode::kInvalidArgument);
  FitOptions no_batch;
  no_batch.memory.batch_size = 0;
  EXPECT_EQ(FindBestFit(ConvNet(), 1000, no_batch, &fit).code(), StatusCode::kInvalidArgument);

  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 4});
  const int y = b.AddTensor("y", {1, 4});
  b.AddOperator(op::kSoftmax, {x}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  Model model;
  ASSERT_TRUE(b.Finish(&bytes).ok());
  ASSERT_TRUE(Model::FromBytes(std::move(bytes), &model).ok());
  const Status status = FindBestFit(model.graph(), 1000, FitOptions(), &fit);
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(std::string(status.message()).find("float32 parameters"), std::string::npos);
}

}  // namespace
}  // namespace trainscope
