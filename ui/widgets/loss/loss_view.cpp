// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/loss/loss_view.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "engine/core/training_options.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/plot_refresh.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/common/theme.h"

namespace trainscope {
namespace {
constexpr int kMaxMetricGraphs = 6;
// Above this many points the per-epoch markers merge into a band: the line alone says more, and
// hundreds of antialiased circles per replot were most of the GUI thread's time at full speed.
constexpr int kMaxMarkedMetricPoints = 100;
}  // namespace

LossView::LossView(QWidget* parent) : QWidget(parent) {
  follow_check_ = new QCheckBox(tr("Follow"), this);
  follow_check_->setChecked(true);
  follow_check_->setToolTip(tr("Keep the newest samples in view"));
  window_spin_ = new QSpinBox(this);
  window_spin_->setRange(0, 10000000);
  window_spin_->setValue(0);
  window_spin_->setSpecialValueText(tr("all samples"));
  window_spin_->setSuffix(tr(" samples"));
  window_spin_->setToolTip(tr("How many of the newest samples Follow shows (0 = all)"));
  log_check_ = new QCheckBox(tr("Log scale"), this);
  connect(follow_check_, &QCheckBox::toggled, this, [this] { refresh(); });
  connect(window_spin_, qOverload<int>(&QSpinBox::valueChanged), this, [this] { refresh(); });
  connect(log_check_, &QCheckBox::toggled, this, &LossView::setLogScale);
  auto* header = new QHBoxLayout;
  header->setContentsMargins(6, 4, 6, 0);
  header->addWidget(follow_check_);
  header->addWidget(window_spin_);
  header->addWidget(log_check_);
  header->addStretch(1);

  plot_ = new QCustomPlot(this);
  QCPAxisRect* loss_rect = plot_->axisRect();
  loss_rect->axis(QCPAxis::atBottom)->setLabel(tr("sample"));
  loss_rect->axis(QCPAxis::atLeft)->setLabel(tr("loss"));
  metric_rect_ = new QCPAxisRect(plot_);
  plot_->plotLayout()->addElement(1, 0, metric_rect_);
  metric_rect_->axis(QCPAxis::atBottom)->setLabel(tr("epoch"));
  metric_rect_->axis(QCPAxis::atLeft)->setLabel(tr("metric"));
  metric_rect_->axis(QCPAxis::atLeft)->ticker()->setTickCount(3);
  for (QCPAxis* axis : metric_rect_->axes()) axis->setLayer(QStringLiteral("axes"));
  for (QCPAxis* axis : metric_rect_->axes()) axis->grid()->setLayer(QStringLiteral("grid"));

  max_ = plot_->addGraph();
  min_ = plot_->addGraph();
  mean_ = plot_->addGraph();
  non_finite_ = plot_->addGraph();
  min_->setName(tr("min/max envelope"));
  max_->removeFromLegend();
  min_->setChannelFillGraph(max_);
  mean_->setName(tr("loss (bucket mean)"));
  non_finite_->setLineStyle(QCPGraph::lsNone);
  non_finite_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, 9));
  for (int i = 0; i < kMaxMetricGraphs; ++i) {
    QCPGraph* graph =
        plot_->addGraph(metric_rect_->axis(QCPAxis::atBottom), metric_rect_->axis(QCPAxis::atLeft));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    graph->setVisible(false);
    graph->removeFromLegend();
    metric_graphs_.push_back(graph);
  }
  QFont legend_font = font();
  legend_font.setPointSizeF(legend_font.pointSizeF() * 0.85);
  plot_->legend->setFont(legend_font);
  PlaceLegendAbove(plot_, 2);
  plot_->plotLayout()->setRowStretchFactor(2, 0.45);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  loss_rect->setRangeZoom(Qt::Horizontal);
  loss_rect->setRangeDrag(Qt::Horizontal);
  // Looking around by hand means the user wants the view to hold still.
  connect(plot_, &QCustomPlot::mousePress, this, [this] { setFollow(false); });
  connect(plot_, &QCustomPlot::mouseWheel, this, [this] { setFollow(false); });

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(header);
  layout->addWidget(plot_, 1);
  applyTheme();
  follower_ = new SnapshotFollower(this);
  follower_->setCallback([this](const auto& snapshot) { onSnapshot(*snapshot); });
}

LossView::~LossView() = default;

void LossView::setStore(std::shared_ptr<SessionStore> store) {
  follower_->setStore(std::move(store));
}

void LossView::setFollow(bool follow) {
  follow_check_->setChecked(follow);
}

bool LossView::follow() const {
  return follow_check_->isChecked();
}

void LossView::setLogScale(bool log) {
  QSignalBlocker block(log_check_);
  log_check_->setChecked(log);
  QCPAxis* axis = plot_->axisRect()->axis(QCPAxis::atLeft);
  axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  axis->setTicker(log ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                      : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  refresh();
}

void LossView::refresh() {
  follower_->refresh();
}

void LossView::onSnapshot(const SessionSnapshot& snapshot) {
  // Memory and gradient events change the store too; the plots need only loss and metrics.
  bool same = !follower_->forced() && snapshot.loss == shown_loss_ &&
              snapshot.metrics.size() == shown_metrics_.size();
  size_t index = 0;
  for (auto it = snapshot.metrics.begin(); same && it != snapshot.metrics.end(); ++it, ++index) {
    same = it->second == shown_metrics_[index];
  }
  if (same) return;
  shown_loss_ = snapshot.loss;
  shown_metrics_.clear();
  for (const auto& entry : snapshot.metrics) shown_metrics_.push_back(entry.second);
  rebuild(snapshot);
}

void LossView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    applyTheme();
    refresh();
  }
}

void LossView::applyTheme() {
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  ApplyPlotTheme(plot_, theme);
  const QColor line = theme.dark ? QColor(86, 180, 233) : QColor(0, 114, 178);
  mean_->setPen(QPen(line, 1.6));
  QColor envelope = line;
  envelope.setAlpha(55);
  max_->setPen(Qt::NoPen);
  min_->setPen(Qt::NoPen);
  min_->setBrush(envelope);
  max_->setBrush(Qt::NoBrush);
  QCPScatterStyle cross(QCPScatterStyle::ssCross, theme.error, 9);
  cross.setPen(QPen(theme.error, 2.0));
  non_finite_->setScatterStyle(cross);
  non_finite_->setPen(QPen(theme.error));
  static const QColor kMetricColors[] = {QColor(0, 158, 115),   QColor(213, 94, 0),
                                         QColor(204, 121, 167), QColor(230, 159, 0),
                                         QColor(86, 180, 233),  QColor(120, 120, 120)};
  for (size_t i = 0; i < metric_graphs_.size(); ++i) {
    metric_graphs_[i]->setPen(QPen(kMetricColors[i % 6], 1.6));
  }
}

void LossView::rebuild(const SessionSnapshot& snapshot) {
  ++rebuilds_;
  const DecimatedSeries& loss = *snapshot.loss;
  const bool log = log_check_->isChecked();
  QVector<double> keys, means, lows, highs;
  QVector<double> bad_keys;
  for (const SeriesBucket& bucket : loss.buckets()) {
    const double x = (bucket.x_first + bucket.x_last) / 2.0;
    if (bucket.hasNonFinite()) bad_keys.push_back(x);
    // On a log axis, values <= 0 cannot be placed; they are left out rather than faked.
    if (!bucket.hasFinite() || (log && bucket.y_min <= 0.0)) continue;
    keys.push_back(x);
    means.push_back(bucket.mean());
    lows.push_back(bucket.y_min);
    highs.push_back(bucket.y_max);
  }
  mean_->setData(keys, means, true);
  min_->setData(keys, lows, true);
  max_->setData(keys, highs, true);

  QCPAxis* x_axis = plot_->axisRect()->axis(QCPAxis::atBottom);
  QCPAxis* y_axis = plot_->axisRect()->axis(QCPAxis::atLeft);
  if (follow() && loss.sampleCount() > 0) scrollToNewest(loss.lastX());
  // y follows what is visible, from the envelope so spikes stay inside the frame.
  bool found = false;
  QCPRange y_range = max_->getValueRange(found, QCP::sdBoth, x_axis->range());
  bool found_low = false;
  const QCPRange low_range = min_->getValueRange(found_low, QCP::sdBoth, x_axis->range());
  if (found && found_low) {
    y_range.expand(low_range);
    const double pad = log ? 0.0 : 0.06 * std::max(y_range.size(), 1e-9);
    const double lower = log ? y_range.lower / 1.5 : std::min(0.0, y_range.lower - pad);
    const double upper = log ? y_range.upper * 1.5 : y_range.upper + pad;
    y_axis->setRange(lower, upper);
  }
  QVector<double> bad_values(
      bad_keys.size(),
      log ? y_axis->range().upper / 1.2 : y_axis->range().upper - 0.04 * y_axis->range().size());
  non_finite_->setData(bad_keys, bad_values, true);
  const uint64_t bad = loss.nanCount() + loss.infCount();
  non_finite_->setName(tr("NaN/Inf (%1)").arg(FormatCount(bad)));
  if (bad > 0) {
    non_finite_->addToLegend();
  } else {
    non_finite_->removeFromLegend();
  }

  size_t index = 0;
  double epoch_max = 1.0;
  bool metric_found = false;
  QCPRange metric_range;
  for (const auto& [kind, series] : snapshot.metrics) {
    if (index >= metric_graphs_.size()) break;
    QCPGraph* graph = metric_graphs_[index++];
    QVector<double> epochs, values;
    for (const SeriesBucket& bucket : series->buckets()) {
      if (!bucket.hasFinite()) continue;
      epochs.push_back(bucket.x_last);
      values.push_back(bucket.y_last);
      epoch_max = std::max(epoch_max, bucket.x_last);
    }
    graph->setData(epochs, values, true);
    graph->setScatterStyle(QCPScatterStyle(epochs.size() <= kMaxMarkedMetricPoints
                                               ? QCPScatterStyle::ssCircle
                                               : QCPScatterStyle::ssNone,
                                           5));
    graph->setName(
        kind < 5 ? tr("metric: %1").arg(QLatin1String(MetricName(static_cast<MetricKind>(kind))))
                 : tr("metric %1").arg(kind));
    graph->setVisible(true);
    graph->addToLegend();
    bool graph_found = false;
    const QCPRange range = graph->getValueRange(graph_found);
    if (graph_found) {
      metric_range = metric_found ? QCPRange(std::min(metric_range.lower, range.lower),
                                             std::max(metric_range.upper, range.upper))
                                  : range;
      metric_found = true;
    }
  }
  for (; index < metric_graphs_.size(); ++index) {
    metric_graphs_[index]->setVisible(false);
    metric_graphs_[index]->removeFromLegend();
  }
  metric_rect_->axis(QCPAxis::atBottom)->setRange(0.5, epoch_max + 0.5);
  if (metric_found) {
    const double pad = std::max(0.1 * metric_range.size(), 1e-6);
    metric_rect_->axis(QCPAxis::atLeft)
        ->setRange(metric_range.lower - pad, metric_range.upper + pad);
  }
  ReplotWhenVisible(plot_);
}

void LossView::scrollToNewest(double last_x) {
  QCPAxis* x_axis = plot_->axisRect()->axis(QCPAxis::atBottom);
  const int window = window_spin_->value();
  const double lower = window > 0 ? std::max(0.0, last_x - window) : 0.0;
  x_axis->setRange(lower, std::max(last_x, lower + 1.0) + 0.5);
}

}  // namespace trainscope
