// SPDX-License-Identifier: Apache-2.0
//
// GradientsView: filling the three plots from a snapshot.
#include <QComboBox>
#include <QHelpEvent>
#include <QLabel>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/model/opcodes.h"
#include "ui/session/parameter_rows.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/gradients/gradients_view.h"

namespace trainscope {
namespace {

constexpr int kMaxStepLabels = 10;
constexpr double kPi = 3.14159265358979323846;

QSharedPointer<QCPAxisTickerText> TextTicker(const QVector<QString>& labels, int every = 1) {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int i = 0; i < labels.size(); i += std::max(1, every)) ticker->addTick(i, labels[i]);
  return ticker;
}

// The per-layer tensor axis: names lie flat while each fits its slot, otherwise they turn by
// kRotatedDegrees and only every k-th is kept, k the smallest step that keeps neighbouring
// rotated labels a line height apart (the labels are parallel, so that distance is the slot
// width times sin(angle)). Re-fitted after every layout, since the axis length follows the dock;
// the full name of the tensor under the mouse shows in a tooltip. A child of the plot, created
// on first use.
class TensorAxisLabels : public QObject {
 public:
  static constexpr double kRotatedDegrees = -45.0;
  static constexpr int kGapPixels = 3;

  static TensorAxisLabels* Of(QCustomPlot* plot, QCPAxis* labelled, QCPAxis* follower) {
    static const QString kName = QStringLiteral("trainscope-tensor-axis-labels");
    for (QObject* child : plot->children()) {
      if (child->objectName() == kName) return static_cast<TensorAxisLabels*>(child);
    }
    auto* labels = new TensorAxisLabels(plot, labelled, follower);
    labels->setObjectName(kName);
    return labels;
  }

  void setLabels(const QVector<QString>& labels, const QStringList& full_names) {
    labels_ = labels;
    full_names_ = full_names;
    every_ = 0;  // force a new ticker
    fit();
  }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched != plot_ || event->type() != QEvent::ToolTip) return false;
    const auto* help = static_cast<QHelpEvent*>(event);
    const QRect rect = labelled_->axisRect()->rect();
    const int x = help->pos().x();
    const int key = static_cast<int>(std::lround(labelled_->pixelToCoord(x)));
    if (x >= rect.left() && x <= rect.right() && key >= 0 && key < full_names_.size()) {
      QToolTip::showText(help->globalPos(), full_names_[key], plot_);
    } else {
      QToolTip::hideText();
      event->ignore();
    }
    return true;
  }

 private:
  TensorAxisLabels(QCustomPlot* plot, QCPAxis* labelled, QCPAxis* follower)
      : QObject(plot), plot_(plot), labelled_(labelled), follower_(follower) {
    plot_->installEventFilter(this);
    connect(plot_, &QCustomPlot::afterLayout, this, [this] {
      if (fit()) plot_->replot(QCustomPlot::rpQueuedReplot);
    });
  }

  // True when the ticks or the rotation changed.
  bool fit() {
    const auto count = static_cast<int>(labels_.size());
    const QFontMetrics metrics(labelled_->tickLabelFont());
    const double slot = count > 0 ? labelled_->axisRect()->width() / static_cast<double>(count) : 0;
    int widest = 0;
    for (const QString& label : labels_)
      widest = std::max(widest, metrics.horizontalAdvance(label));
    double rotation = 0.0;
    int every = 1;
    if (slot < widest + kGapPixels) {
      rotation = kRotatedDegrees;
      const double apart = slot * std::sin(std::abs(rotation) * kPi / 180.0);
      const double needed = metrics.height() + kGapPixels;
      every = apart > 0 ? std::max(1, static_cast<int>(std::ceil(needed / apart))) : count;
    }
    every = std::max(1, every);
    if (every == every_ && rotation == labelled_->tickLabelRotation()) return false;
    every_ = every;
    labelled_->setTickLabelRotation(rotation);
    const auto ticker = TextTicker(labels_, every);
    labelled_->setTicker(ticker);
    follower_->setTicker(ticker);
    return true;
  }

  QCustomPlot* plot_;
  QCPAxis* labelled_;
  QCPAxis* follower_;
  QVector<QString> labels_;
  QStringList full_names_;
  int every_ = 0;
};

// A log axis range that shows every positive value with some room.
QCPRange LogRange(double low, double high) {
  if (!(high > 0.0)) return QCPRange(1e-6, 1.0);
  if (!(low > 0.0) || low > high) low = high;
  return QCPRange(low / 3.0, high * 3.0);
}

}  // namespace

void GradientsView::rebuildLayers(const SessionSnapshot& snapshot) {
  // One row per parameter tensor: trained ones with their bars, frozen ones labelled, empty.
  const std::vector<TensorGradient> rows = ParameterRows(snapshot, graph_);
  QVector<double> keys, l2, ratio_keys, ratios, bad_keys;
  QVector<QString> labels;
  double low = std::numeric_limits<double>::infinity();
  double high = 0.0;
  double ratio_low = std::numeric_limits<double>::infinity();
  double ratio_high = 0.0;
  uint64_t bad_total = 0;
  int index = 0;
  for (const TensorGradient& tensor : rows) {
    // A frozen tensor keeps its place, labelled, with no bars: its last values are history.
    labels.push_back(tensor.frozen
                         ? tr("%1\nfrozen").arg(tensorLabel(tensor.tensor, tensor.op_index))
                         : tensorLabel(tensor.tensor, tensor.op_index));
    const double x = index++;
    if (tensor.frozen) continue;
    if (tensor.has_stats) {
      const GradientStatsEvent& stats = tensor.stats;
      // A non-finite statistic has no bar; the red marker says why.
      if (std::isfinite(stats.l2) && stats.l2 > 0) {
        keys.push_back(x);
        l2.push_back(stats.l2);
        low = std::min<double>(low, stats.l2);
        high = std::max<double>(high, stats.l2);
      }
      if (std::isfinite(stats.max_abs) && stats.max_abs > 0) {
        low = std::min<double>(low, stats.max_abs);
        high = std::max<double>(high, stats.max_abs);
      }
      const uint64_t bad = uint64_t{stats.nan_count} + stats.inf_count;
      if (bad > 0 || !std::isfinite(stats.l2)) bad_keys.push_back(x);
      bad_total += bad;
    }
    if (tensor.has_ratio && std::isfinite(tensor.ratio.ratio) && tensor.ratio.ratio > 0) {
      ratio_keys.push_back(x);
      ratios.push_back(tensor.ratio.ratio);
      ratio_low = std::min<double>(ratio_low, tensor.ratio.ratio);
      ratio_high = std::max<double>(ratio_high, tensor.ratio.ratio);
    }
  }
  // max|g| may lack a value where l2 has one, so it gets its own keys.
  QVector<double> max_keys, max_values;
  index = 0;
  for (const TensorGradient& tensor : rows) {
    const double x = index++;
    if (!tensor.frozen && tensor.has_stats && std::isfinite(tensor.stats.max_abs) &&
        tensor.stats.max_abs > 0) {
      max_keys.push_back(x);
      max_values.push_back(tensor.stats.max_abs);
    }
  }
  l2_bars_->setData(keys, l2, true);
  max_bars_->setData(max_keys, max_values, true);
  ratio_bars_->setData(ratio_keys, ratios, true);

  QCPAxisRect* norm_rect = layers_plot_->axisRect(0);
  const QCPRange range = LogRange(low, high);
  norm_rect->axis(QCPAxis::atLeft)->setRange(range);
  QVector<double> bad_values(bad_keys.size(), range.upper / 1.8);
  non_finite_->setData(bad_keys, bad_values, true);
  non_finite_->setName(
      tr("NaN/Inf (%1 this step, %2 in run)")
          .arg(FormatCount(bad_total))
          .arg(FormatCount(snapshot.gradient_nan_total + snapshot.gradient_inf_total)));
  if (snapshot.gradient_nan_total + snapshot.gradient_inf_total > 0) {
    non_finite_->addToLegend();
  } else {
    non_finite_->removeFromLegend();
  }
  const QCPRange ratio_range = LogRange(std::min(ratio_low, 1e-3), std::max(ratio_high, 1e-3));
  ratio_rect_->axis(QCPAxis::atLeft)->setRange(ratio_range);
  const double count = std::max(1.0, static_cast<double>(labels.size()));
  for (QCPAxisRect* rect : {norm_rect, ratio_rect_}) {
    rect->axis(QCPAxis::atBottom)->setRange(-0.6, count - 0.4);
  }
  QStringList full_names;
  for (const TensorGradient& tensor : rows) {
    QString name = QStringLiteral("t%1").arg(tensor.tensor);
    QString opcode;
    if (!graph_.subgraphs.empty()) {
      const Subgraph& main = graph_.main();
      if (tensor.tensor >= 0 && static_cast<size_t>(tensor.tensor) < main.tensors.size())
        name = QString::fromStdString(main.tensors[static_cast<size_t>(tensor.tensor)].name);
      if (tensor.op_index < main.operators.size())
        opcode = QLatin1String(OpcodeName(main.operators[tensor.op_index].opcode));
    }
    full_names << tr("%1 (tensor %2)\nop #%3 %4%5")
                      .arg(name)
                      .arg(tensor.tensor)
                      .arg(tensor.op_index)
                      .arg(opcode, tensor.frozen ? tr("\nfrozen: not trained in the latest step")
                                                 : QString());
  }
  TensorAxisLabels::Of(layers_plot_, ratio_rect_->axis(QCPAxis::atBottom),
                       norm_rect->axis(QCPAxis::atBottom))
      ->setLabels(labels, full_names);
  norm_rect->axis(QCPAxis::atTop)
      ->setLabel(snapshot.latest_gradient_step > 0
                     ? tr("optimizer step %1").arg(snapshot.latest_gradient_step)
                     : tr("no gradients yet"));
  norm_rect->axis(QCPAxis::atTop)->setVisible(true);
  norm_rect->axis(QCPAxis::atTop)->setTicks(false);
  norm_rect->axis(QCPAxis::atTop)->setTickLabels(false);
}

void GradientsView::rebuildHeatmap(const SessionSnapshot& snapshot) {
  const GradientMatrix& matrix = *snapshot.gradients;
  const int columns = static_cast<int>(matrix.columns().size());
  const int rows = static_cast<int>(matrix.rows().size());
  QCPColorMapData* cells = heatmap_->data();
  cells->setSize(std::max(1, columns), std::max(1, rows));
  cells->setRange(QCPRange(0, std::max(1, columns) - 1), QCPRange(0, std::max(1, rows) - 1));
  cells->fill(std::numeric_limits<double>::quiet_NaN());
  double low = std::numeric_limits<double>::infinity();
  double high = 0.0;
  QVector<double> bad_x, bad_y;
  for (int c = 0; c < columns; ++c) {
    const GradientColumn& column = matrix.columns()[static_cast<size_t>(c)];
    for (int r = 0; r < rows && r < static_cast<int>(column.cells.size()); ++r) {
      const GradientCell& cell = column.cells[static_cast<size_t>(r)];
      if (cell.nan_count + cell.inf_count > 0) {
        bad_x.push_back(c);
        bad_y.push_back(r);
      }
      double value = std::numeric_limits<double>::quiet_NaN();
      switch (heatmap_value_) {
        case HeatmapValue::kL2:
          if (cell.has_gradient) value = cell.l2;
          break;
        case HeatmapValue::kMaxAbs:
          if (cell.has_gradient) value = cell.max_abs;
          break;
        case HeatmapValue::kUpdateRatio:
          if (cell.has_update_ratio) value = cell.update_ratio;
          break;
      }
      if (!std::isfinite(value) || value <= 0.0) continue;  // a log scale cannot place it
      cells->setCell(c, r, value);
      low = std::min(low, value);
      high = std::max(high, value);
    }
  }
  heatmap_nan_->setData(bad_x, bad_y, true);
  if (high > 0.0) {
    heatmap_->setDataRange(QCPRange(low, high > low ? high : low * 10.0));
  }
  static const char* const kNames[] = {QT_TR_NOOP("gradient L2 norm"), QT_TR_NOOP("max |g|"),
                                       QT_TR_NOOP("update ratio")};
  color_scale_->axis()->setLabel(tr(kNames[static_cast<int>(heatmap_value_)]));

  QVector<QString> step_labels;
  for (const GradientColumn& column : matrix.columns()) {
    step_labels.push_back(
        column.first_step == column.last_step
            ? QString::number(column.first_step)
            : QStringLiteral("%1–%2").arg(column.first_step).arg(column.last_step));
  }
  const int every = columns > kMaxStepLabels ? (columns + kMaxStepLabels - 1) / kMaxStepLabels : 1;
  heatmap_plot_->xAxis->setTicker(TextTicker(step_labels, every));
  QVector<QString> row_labels;
  for (const GradientRow& row : matrix.rows())
    row_labels.push_back(tensorLabel(row.tensor, row.op_index));
  const int row_every = rows > 20 ? rows / 20 + 1 : 1;
  heatmap_plot_->yAxis->setTicker(TextTicker(row_labels, row_every));
  heatmap_plot_->xAxis->setRange(-0.5, std::max(1, columns) - 0.5);
  heatmap_plot_->yAxis->setRange(-0.5, std::max(1, rows) - 0.5);
}

void GradientsView::rebuildHistogram(const SessionSnapshot& snapshot) {
  // Keep the tensor list in step with the snapshot.
  if (tensor_combo_->count() != static_cast<int>(snapshot.tensors.size())) {
    QSignalBlocker block(tensor_combo_);
    tensor_combo_->clear();
    for (const TensorGradient& tensor : snapshot.tensors) {
      tensor_combo_->addItem(tensorLabel(tensor.tensor, tensor.op_index), tensor.tensor);
    }
  }
  const TensorGradient* selected = snapshot.findTensor(selected_tensor_);
  if (!selected || !selected->has_stats) {
    selected = nullptr;
    for (const TensorGradient& tensor : snapshot.tensors) {
      if (tensor.has_stats) {
        selected = &tensor;
        break;
      }
    }
  }
  QVector<double> keys, counts;
  if (selected) {
    const int index = tensor_combo_->findData(selected->tensor);
    if (index >= 0) {
      QSignalBlocker block(tensor_combo_);
      tensor_combo_->setCurrentIndex(index);
    }
    double top = 1.0;
    for (int bin = 0; bin < kGradientHistogramBins; ++bin) {
      keys.push_back(bin);
      counts.push_back(selected->stats.histogram[bin]);
      top = std::max<double>(top, selected->stats.histogram[bin]);
    }
    histogram_plot_->yAxis->setRange(0, top * 1.1);
    QString title =
        tr("optimizer step %1 · mean %2 · max |g| %3")
            .arg(selected->stats.optimizer_step)
            .arg(FormatValue(selected->stats.mean), FormatValue(selected->stats.max_abs));
    if (selected->stats.nan_count + selected->stats.inf_count > 0) {
      title +=
          tr(" · %1 NaN, %2 Inf").arg(selected->stats.nan_count).arg(selected->stats.inf_count);
    }
    histogram_title_->setText(title);
  } else {
    histogram_title_->setText(tr("no gradient statistics yet"));
  }
  histogram_->setData(keys, counts, true);
}

}  // namespace trainscope
