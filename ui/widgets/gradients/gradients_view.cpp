// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/gradients/gradients_view.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/widgets/common/format.h"
#include "ui/widgets/common/plot_refresh.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/common/theme.h"

namespace trainscope {
namespace {

// Bars on a log axis need a positive base; far below any gradient a float can hold.
constexpr double kLogBase = 1e-30;
constexpr double kRatioGuide = 1e-3;  // a common rule of thumb for a healthy update size

QSharedPointer<QCPAxisTickerText> TextTicker(const QVector<QString>& labels) {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int i = 0; i < labels.size(); ++i) ticker->addTick(i, labels[i]);
  return ticker;
}

void MakeLogAxis(QCPAxis* axis) {
  axis->setScaleType(QCPAxis::stLogarithmic);
  QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
  axis->setTicker(ticker);
  axis->setNumberFormat(QStringLiteral("eb"));
  axis->setNumberPrecision(0);
}

QCPColorGradient RampGradient() {
  QCPColorGradient gradient;
  gradient.clearColorStops();
  for (int i = 0; i <= 8; ++i) gradient.setColorStopAt(i / 8.0, RampColor(i / 8.0));
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  return gradient;
}

}  // namespace

GradientsView::GradientsView(QWidget* parent) : QWidget(parent) {
  // Per layer: norms on top, update ratios below, sharing the tensor axis.
  layers_plot_ = new QCustomPlot(this);
  QCPAxisRect* norm_rect = layers_plot_->axisRect();
  ratio_rect_ = new QCPAxisRect(layers_plot_);
  layers_plot_->plotLayout()->addElement(1, 0, ratio_rect_);
  auto* margins = new QCPMarginGroup(layers_plot_);
  norm_rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  ratio_rect_->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  for (QCPAxis* axis : ratio_rect_->axes()) axis->setLayer(QStringLiteral("axes"));
  MakeLogAxis(norm_rect->axis(QCPAxis::atLeft));
  MakeLogAxis(ratio_rect_->axis(QCPAxis::atLeft));
  norm_rect->axis(QCPAxis::atLeft)->setLabel(tr("gradient"));
  ratio_rect_->axis(QCPAxis::atLeft)->setLabel(tr("‖ΔW‖ / ‖W‖"));
  norm_rect->axis(QCPAxis::atBottom)->setTickLabels(false);
  l2_bars_ = new QCPBars(norm_rect->axis(QCPAxis::atBottom), norm_rect->axis(QCPAxis::atLeft));
  max_bars_ = new QCPBars(norm_rect->axis(QCPAxis::atBottom), norm_rect->axis(QCPAxis::atLeft));
  l2_bars_->setName(tr("L2 norm"));
  max_bars_->setName(tr("max |g|"));
  auto* group = new QCPBarsGroup(layers_plot_);
  for (QCPBars* bars : {l2_bars_, max_bars_}) {
    bars->setWidth(0.38);
    bars->setBaseValue(kLogBase);
    bars->setBarsGroup(group);
  }
  non_finite_ =
      layers_plot_->addGraph(norm_rect->axis(QCPAxis::atBottom), norm_rect->axis(QCPAxis::atLeft));
  non_finite_->setLineStyle(QCPGraph::lsNone);
  ratio_bars_ =
      new QCPBars(ratio_rect_->axis(QCPAxis::atBottom), ratio_rect_->axis(QCPAxis::atLeft));
  ratio_bars_->setName(tr("update ratio"));
  ratio_bars_->setWidth(0.6);
  ratio_bars_->setBaseValue(kLogBase);
  ratio_guide_ = new QCPItemStraightLine(layers_plot_);
  ratio_guide_->setClipAxisRect(ratio_rect_);
  for (QCPItemPosition* point : {ratio_guide_->point1, ratio_guide_->point2}) {
    point->setAxes(ratio_rect_->axis(QCPAxis::atBottom), ratio_rect_->axis(QCPAxis::atLeft));
  }
  ratio_guide_->point1->setCoords(0, kRatioGuide);
  ratio_guide_->point2->setCoords(1, kRatioGuide);
  ratio_guide_->setClipToAxisRect(true);
  PlaceLegendAbove(layers_plot_, 3);
  ratio_bars_->removeFromLegend();

  // Heatmap.
  heatmap_combo_ = new QComboBox(this);
  heatmap_combo_->addItems({tr("L2 norm"), tr("max |g|"), tr("update ratio")});
  connect(heatmap_combo_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int index) { setHeatmapValue(static_cast<HeatmapValue>(index)); });
  heatmap_plot_ = new QCustomPlot(this);
  heatmap_ = new QCPColorMap(heatmap_plot_->xAxis, heatmap_plot_->yAxis);
  color_scale_ = new QCPColorScale(heatmap_plot_);
  heatmap_plot_->plotLayout()->addElement(0, 1, color_scale_);
  color_scale_->setType(QCPAxis::atRight);
  heatmap_->setColorScale(color_scale_);
  heatmap_->setDataScaleType(QCPAxis::stLogarithmic);
  color_scale_->setDataScaleType(QCPAxis::stLogarithmic);
  MakeLogAxis(color_scale_->axis());
  heatmap_->setGradient(RampGradient());
  heatmap_->setInterpolate(false);
  auto* heat_margins = new QCPMarginGroup(heatmap_plot_);
  heatmap_plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, heat_margins);
  color_scale_->setMarginGroup(QCP::msBottom | QCP::msTop, heat_margins);
  heatmap_plot_->xAxis->setLabel(tr("optimizer step"));
  heatmap_nan_ = heatmap_plot_->addGraph();
  heatmap_nan_->setLineStyle(QCPGraph::lsNone);
  auto* heatmap_page = new QWidget(this);
  auto* heatmap_header = new QHBoxLayout;
  heatmap_header->setContentsMargins(6, 4, 6, 0);
  heatmap_header->addWidget(new QLabel(tr("Colour by"), heatmap_page));
  heatmap_header->addWidget(heatmap_combo_);
  heatmap_header->addStretch(1);
  auto* heatmap_layout = new QVBoxLayout(heatmap_page);
  heatmap_layout->setContentsMargins(0, 0, 0, 0);
  heatmap_layout->addLayout(heatmap_header);
  heatmap_layout->addWidget(heatmap_plot_, 1);

  // Histogram.
  tensor_combo_ = new QComboBox(this);
  tensor_combo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  connect(tensor_combo_, qOverload<int>(&QComboBox::activated), this,
          [this](int index) { selectTensor(tensor_combo_->itemData(index).toInt()); });
  histogram_title_ = new QLabel(this);
  histogram_plot_ = new QCustomPlot(this);
  histogram_ = new QCPBars(histogram_plot_->xAxis, histogram_plot_->yAxis);
  histogram_->setWidth(0.85);
  QVector<QString> bin_labels;
  for (int bin = 0; bin < kGradientHistogramBins; ++bin) {
    bin_labels.push_back(QStringLiteral("1e%1").arg(bin - 12));
  }
  histogram_plot_->xAxis->setTicker(TextTicker(bin_labels));
  histogram_plot_->xAxis->setTickLabelRotation(-45);
  histogram_plot_->xAxis->setLabel(tr("|g| from"));
  histogram_plot_->yAxis->setLabel(tr("elements"));
  histogram_plot_->xAxis->setRange(-0.6, kGradientHistogramBins - 0.4);
  auto* histogram_page = new QWidget(this);
  auto* histogram_header = new QHBoxLayout;
  histogram_header->setContentsMargins(6, 4, 6, 0);
  histogram_header->addWidget(new QLabel(tr("Tensor"), histogram_page));
  histogram_header->addWidget(tensor_combo_);
  histogram_header->addWidget(histogram_title_, 1);
  auto* histogram_layout = new QVBoxLayout(histogram_page);
  histogram_layout->setContentsMargins(0, 0, 0, 0);
  histogram_layout->addLayout(histogram_header);
  histogram_layout->addWidget(histogram_plot_, 1);

  tabs_ = new QTabWidget(this);
  tabs_->setDocumentMode(true);
  tabs_->addTab(layers_plot_, tr("Per layer"));
  tabs_->addTab(heatmap_page, tr("Heatmap"));
  tabs_->addTab(histogram_page, tr("Histogram"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tabs_);

  applyTheme();
  follower_ = new SnapshotFollower(this);
  follower_->setCallback([this](const auto& snapshot) { onSnapshot(*snapshot); });
}

GradientsView::~GradientsView() = default;

void GradientsView::setGraph(const Graph& graph) {
  graph_ = graph;
  selected_tensor_ = -1;
  refresh();
}

void GradientsView::setStore(std::shared_ptr<SessionStore> store) {
  follower_->setStore(std::move(store));
}

void GradientsView::setHeatmapValue(HeatmapValue value) {
  heatmap_value_ = value;
  QSignalBlocker block(heatmap_combo_);
  heatmap_combo_->setCurrentIndex(static_cast<int>(value));
  refresh();
}

void GradientsView::selectTensor(int32_t tensor) {
  selected_tensor_ = tensor;
  refresh();
}

void GradientsView::selectOps(const QList<int>& ops) {
  if (ops.isEmpty()) return;
  const int op = ops.front();
  if (const auto& snapshot = follower_->latest()) {
    for (const TensorGradient& tensor : snapshot->tensors) {
      if (tensor.op_index == static_cast<uint32_t>(op)) {
        selectTensor(tensor.tensor);
        return;
      }
    }
  }
}

void GradientsView::refresh() {
  follower_->refresh();
}

void GradientsView::onSnapshot(const SessionSnapshot& snapshot) {
  // Memory and loss events change the store too; these plots need only the gradients.
  if (!follower_->forced() && snapshot.gradients == shown_gradients_) return;
  shown_gradients_ = snapshot.gradients;
  rebuild(snapshot);
}

void GradientsView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    applyTheme();
    refresh();
  }
}

QString GradientsView::tensorLabel(int32_t tensor, uint32_t op) const {
  QString name = QStringLiteral("t%1").arg(tensor);
  if (!graph_.subgraphs.empty() && tensor >= 0 &&
      static_cast<size_t>(tensor) < graph_.main().tensors.size()) {
    name = QString::fromStdString(graph_.main().tensors[static_cast<size_t>(tensor)].name);
    // The last two path components are what tells "dense1/w" from "dense1/b".
    const QStringList parts = name.split(QLatin1Char('/'));
    if (parts.size() > 2) name = parts[parts.size() - 2] + QLatin1Char('/') + parts.back();
    if (name.size() > 15) name = name.left(14) + QChar(0x2026);
  }
  return QStringLiteral("#%1 %2").arg(op).arg(name);
}

void GradientsView::applyTheme() {
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  for (QCustomPlot* plot : {layers_plot_, heatmap_plot_, histogram_plot_})
    ApplyPlotTheme(plot, theme);
  ApplyAxisTheme(color_scale_->axis(), theme);
  const QColor l2 = theme.dark ? QColor(86, 180, 233) : QColor(0, 114, 178);
  const QColor max = theme.dark ? QColor(230, 159, 0) : QColor(213, 94, 0);
  l2_bars_->setBrush(l2);
  l2_bars_->setPen(QPen(l2.darker(120)));
  max_bars_->setBrush(max);
  max_bars_->setPen(QPen(max.darker(120)));
  ratio_bars_->setBrush(theme.trainable);
  ratio_bars_->setPen(QPen(theme.trainable.darker(130)));
  histogram_->setBrush(l2);
  histogram_->setPen(QPen(l2.darker(120)));
  ratio_guide_->setPen(QPen(theme.muted_text, 1.0, Qt::DashLine));
  QCPScatterStyle cross(QCPScatterStyle::ssCross, theme.error, 10);
  cross.setPen(QPen(theme.error, 2.2));
  non_finite_->setScatterStyle(cross);
  heatmap_nan_->setScatterStyle(cross);
  non_finite_->setPen(QPen(theme.error));
}

void GradientsView::rebuild(const SessionSnapshot& snapshot) {
  ++rebuilds_;
  rebuildLayers(snapshot);
  rebuildHeatmap(snapshot);
  rebuildHistogram(snapshot);
  for (QCustomPlot* plot : {layers_plot_, heatmap_plot_, histogram_plot_}) {
    ReplotWhenVisible(plot);
  }
}

}  // namespace trainscope
