// SPDX-License-Identifier: Apache-2.0
#include "ui/session/gradient_matrix.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trainscope {
namespace {

GradientStatsEvent Stats(uint32_t step, uint32_t op, int32_t tensor, float l2) {
  GradientStatsEvent event;
  event.optimizer_step = step;
  event.op_index = op;
  event.tensor = tensor;
  event.l2 = l2;
  event.max_abs = l2 / 2;
  return event;
}

TEST(GradientMatrix, RowsAreSortedByOperatorWhateverTheArrivalOrder) {
  GradientMatrix matrix(8);
  matrix.add(Stats(1, 5, 11, 1.0f));
  matrix.add(Stats(1, 2, 4, 1.0f));
  matrix.add(Stats(1, 5, 10, 1.0f));
  ASSERT_EQ(matrix.rows().size(), 3u);
  EXPECT_EQ(matrix.rows()[0].tensor, 4);
  EXPECT_EQ(matrix.rows()[1].tensor, 10);
  EXPECT_EQ(matrix.rows()[2].tensor, 11);
  ASSERT_EQ(matrix.columns().size(), 1u);
  EXPECT_EQ(matrix.columns()[0].cells.size(), 3u);
}

TEST(GradientMatrix, StaysBoundedAndCoversEveryStepContiguously) {
  GradientMatrix matrix(16);
  for (uint32_t step = 1; step <= 1000; ++step) matrix.add(Stats(step, 0, 1, 1.0f));
  const auto& columns = matrix.columns();
  ASSERT_LE(columns.size(), 16u);
  EXPECT_EQ(columns.front().first_step, 1u);
  EXPECT_EQ(columns.back().last_step, 1000u);
  uint32_t merged = 0;
  for (size_t i = 0; i < columns.size(); ++i) {
    merged += columns[i].merged;
    if (i > 0) {
      EXPECT_EQ(columns[i].first_step, columns[i - 1].last_step + 1);
      // Older columns are at least as wide as newer ones.
      EXPECT_GE(columns[i - 1].merged, columns[i].merged);
    }
  }
  EXPECT_EQ(merged, 1000u);
}

TEST(GradientMatrix, MergedColumnsKeepTheLargestGradientAndAllNans) {
  GradientMatrix matrix(8);
  for (uint32_t step = 1; step <= 500; ++step) {
    GradientStatsEvent event = Stats(step, 0, 1, step == 3 ? 100.0f : 1.0f);
    if (step == 7) event.nan_count = 2;
    if (step == 8) event.l2 = std::nanf("");
    matrix.add(event);
  }
  const GradientColumn& oldest = matrix.columns().front();
  ASSERT_LE(oldest.first_step, 3u);
  ASSERT_GE(oldest.last_step, 8u);
  EXPECT_EQ(oldest.cells[0].l2, 100.0f);
  EXPECT_EQ(oldest.cells[0].nan_count, 2u);
  EXPECT_EQ(matrix.columns().back().cells[0].l2, 1.0f);
}

TEST(GradientMatrix, UpdateRatiosShareTheGradientCells) {
  GradientMatrix matrix(8);
  matrix.add(Stats(1, 2, 7, 0.5f));
  UpdateRatioEvent ratio;
  ratio.optimizer_step = 1;
  ratio.tensor = 7;
  ratio.ratio = 0.001f;
  matrix.add(ratio);
  ASSERT_EQ(matrix.rows().size(), 1u);
  const GradientCell& cell = matrix.columns()[0].cells[0];
  EXPECT_TRUE(cell.has_gradient);
  EXPECT_TRUE(cell.has_update_ratio);
  EXPECT_FLOAT_EQ(cell.update_ratio, 0.001f);
}

TEST(GradientMatrix, ATensorSeenLateHasEmptyOlderCells) {
  GradientMatrix matrix(8);
  matrix.add(Stats(1, 0, 1, 1.0f));
  matrix.add(Stats(2, 0, 1, 1.0f));
  matrix.add(Stats(2, 3, 9, 1.0f));
  ASSERT_EQ(matrix.columns().size(), 2u);
  EXPECT_FALSE(matrix.columns()[0].cells[1].has_gradient);
  EXPECT_TRUE(matrix.columns()[1].cells[1].has_gradient);
}

}  // namespace
}  // namespace trainscope
