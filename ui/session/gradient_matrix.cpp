// SPDX-License-Identifier: Apache-2.0
#include "ui/session/gradient_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainscope {
namespace {

// NaN would make every later max() comparison false and stick; it is counted separately.
float MaxIgnoringNan(float a, float b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return std::max(a, b);
}

void MergeCell(GradientCell& into, const GradientCell& from) {
  if (from.has_gradient) {
    into.l2 = into.has_gradient ? MaxIgnoringNan(into.l2, from.l2) : from.l2;
    into.max_abs = into.has_gradient ? MaxIgnoringNan(into.max_abs, from.max_abs) : from.max_abs;
    into.has_gradient = true;
  }
  if (from.has_update_ratio) {
    into.update_ratio = into.has_update_ratio ? MaxIgnoringNan(into.update_ratio, from.update_ratio)
                                              : from.update_ratio;
    into.has_update_ratio = true;
  }
  into.nan_count += from.nan_count;
  into.inf_count += from.inf_count;
}

}  // namespace

GradientMatrix::GradientMatrix(size_t max_columns)
    : max_columns_(std::max<size_t>(2, max_columns)) {}

void GradientMatrix::clear() {
  rows_.clear();
  columns_.clear();
}

int GradientMatrix::rowOf(int32_t tensor) const {
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].tensor == tensor) return static_cast<int>(i);
  }
  return -1;
}

size_t GradientMatrix::rowFor(int32_t tensor, uint32_t op_index) {
  const int existing = rowOf(tensor);
  if (existing >= 0) return static_cast<size_t>(existing);
  const GradientRow row{tensor, op_index};
  auto it = std::lower_bound(rows_.begin(), rows_.end(), row, [](const auto& a, const auto& b) {
    return a.op_index != b.op_index ? a.op_index < b.op_index : a.tensor < b.tensor;
  });
  const size_t position = static_cast<size_t>(it - rows_.begin());
  rows_.insert(it, row);
  for (GradientColumn& column : columns_) {
    column.cells.insert(column.cells.begin() + static_cast<std::ptrdiff_t>(position),
                        GradientCell());
  }
  return position;
}

GradientCell& GradientMatrix::cellFor(uint32_t optimizer_step, size_t row) {
  if (columns_.empty() || optimizer_step > columns_.back().last_step) {
    GradientColumn column;
    column.first_step = column.last_step = optimizer_step;
    column.cells.resize(rows_.size());
    columns_.push_back(std::move(column));
    if (columns_.size() > max_columns_) mergeOnce();
    return columns_.back().cells[row];
  }
  // A late event for an older step lands in the column covering it (or the nearest one).
  for (size_t i = columns_.size(); i-- > 0;) {
    if (optimizer_step >= columns_[i].first_step || i == 0) return columns_[i].cells[row];
  }
  return columns_.back().cells[row];
}

void GradientMatrix::mergeOnce() {
  // Merge the oldest pair of equally wide neighbours, narrowest first: widths stay powers of two
  // that never grow from old to new, like a binary counter, so recent steps keep fine detail.
  size_t best = 0;
  uint32_t best_width = std::numeric_limits<uint32_t>::max();
  for (size_t i = 0; i + 1 < columns_.size(); ++i) {
    const uint32_t width = columns_[i].merged;
    if (width == columns_[i + 1].merged && width < best_width) {
      best_width = width;
      best = i;
    }
  }
  GradientColumn& into = columns_[best];
  const GradientColumn& from = columns_[best + 1];
  for (size_t row = 0; row < into.cells.size(); ++row) MergeCell(into.cells[row], from.cells[row]);
  into.last_step = from.last_step;
  into.merged += from.merged;
  columns_.erase(columns_.begin() + static_cast<std::ptrdiff_t>(best + 1));
}

void GradientMatrix::add(const GradientStatsEvent& event) {
  const size_t row = rowFor(event.tensor, event.op_index);
  GradientCell sample;
  sample.l2 = event.l2;
  sample.max_abs = event.max_abs;
  sample.nan_count = event.nan_count;
  sample.inf_count = event.inf_count;
  sample.has_gradient = true;
  MergeCell(cellFor(event.optimizer_step, row), sample);
}

void GradientMatrix::add(const UpdateRatioEvent& event) {
  const int existing = rowOf(event.tensor);
  // Ratios without gradient stats for the tensor have no op to sort by; they go last.
  const size_t row = existing >= 0 ? static_cast<size_t>(existing)
                                   : rowFor(event.tensor, std::numeric_limits<uint32_t>::max());
  GradientCell sample;
  sample.update_ratio = event.ratio;
  sample.has_update_ratio = true;
  MergeCell(cellFor(event.optimizer_step, row), sample);
}

}  // namespace trainscope
