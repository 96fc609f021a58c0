// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/replay/compare_window.h"

#include <QEvent>
#include <QFileInfo>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ui/widgets/common/format.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/theme.h"

namespace trainscope {
namespace {

QCustomPlot* MakePlot(QWidget* parent, const QString& x_label, const QString& y_label) {
  auto* plot = new QCustomPlot(parent);
  plot->setMinimumHeight(180);
  plot->xAxis->setLabel(x_label);
  plot->yAxis->setLabel(y_label);
  plot->legend->setVisible(true);
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  return plot;
}

void SetCurve(QCPGraph* graph, const std::vector<XY>& points, double y_scale) {
  QVector<double> xs, ys;
  xs.reserve(static_cast<int>(points.size()));
  ys.reserve(static_cast<int>(points.size()));
  for (const XY& p : points) {
    xs << p.x;
    ys << p.y / y_scale;
  }
  graph->setData(xs, ys, true);
}

// The two session colours: distinguishable in both schemes and for colour-blind readers.
QColor SessionColor(const ViewTheme& theme, int session) {
  return session == 0 ? theme.accent : theme.peak;
}

}  // namespace

CompareWindow::CompareWindow(QWidget* parent) : QWidget(parent) {
  setWindowTitle(tr("Compare Traces"));
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  memory_ = MakePlot(this, tr("tick of the latest train step"), tr("live KiB"));
  loss_ = MakePlot(this, tr("sample"), tr("loss"));
  gradients_ = MakePlot(this, tr("trained tensor (op:tensor)"), tr("gradient L2 norm"));
  gradients_->yAxis->setScaleType(QCPAxis::stLogarithmic);
  gradients_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  bar_group_ = new QCPBarsGroup(gradients_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(summary_);
  layout->addWidget(memory_, 1);
  layout->addWidget(loss_, 1);
  layout->addWidget(gradients_, 1);
  for (QCustomPlot* plot : {memory_, loss_, gradients_}) PlaceLegendAbove(plot, 2);
  rebuild();
}

CompareWindow::~CompareWindow() = default;

bool CompareWindow::loadTraces(const QString& path_a, const QString& path_b, QString* error) {
  std::shared_ptr<const SessionSnapshot> a, b;
  Status status = LoadTraceSnapshot(path_a, &a);
  if (status.ok()) status = LoadTraceSnapshot(path_b, &b);
  if (!status.ok()) {
    *error = QString::fromUtf8(status.message());
    return false;
  }
  setComparison(CompareSnapshots(*a, *b), QFileInfo(path_a).fileName(),
                QFileInfo(path_b).fileName());
  return true;
}

void CompareWindow::setComparison(const TraceComparison& comparison, const QString& name_a,
                                  const QString& name_b) {
  comparison_ = comparison;
  name_a_ = name_a;
  name_b_ = name_b;
  rebuild();
}

QString CompareWindow::summaryText() const {
  return summary_->text();
}

void CompareWindow::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) rebuild();
}

void CompareWindow::rebuild() {
  const TraceComparison& c = comparison_;
  summary_->setText(name_a_.isEmpty()
                        ? tr("Open two traces to compare them.")
                        : tr("A: %1 — run peak %2\nB: %3 — run peak %4 (%5 against A)")
                              .arg(name_a_, FormatBytes(c.run_peak_a), name_b_,
                                   FormatBytes(c.run_peak_b),
                                   FormatBytesDelta(c.peakDifference())));
  const QString names[2] = {name_a_.isEmpty() ? tr("A") : name_a_,
                            name_b_.isEmpty() ? tr("B") : name_b_};

  memory_->clearGraphs();
  loss_->clearGraphs();
  gradients_->clearPlottables();
  const std::vector<XY>* memory[2] = {&c.memory_a, &c.memory_b};
  const std::vector<XY>* losses[2] = {&c.loss_a, &c.loss_b};
  const uint64_t peaks[2] = {c.step_peak_a, c.step_peak_b};
  for (int s = 0; s < 2; ++s) {
    QCPGraph* curve = memory_->addGraph();
    curve->setName(QStringLiteral("%1 (peak %2)").arg(names[s], FormatBytes(peaks[s])));
    curve->setLineStyle(QCPGraph::lsStepLeft);
    SetCurve(curve, *memory[s], 1024.0);
    QCPGraph* loss = loss_->addGraph();
    loss->setName(names[s]);
    SetCurve(loss, *losses[s], 1.0);
  }

  QVector<double> keys, l2[2];
  double smallest = 0.0, largest = 0.0;
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (size_t i = 0; i < c.layers.size(); ++i) {
    const LayerGradientRow& row = c.layers[i];
    const double key = static_cast<double>(i);
    keys << key;
    // Log axis: a missing or zero norm is left out rather than drawn at -infinity.
    l2[0] << (row.in_a && row.l2_a > 0.0 ? row.l2_a : std::nan(""));
    l2[1] << (row.in_b && row.l2_b > 0.0 ? row.l2_b : std::nan(""));
    ticker->addTick(key, QStringLiteral("%1:%2").arg(row.op_index).arg(row.tensor));
    for (double v : {l2[0].back(), l2[1].back()}) {
      if (!(v > 0.0)) continue;
      smallest = smallest > 0.0 ? std::min(smallest, v) : v;
      largest = std::max(largest, v);
    }
  }
  // Bars grow from a decade below the smallest norm, so their heights compare by eye.
  const double base = smallest > 0.0 ? std::pow(10.0, std::floor(std::log10(smallest)) - 1) : 1e-6;
  gradients_->xAxis->setTicker(ticker);
  for (int s = 0; s < 2; ++s) {
    auto* bars = new QCPBars(gradients_->xAxis, gradients_->yAxis);
    bars->setName(names[s]);
    bars->setWidth(0.38);
    bars->setBarsGroup(bar_group_);
    bars->setBaseValue(base);
    bars->setData(keys, l2[s]);
  }
  applyTheme();
  memory_->rescaleAxes();
  memory_->yAxis->setRange(0.0, std::max(memory_->yAxis->range().upper * 1.1, 0.1));
  loss_->rescaleAxes();
  gradients_->yAxis->setRange(base, largest > base ? largest * 3.0 : base * 100.0);
  gradients_->xAxis->setRange(-0.8, std::max<double>(1.0, static_cast<double>(keys.size())) - 0.2);
  for (QCustomPlot* plot : {memory_, loss_, gradients_}) plot->replot();
}

void CompareWindow::applyTheme() {
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  for (QCustomPlot* plot : {memory_, loss_, gradients_}) ApplyPlotTheme(plot, theme);
  for (int s = 0; s < 2 && s < memory_->graphCount(); ++s) {
    memory_->graph(s)->setPen(QPen(SessionColor(theme, s), 1.6));
    loss_->graph(s)->setPen(QPen(SessionColor(theme, s), 1.4));
  }
  for (int s = 0; s < gradients_->plottableCount(); ++s) {
    auto* bars = qobject_cast<QCPBars*>(gradients_->plottable(s));
    if (bars == nullptr) continue;
    QColor fill = SessionColor(theme, s);
    bars->setPen(QPen(fill));
    fill.setAlpha(170);
    bars->setBrush(fill);
  }
}

}  // namespace trainscope
