// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/comparison/comparison_values.h"

#include <QEvent>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/session/tensor_values.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/theme.h"

namespace trainscope {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Graphs of the series plot, in the order they are added.
enum SeriesGraph { kBoard = 0, kReference, kBoardBad, kReferenceBad, kDifference, kMismatch };

QCPColorGradient ValueGradient() {
  QCPColorGradient gradient;
  gradient.clearColorStops();
  for (int i = 0; i <= 8; ++i) gradient.setColorStopAt(i / 8.0, RampColor(i / 8.0));
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  return gradient;
}

// Diverging and white at zero (the range is symmetric): agreement reads as blank paper, and the
// sign of a difference as its hue, on light and dark themes alike.
QCPColorGradient DifferenceGradient() {
  QCPColorGradient gradient;
  gradient.clearColorStops();
  gradient.setColorStopAt(0.0, QColor(33, 102, 172));
  gradient.setColorStopAt(0.25, QColor(146, 197, 222));
  gradient.setColorStopAt(0.5, QColor(247, 247, 247));
  gradient.setColorStopAt(0.75, QColor(244, 165, 130));
  gradient.setColorStopAt(1.0, QColor(178, 24, 43));
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  return gradient;
}

// Element indices kept for a series of `count` values: all of them up to the budget, else each
// bucket's smallest and largest finite value in index order (the peaks survive).
std::vector<size_t> KeptIndices(const std::vector<float>& values, size_t budget) {
  std::vector<size_t> kept;
  const size_t count = values.size();
  if (count <= budget) {
    kept.resize(count);
    for (size_t i = 0; i < count; ++i) kept[i] = i;
    return kept;
  }
  const size_t bucket = (count + budget / 2 - 1) / (budget / 2);
  for (size_t start = 0; start < count; start += bucket) {
    size_t low = start, high = start;
    bool any = false;
    for (size_t i = start; i < std::min(count, start + bucket); ++i) {
      if (!std::isfinite(values[i])) continue;
      if (!any || values[i] < values[low]) low = i;
      if (!any || values[i] > values[high]) high = i;
      any = true;
    }
    if (!any) continue;
    kept.push_back(std::min(low, high));
    if (high != low) kept.push_back(std::max(low, high));
  }
  return kept;
}

// The plot's first axis rect, or a new one at (row, column), titled on its top axis.
QCPAxisRect* TitledRect(QCustomPlot* plot, int row, int column, const QString& title) {
  QCPAxisRect* rect = plot->axisRect();
  if (row != 0 || column != 0) {
    rect = new QCPAxisRect(plot);
    plot->plotLayout()->addElement(row, column, rect);
  }
  rect->axis(QCPAxis::atTop)->setVisible(true);
  rect->axis(QCPAxis::atTop)->setTicks(false);
  rect->axis(QCPAxis::atTop)->setTickLabels(false);
  rect->axis(QCPAxis::atTop)->setLabel(title);
  return rect;
}

}  // namespace

ComparisonValues::ComparisonValues(QWidget* parent) : QWidget(parent) {
  counts_ = new QLabel(this);
  counts_->setWordWrap(true);
  counts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  counts_->setObjectName(QStringLiteral("comparisonCounts"));

  series_ = new QCustomPlot(this);
  series_->setMinimumHeight(160);
  QCPAxisRect* values = TitledRect(series_, 0, 0, tr("board and reference"));
  QCPAxisRect* difference = TitledRect(series_, 1, 0, tr("board − reference"));
  auto* margins = new QCPMarginGroup(series_);
  values->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  difference->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  difference->axis(QCPAxis::atBottom)->setLabel(tr("element"));
  const auto add = [&](QCPAxisRect* rect, const QString& name) {
    QCPGraph* graph = series_->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    graph->setName(name);
    return graph;
  };
  add(values, tr("board"));
  add(values, tr("reference"));
  add(values, tr("board NaN/Inf (at 0)"));
  add(values, tr("reference NaN/Inf (at 0)"));
  add(difference, tr("board − reference"));
  add(difference, tr("NaN/Inf mismatch (at 0)"));
  for (int g : {kBoardBad, kReferenceBad, kMismatch})
    series_->graph(g)->setLineStyle(QCPGraph::lsNone);
  series_->graph(kDifference)->setLineStyle(QCPGraph::lsImpulse);
  series_->legend->setVisible(true);
  series_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  series_->legend->setWrap(2);
  for (int g : {kDifference, kMismatch}) series_->graph(g)->removeFromLegend();
  series_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);

  heatmap_ = new QCustomPlot(this);
  heatmap_->setMinimumHeight(160);
  const QString titles[] = {tr("board"), tr("reference"), tr("board − reference")};
  QCPColorScale* value_scale = nullptr;
  for (int k = 0; k < 3; ++k) {
    QCPAxisRect* rect = TitledRect(heatmap_, 0, k < 2 ? k : 3, titles[k]);
    rect->axis(QCPAxis::atLeft)->setRangeReversed(true);
    rect->axis(QCPAxis::atBottom)->setLabel(tr("column"));
    if (k == 0) rect->axis(QCPAxis::atLeft)->setLabel(tr("row"));
    auto* map = new QCPColorMap(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    map->setInterpolate(false);
    if (k == 1 || k == 2) {
      auto* scale = new QCPColorScale(heatmap_);
      heatmap_->plotLayout()->addElement(0, k == 1 ? 2 : 4, scale);
      scale->setType(QCPAxis::atRight);
      scale->setBarWidth(10);
      if (k == 1) value_scale = scale;
      map->setColorScale(scale);
      map->setGradient(k == 1 ? ValueGradient() : DifferenceGradient());
    } else {
      map->setGradient(ValueGradient());
    }
    QCPGraph* bad = heatmap_->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    bad->setLineStyle(QCPGraph::lsNone);
    bad->setName(tr("NaN/Inf"));
  }
  static_cast<void>(value_scale);

  stack_ = new QStackedWidget(this);
  stack_->addWidget(series_);
  stack_->addWidget(heatmap_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(counts_);
  layout->addWidget(stack_, 1);
  applyTheme();
  showNothing(tr("Select a tensor to see both sides' values."));
}

void ComparisonValues::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) applyTheme();
}

void ComparisonValues::applyTheme() {
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  for (QCustomPlot* plot : {series_, heatmap_}) {
    ApplyPlotTheme(plot, theme);
    for (QCPAxisRect* rect : plot->axisRects()) {
      for (QCPAxis* axis : rect->axes()) ApplyAxisTheme(axis, theme);
    }
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
      if (auto* scale = qobject_cast<QCPColorScale*>(plot->plotLayout()->elementAt(i))) {
        ApplyAxisTheme(scale->axis(), theme);
      }
    }
  }
  const QColor board = theme.category(MemoryCategory::kInput);
  const QColor reference = theme.category(MemoryCategory::kActivation);
  series_->graph(kBoard)->setPen(QPen(board, 1.6));
  series_->graph(kReference)->setPen(QPen(reference, 1.4, Qt::DashLine));
  series_->graph(kDifference)->setPen(QPen(theme.text, 1.0));
  const QCPScatterStyle cross(QCPScatterStyle::ssCross, theme.error, 9);
  for (int g : {kBoardBad, kReferenceBad, kMismatch}) {
    series_->graph(g)->setPen(QPen(theme.error, 1.8));
    series_->graph(g)->setScatterStyle(cross);
  }
  series_->graph(kReferenceBad)
      ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, theme.error, 8));
  for (int g = 0; g < heatmap_->graphCount(); ++g) {
    heatmap_->graph(g)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, theme.error, 9));
    heatmap_->graph(g)->setPen(QPen(theme.error, 1.8));
  }
  series_->replot(QCustomPlot::rpQueuedReplot);
  heatmap_->replot(QCustomPlot::rpQueuedReplot);
}

QString ComparisonValues::countsText() const {
  return counts_->text();
}

bool ComparisonValues::showsHeatmap() const {
  return stack_->currentWidget() == heatmap_;
}

int ComparisonValues::plottedPoints() const {
  return plotted_;
}

void ComparisonValues::showNothing(const QString& why) {
  counts_->setText(why);
  plotted_ = 0;
  for (int g = 0; g < series_->graphCount(); ++g) series_->graph(g)->data()->clear();
  for (int g = 0; g < heatmap_->graphCount(); ++g) heatmap_->graph(g)->data()->clear();
  stack_->setCurrentWidget(series_);
  series_->replot(QCustomPlot::rpQueuedReplot);
}

void ComparisonValues::showTensor(const ComparedTensor& t) {
  const TensorComparison& pair = t.pair;
  const QString what =
      QStringLiteral("<b>%1</b> · %2")
          .arg(t.name.toHtmlEscaped(), QString::fromStdString(pair.read.role).toHtmlEscaped());
  if (!t.bothHeld() || !pair.shape_matches) {
    QString why;
    if (!pair.board_held) why += tr(" · board: %1").arg(QString::fromStdString(pair.board_reason));
    if (!pair.reference_held) {
      why += tr(" · reference: %1").arg(QString::fromStdString(pair.reference_reason));
    }
    if (t.bothHeld()) why += tr(" · the two sides' shapes differ");
    showNothing(what + why.toHtmlEscaped());
    return;
  }
  const TensorDifference& d = pair.difference;
  const uint64_t n = t.valueCount();
  QString text = tr("%1 · %2 · %3 values: %4 finite on both sides")
                     .arg(what, FormatShape(pair.shape), FormatCount(n), FormatCount(d.count));
  const QString nonfinite = tr(" · NaN/Inf: board %1, reference %2, mismatched %3")
                                .arg(FormatCount(d.board_nonfinite))
                                .arg(FormatCount(d.reference_nonfinite))
                                .arg(FormatCount(d.nonfinite_mismatches));
  if (d.board_nonfinite + d.reference_nonfinite > 0) {
    text += QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                .arg(ViewTheme::fromPalette(palette()).error.name(), nonfinite.toHtmlEscaped());
  } else {
    text += nonfinite;
  }
  if (t.has_values && d.count > 0 && d.max_abs_index < n) {
    const size_t at = static_cast<size_t>(d.max_abs_index);
    text += tr("<br>largest |a−b| %1 at element %2 (board %3, reference %4)")
                .arg(FormatValue(d.max_abs))
                .arg(at)
                .arg(QString::number(t.board_values[at], 'g', 9))
                .arg(QString::number(t.reference_values[at], 'g', 9));
  }
  if (!t.has_values) {
    counts_->setText(text + tr("<br>The file has no values: write it with <tt>diff --json FILE "
                               "--values</tt> to see them here."));
    plotted_ = 0;
    for (int g = 0; g < series_->graphCount(); ++g) series_->graph(g)->data()->clear();
    stack_->setCurrentWidget(series_);
    series_->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  int dims = 0;
  for (int32_t size : pair.shape) dims += size > 1 ? 1 : 0;
  if (dims >= 2) {
    const TensorGrid grid = GridOf(pair.shape, static_cast<size_t>(n));
    plotHeatmaps(t, grid.rows, grid.columns);
    const size_t block_rows = (grid.rows + kMaxHeatmapCells - 1) / kMaxHeatmapCells;
    const size_t block_columns = (grid.columns + kMaxHeatmapCells - 1) / kMaxHeatmapCells;
    if (block_rows * block_columns > 1) {
      text += tr("<br>Shown in blocks of %1×%2 values (each block's largest magnitude; a block "
                 "with NaN/Inf is crossed).")
                  .arg(block_rows)
                  .arg(block_columns);
    }
  } else {
    plotSeries(t);
    if (n > kMaxSeriesPoints) {
      text += tr("<br>%1 of %2 values drawn: each bucket's smallest and largest.")
                  .arg(FormatCount(static_cast<uint64_t>(plotted_)), FormatCount(n));
    }
  }
  counts_->setText(text);
}

void ComparisonValues::plotSeries(const ComparedTensor& t) {
  stack_->setCurrentWidget(series_);
  const std::vector<float>& board = t.board_values;
  const std::vector<float>& reference = t.reference_values;
  QVector<double> keys, board_values, reference_values, differences;
  // One key set for all three, so the series line up: the peaks of either side and of the
  // difference within each bucket.
  std::vector<float> difference(board.size());
  for (size_t i = 0; i < board.size(); ++i) difference[i] = board[i] - reference[i];
  std::vector<size_t> kept;
  const std::vector<float>* all[] = {&board, &reference, &difference};
  for (const std::vector<float>* values : all) {
    const std::vector<size_t> some = KeptIndices(*values, kMaxSeriesPoints / 3);
    kept.insert(kept.end(), some.begin(), some.end());
  }
  if (board.size() <= kMaxSeriesPoints) {
    kept.resize(board.size());
    for (size_t i = 0; i < kept.size(); ++i) kept[i] = i;
  }
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  for (size_t i : kept) {
    keys << static_cast<double>(i);
    board_values << (std::isfinite(board[i]) ? board[i] : kNaN);
    reference_values << (std::isfinite(reference[i]) ? reference[i] : kNaN);
    differences << (std::isfinite(difference[i]) ? difference[i] : kNaN);
  }
  // Every non-finite position, up to the budget, on the zero line.
  QVector<double> board_bad, reference_bad, mismatch;
  for (size_t i = 0; i < board.size(); ++i) {
    const bool a = std::isfinite(board[i]);
    const bool b = std::isfinite(reference[i]);
    const auto key = static_cast<double>(i);
    if (!a && board_bad.size() < static_cast<qsizetype>(kMaxSeriesPoints)) board_bad << key;
    if (!b && reference_bad.size() < static_cast<qsizetype>(kMaxSeriesPoints)) {
      reference_bad << key;
    }
    const bool same =
        !a && !b && (std::isnan(board[i]) ? std::isnan(reference[i]) : board[i] == reference[i]);
    if ((!a || !b) && !same && mismatch.size() < static_cast<qsizetype>(kMaxSeriesPoints)) {
      mismatch << key;
    }
  }
  const auto zeros = [](const QVector<double>& at) { return QVector<double>(at.size(), 0.0); };
  series_->graph(kBoard)->setData(keys, board_values, true);
  series_->graph(kReference)->setData(keys, reference_values, true);
  series_->graph(kDifference)->setData(keys, differences, true);
  series_->graph(kBoardBad)->setData(board_bad, zeros(board_bad), true);
  series_->graph(kReferenceBad)->setData(reference_bad, zeros(reference_bad), true);
  series_->graph(kMismatch)->setData(mismatch, zeros(mismatch), true);
  plotted_ = static_cast<int>(keys.size());
  const double last = std::max<double>(1.0, static_cast<double>(board.size()) - 1.0);
  for (QCPAxisRect* rect : series_->axisRects()) {
    rect->axis(QCPAxis::atBottom)->setRange(-0.5, last + 0.5);
  }
  for (int g : {kBoard, kDifference}) {
    bool found = false;
    QCPRange range = series_->graph(g)->getValueRange(found);
    if (g == kBoard) {
      bool other = false;
      const QCPRange reference_range = series_->graph(kReference)->getValueRange(other);
      if (other)
        range = found ? QCPRange(std::min(range.lower, reference_range.lower),
                                 std::max(range.upper, reference_range.upper))
                      : reference_range;
      found = found || other;
    }
    if (!found) range = QCPRange(-1.0, 1.0);
    range.lower = std::min(range.lower, 0.0);
    range.upper = std::max(range.upper, 0.0);
    if (range.size() <= 0.0) range = QCPRange(range.lower - 1.0, range.upper + 1.0);
    series_->graph(g)->valueAxis()->setRange(range.lower - range.size() * 0.05,
                                             range.upper + range.size() * 0.05);
  }
  series_->replot(QCustomPlot::rpQueuedReplot);
}

void ComparisonValues::plotHeatmaps(const ComparedTensor& t, size_t rows, size_t columns) {
  stack_->setCurrentWidget(heatmap_);
  const size_t block_rows = (rows + kMaxHeatmapCells - 1) / kMaxHeatmapCells;
  const size_t block_columns = (columns + kMaxHeatmapCells - 1) / kMaxHeatmapCells;
  const int cell_rows = static_cast<int>((rows + block_rows - 1) / block_rows);
  const int cell_columns = static_cast<int>((columns + block_columns - 1) / block_columns);
  std::vector<float> difference(t.board_values.size());
  for (size_t i = 0; i < difference.size(); ++i) {
    difference[i] = t.board_values[i] - t.reference_values[i];
  }
  const std::vector<float>* sources[] = {&t.board_values, &t.reference_values, &difference};
  double low = std::numeric_limits<double>::infinity(), high = -low, spread = 0.0;
  std::vector<QCPColorMap*> maps;
  for (int p = 0; p < heatmap_->plottableCount(); ++p) {
    if (auto* map = qobject_cast<QCPColorMap*>(heatmap_->plottable(p))) maps.push_back(map);
  }
  plotted_ = 0;
  for (size_t k = 0; k < 3 && k < maps.size(); ++k) {
    const std::vector<float>& values = *sources[k];
    QCPColorMapData* cells = maps[k]->data();
    cells->setSize(cell_columns, cell_rows);
    cells->setRange(QCPRange(0.0, std::max(cell_columns - 1, 0) * double(block_columns)),
                    QCPRange(0.0, std::max(cell_rows - 1, 0) * double(block_rows)));
    QVector<double> bad_x, bad_y;
    for (int r = 0; r < cell_rows; ++r) {
      for (int c = 0; c < cell_columns; ++c) {
        double extreme = 0.0;
        bool bad = false;
        for (size_t y = r * block_rows; y < std::min(rows, (r + 1) * block_rows); ++y) {
          for (size_t x = c * block_columns; x < std::min(columns, (c + 1) * block_columns); ++x) {
            const float v = values[y * columns + x];
            if (!std::isfinite(v)) {
              bad = true;
            } else if (std::fabs(v) > std::fabs(extreme)) {
              extreme = v;
            }
          }
        }
        cells->setCell(c, r, bad ? kNaN : extreme);
        if (bad) {
          bad_x << static_cast<double>(c * block_columns);
          bad_y << static_cast<double>(r * block_rows);
        } else if (k < 2) {
          low = std::min(low, extreme);
          high = std::max(high, extreme);
        } else {
          spread = std::max(spread, std::fabs(extreme));
        }
      }
    }
    heatmap_->graph(static_cast<int>(k))->setData(bad_x, bad_y);
    plotted_ += cell_rows * cell_columns;
  }
  if (!(high >= low)) low = high = 0.0;
  if (high == low) {
    low -= 1.0;
    high += 1.0;
  }
  if (!(spread > 0.0)) spread = 1.0;
  if (maps.size() >= 3) {
    maps[0]->setDataRange(QCPRange(low, high));
    maps[1]->setDataRange(QCPRange(low, high));
    maps[2]->setDataRange(QCPRange(-spread, spread));
  }
  for (QCPAxisRect* rect : heatmap_->axisRects()) {
    const auto bc = static_cast<double>(block_columns);
    const auto br = static_cast<double>(block_rows);
    rect->axis(QCPAxis::atBottom)->setRange(-0.5 * bc, (cell_columns - 0.5) * bc);
    rect->axis(QCPAxis::atLeft)->setRange(-0.5 * br, (cell_rows - 0.5) * br);
  }
  heatmap_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace trainscope
