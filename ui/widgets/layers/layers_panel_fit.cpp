// SPDX-License-Identifier: Apache-2.0
//
// LayersPanel: "Does it fit?" - the budget row, the search on a worker thread and the curve.
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/theme.h"
#include "ui/widgets/layers/fit_summary.h"
#include "ui/widgets/layers/layers_model.h"
#include "ui/widgets/layers/layers_panel.h"

namespace trainscope {
namespace {

constexpr int kMaxBudgetKib = 1 << 22;  // 4 GiB, as the memory view's budget
constexpr int kCurveHeight = 150;

double Kib(uint64_t bytes) {
  return static_cast<double>(bytes) / 1024.0;
}

}  // namespace

QLayout* LayersPanel::createFitControls() {
  fit_budget_spin_ = new QSpinBox(this);
  fit_budget_spin_->setRange(1, kMaxBudgetKib);
  fit_budget_spin_->setSuffix(QStringLiteral(" KiB"));
  fit_budget_spin_->setToolTip(tr("RAM budget of the target board (the memory view's budget)"));
  fit_budget_spin_->setValue(static_cast<int>(fit_budget_bytes_ / 1024));
  connect(fit_budget_spin_, qOverload<int>(&QSpinBox::valueChanged), this,
          [this](int kib) { fit_budget_bytes_ = static_cast<uint64_t>(kib) * 1024; });
  fit_button_ = new QPushButton(tr("Fit"), this);
  fit_button_->setToolTip(
      tr("Find the operators and ranks that fit the budget and train the most parameters, "
         "with the session's optimizer and batch; the answer becomes the pending choice"));
  connect(fit_button_, &QPushButton::clicked, this, &LayersPanel::startFit);
  fit_curve_toggle_ = new QToolButton(this);
  fit_curve_toggle_->setText(tr("Curve"));
  fit_curve_toggle_->setCheckable(true);
  fit_curve_toggle_->setEnabled(false);
  fit_curve_toggle_->setToolTip(tr("Best trainable parameters against the budget"));
  fit_message_ = new QLabel(this);
  fit_message_->setWordWrap(true);
  fit_message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  fit_message_->hide();

  fit_plot_ = new QCustomPlot(this);
  fit_plot_->setFixedHeight(kCurveHeight);
  fit_plot_->xAxis->setLabel(tr("budget (KiB)"));
  fit_plot_->yAxis->setLabel(tr("trained params"));
  fit_plot_->hide();
  connect(fit_curve_toggle_, &QToolButton::toggled, fit_plot_, &QWidget::setVisible);

  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Does it fit?"), this));
  row->addWidget(fit_budget_spin_);
  row->addWidget(fit_button_);
  row->addWidget(fit_curve_toggle_);
  row->addStretch(1);
  auto* column = new QVBoxLayout;
  column->addLayout(row);
  column->addWidget(fit_message_);
  column->addWidget(fit_plot_);
  return column;
}

void LayersPanel::setFitBudgetBytes(uint64_t bytes) {
  if (bytes == 0) return;  // "no budget": keep the last one
  fit_budget_bytes_ = bytes;
  QSignalBlocker block(fit_budget_spin_);
  fit_budget_spin_->setValue(
      static_cast<int>(std::min<uint64_t>((bytes + 1023) / 1024, kMaxBudgetKib)));
}

void LayersPanel::startFit() {
  if (fit_running_) return;
  const Graph& graph = model_->graph();
  if (graph.subgraphs.empty()) {
    fit_message_->setText(tr("No model loaded."));
    fit_message_->show();
    return;
  }
  fit_running_ = true;
  fit_button_->setEnabled(false);
  fit_message_->setText(tr("Searching…"));
  fit_message_->show();
  auto run = std::make_shared<FitRun>();
  // The worker owns its copies: the panel may load another graph or close meanwhile.
  QThread* thread =
      QThread::create([run, graph, budget = fit_budget_bytes_, options = training_options_] {
        *run = RunFitSearch(graph, budget, options, /*with_curve=*/true);
      });
  connect(thread, &QThread::finished, this,
          [this, run, generation = fit_generation_] { finishFit(run, generation); });
  connect(thread, &QThread::finished, thread, &QObject::deleteLater);
  fit_thread_ = thread;
  thread->start(QThread::LowPriority);
}

void LayersPanel::waitForFit() {
  if (fit_thread_) fit_thread_->wait();
}

void LayersPanel::finishFit(std::shared_ptr<const FitRun> run, uint64_t generation) {
  fit_running_ = false;
  fit_button_->setEnabled(true);
  if (generation != fit_generation_) {
    fit_message_->setText(tr("The model changed during the search; press Fit again."));
    Q_EMIT fitFinished(false);
    return;
  }
  last_fit_ = std::move(run);
  const bool fits = last_fit_->status.ok() && last_fit_->result.fits;
  if (fits) {
    TrainabilityConfig config;
    config.op_ranks = last_fit_->result.best.config.op_ranks;
    setPendingFromFile(config);
  }
  fit_message_->setText(FitSummaryText(*last_fit_));
  fit_curve_toggle_->setEnabled(last_fit_->has_curve);
  plotFitCurve();
  Q_EMIT fitFinished(fits);
}

void LayersPanel::plotFitCurve() {
  fit_plot_->clearGraphs();
  fit_plot_->clearItems();
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  ApplyPlotTheme(fit_plot_, theme);
  if (!last_fit_ || !last_fit_->has_curve || last_fit_->curve.points.empty()) {
    fit_plot_->replot();
    return;
  }
  const FitRun& run = *last_fit_;
  QVector<double> budgets, params;
  for (const FitCurvePoint& point : run.curve.points) {
    budgets << Kib(point.budget_bytes);
    params << (point.fits ? static_cast<double>(point.best.trained_parameters) : 0.0);
  }
  // The curve is a step function: carry the last answer on past the chosen budget.
  const double right = std::max(budgets.back(), Kib(run.budget_bytes)) * 1.1 + 1.0;
  budgets << right;
  params << params.back();
  QCPGraph* steps = fit_plot_->addGraph();
  steps->setLineStyle(QCPGraph::lsStepLeft);
  steps->setPen(QPen(theme.accent, 1.5));
  steps->setData(budgets, params, /*alreadySorted=*/true);

  auto* marker = new QCPItemStraightLine(fit_plot_);
  marker->setPen(QPen(theme.budget, 1.0, Qt::DashLine));
  marker->point1->setCoords(Kib(run.budget_bytes), 0.0);
  marker->point2->setCoords(Kib(run.budget_bytes), 1.0);
  if (run.result.fits) {
    QCPGraph* chosen = fit_plot_->addGraph();
    chosen->setLineStyle(QCPGraph::lsNone);
    chosen->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, theme.budget, 6));
    chosen->addData(Kib(run.result.best.heap_peak_bytes),
                    static_cast<double>(run.result.best.trained_parameters));
  }
  fit_plot_->xAxis->setRange(0.0, right);
  fit_plot_->yAxis->setRange(0.0,
                             std::max(1.0, *std::max_element(params.begin(), params.end())) * 1.1);
  fit_plot_->replot();
}

}  // namespace trainscope
