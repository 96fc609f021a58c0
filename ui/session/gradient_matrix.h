// SPDX-License-Identifier: Apache-2.0
//
// GradientMatrix: gradient statistics as a layers x optimizer-steps table for the heatmap, held
// within `max_columns` columns. Each new optimizer step opens a column; when the table is full,
// the oldest pair of equally wide neighbouring columns (narrowest first) merges, keeping the
// maximum of every statistic and the sum of the NaN/Inf counts. Widths are powers of two that
// grow with age, and an exploding gradient stays visible however long ago it happened.
//
// Rows are the tensors seen so far, ordered by (op index, tensor index); a tensor first seen late
// gets an empty cell in the older columns. A value type, copied into each snapshot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/events.h"

namespace trainscope {

struct GradientCell {
  float l2 = 0.0f;
  float max_abs = 0.0f;
  float update_ratio = 0.0f;
  uint32_t nan_count = 0;
  uint32_t inf_count = 0;
  bool has_gradient = false;
  bool has_update_ratio = false;
};

struct GradientRow {
  int32_t tensor = -1;
  uint32_t op_index = 0;
};

struct GradientColumn {
  uint32_t first_step = 0;  // optimizer steps covered, inclusive
  uint32_t last_step = 0;
  uint32_t merged = 1;              // how many single-step columns this one holds
  std::vector<GradientCell> cells;  // one per row
};

class GradientMatrix {
 public:
  explicit GradientMatrix(size_t max_columns = 256);

  void add(const GradientStatsEvent& event);
  void add(const UpdateRatioEvent& event);
  void clear();

  const std::vector<GradientRow>& rows() const { return rows_; }
  const std::vector<GradientColumn>& columns() const { return columns_; }
  size_t maxColumns() const { return max_columns_; }
  // Row of a tensor, or -1.
  int rowOf(int32_t tensor) const;

 private:
  // Row for the tensor; creates it (keeping rows sorted) when `op_index` is known.
  size_t rowFor(int32_t tensor, uint32_t op_index);
  GradientCell& cellFor(uint32_t optimizer_step, size_t row);
  void mergeOnce();

  size_t max_columns_;
  std::vector<GradientRow> rows_;
  std::vector<GradientColumn> columns_;
};

}  // namespace trainscope
