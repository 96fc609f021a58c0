// SPDX-License-Identifier: Apache-2.0
//
// Comparing two recorded sessions: the aligned data matches what each trace holds, and sessions
// that train different layers show the memory peaks the planner predicts for each.
#include <gtest/gtest.h>

#include "engine/exec/trainer.h"
#include "tests/replay/recording_fixture.h"
#include "ui/session/sources/compare_data.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/replay/compare_window.h"

namespace trainscope {
namespace {

using testing::RecordConvNetRun;
using testing::RecordedRun;

// The heap peak the trainer plans for this configuration before running anything.
uint64_t PlannedHeapPeak(const TrainabilityConfig& config) {
  Model model = testing::ConvNet();
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.batch_size = 2;
  options.loss = LossKind::kSparseCrossEntropy;
  Trainer trainer;
  EXPECT_TRUE(trainer.Init(&model, options, config).ok());
  return trainer.memory().heap_peak_bytes;
}

class CompareTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    testing::TestApp();
    dir_ = new QTemporaryDir;
    all_ = new RecordedRun(RecordConvNetRun(dir_->path(), QStringLiteral("all.circle")));
    TrainabilityConfig last_two;
    last_two.num_train_layers = 2;
    last_ =
        new RecordedRun(RecordConvNetRun(dir_->path(), QStringLiteral("last2.circle"), last_two));
  }
  static void TearDownTestSuite() {
    delete all_;
    delete last_;
    delete dir_;
  }
  static QTemporaryDir* dir_;
  static RecordedRun* all_;
  static RecordedRun* last_;
};
QTemporaryDir* CompareTest::dir_ = nullptr;
RecordedRun* CompareTest::all_ = nullptr;
RecordedRun* CompareTest::last_ = nullptr;

TEST_F(CompareTest, DifferentTrainabilityGivesThePlannedDifferentPeaks) {
  std::shared_ptr<const SessionSnapshot> a, b;
  ASSERT_TRUE(LoadTraceSnapshot(all_->path, &a).ok());
  ASSERT_TRUE(LoadTraceSnapshot(last_->path, &b).ok());
  const TraceComparison c = CompareSnapshots(*a, *b);
  TrainabilityConfig last_two;
  last_two.num_train_layers = 2;
  EXPECT_EQ(c.run_peak_a, PlannedHeapPeak(TrainabilityConfig()));
  EXPECT_EQ(c.run_peak_b, PlannedHeapPeak(last_two));
  EXPECT_LT(c.run_peak_b, c.run_peak_a) << "training two layers keeps less for backward";
  EXPECT_EQ(c.peakDifference(),
            static_cast<int64_t>(c.run_peak_b) - static_cast<int64_t>(c.run_peak_a));
  EXPECT_FALSE(c.memory_a.empty());
  EXPECT_FALSE(c.memory_b.empty());
  double curve_peak = 0.0;
  for (const XY& p : c.memory_a) curve_peak = std::max(curve_peak, p.y);
  EXPECT_LE(curve_peak, static_cast<double>(c.step_peak_a));
}

TEST_F(CompareTest, LayersAreTheUnionWithNormsFromEachSession) {
  std::shared_ptr<const SessionSnapshot> a, b;
  ASSERT_TRUE(LoadTraceSnapshot(all_->path, &a).ok());
  ASSERT_TRUE(LoadTraceSnapshot(last_->path, &b).ok());
  const TraceComparison c = CompareSnapshots(*a, *b);
  // ConvNet trains conv, fc1, fc2 (weights and bias each); the last two layers are fc2+softmax.
  ASSERT_EQ(c.layers.size(), 6u);
  size_t in_both = 0;
  for (const LayerGradientRow& row : c.layers) {
    EXPECT_TRUE(row.in_a);
    in_both += row.in_b ? 1 : 0;
    const TensorGradient* t = a->findTensor(row.tensor);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(row.l2_a, static_cast<double>(t->stats.l2));
    if (row.in_b) {
      EXPECT_EQ(row.difference(), row.l2_b - row.l2_a);
    }
  }
  EXPECT_EQ(in_both, 2u) << "only fc2's weights and bias train in B";
  for (size_t i = 1; i < c.layers.size(); ++i) {
    EXPECT_LE(c.layers[i - 1].op_index, c.layers[i].op_index);
  }
}

TEST_F(CompareTest, LossDifferenceIsZeroAgainstItself) {
  std::shared_ptr<const SessionSnapshot> a;
  ASSERT_TRUE(LoadTraceSnapshot(all_->path, &a).ok());
  const TraceComparison c = CompareSnapshots(*a, *a);
  ASSERT_EQ(c.loss_a.size(), 12u);
  ASSERT_EQ(c.loss_difference.size(), c.loss_a.size());
  for (const XY& p : c.loss_difference) EXPECT_EQ(p.y, 0.0);
  EXPECT_EQ(c.peakDifference(), 0);
}

TEST_F(CompareTest, WindowOverlaysBothSessionsWithNamedLegends) {
  CompareWindow window;
  QString error;
  ASSERT_TRUE(window.loadTraces(all_->path, last_->path, &error)) << error.toStdString();
  ASSERT_EQ(window.memoryPlot()->graphCount(), 2);
  EXPECT_TRUE(window.memoryPlot()->graph(0)->name().startsWith(QFileInfo(all_->path).fileName()));
  EXPECT_TRUE(window.memoryPlot()->graph(1)->name().startsWith(QFileInfo(last_->path).fileName()));
  EXPECT_EQ(window.lossPlot()->graphCount(), 2);
  EXPECT_EQ(window.gradientPlot()->plottableCount(), 2);
  EXPECT_TRUE(window.summaryText().contains(QFileInfo(last_->path).fileName()));
  // To look at it: TRAINSCOPE_KEEP_EXPORTS=<file.png> saves the window there.
  if (qEnvironmentVariableIsSet("TRAINSCOPE_KEEP_EXPORTS")) {
    window.resize(900, 820);
    window.grab().save(qEnvironmentVariable("TRAINSCOPE_KEEP_EXPORTS"));
  }
  EXPECT_FALSE(window.loadTraces(all_->path, dir_->filePath(QStringLiteral("missing")), &error));
  EXPECT_FALSE(error.isEmpty());
}

}  // namespace
}  // namespace trainscope
