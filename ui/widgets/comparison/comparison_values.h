// SPDX-License-Identifier: Apache-2.0
//
// ComparisonValues: one compared tensor's values from both sides and their difference. A vector
// (at most one dimension above 1) is drawn as two series, board and reference, over the element
// index with board − reference in a plot below; a matrix or higher is drawn as three heatmaps side
// by side (the last dimension as columns, the others as rows): board and reference on one colour
// scale, the difference on a symmetric one. NaN and Inf are never dropped: a series draws them as
// crosses on the zero line, a heatmap crosses their cells, and the counts line names how many.
// Every chart is bounded: past kMaxSeriesPoints a series keeps each bucket's minimum and maximum,
// past kMaxHeatmapCells a side a heatmap shows blocks (the block's extreme difference).
//
//   values->showTensor(file->tensors[i]);   // or showNothing(tr("why"))
#pragma once

#include <QWidget>

#include "ui/session/step_comparison_file.h"

class QCustomPlot;
class QLabel;
class QStackedWidget;

namespace trainscope {

class ComparisonValues : public QWidget {
  Q_OBJECT

 public:
  static constexpr size_t kMaxSeriesPoints = 2048;
  static constexpr size_t kMaxHeatmapCells = 128;

  explicit ComparisonValues(QWidget* parent = nullptr);

  void showTensor(const ComparedTensor& tensor);
  void showNothing(const QString& why);

  // What is shown, for tests: the counts line, whether the heatmaps are up, and the points (or
  // cells) each chart holds.
  QString countsText() const;
  bool showsHeatmap() const;
  QCustomPlot* seriesPlot() const { return series_; }
  QCustomPlot* heatmapPlot() const { return heatmap_; }
  int plottedPoints() const;

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void plotSeries(const ComparedTensor& tensor);
  void plotHeatmaps(const ComparedTensor& tensor, size_t rows, size_t columns);
  void applyTheme();

  QLabel* counts_ = nullptr;
  QStackedWidget* stack_ = nullptr;
  QCustomPlot* series_ = nullptr;
  QCustomPlot* heatmap_ = nullptr;
  int plotted_ = 0;
};

}  // namespace trainscope
