// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/experiments/experiments_view.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "engine/train/metrics.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/plot_refresh.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/theme.h"

namespace trainscope {
namespace {

constexpr int kRefreshMs = 100;

enum Column {
  kArm = 0,
  kTrainedParams,
  kArena,
  kHeapPeak,
  kHeapVsFirst,
  kStepTime,
  kLastLoss,
  kLastMetric,
  kColumnCount,
};

QCustomPlot* MakePlot(QWidget* parent, const QString& y_label) {
  auto* plot = new QCustomPlot(parent);
  plot->setMinimumHeight(120);
  plot->xAxis->setLabel(QObject::tr("epoch"));
  plot->yAxis->setLabel(y_label);
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot->yAxis->ticker()->setTickCount(4);  // a short plot: fewer labels that do not collide
  PlaceLegendAbove(plot, 4);
  return plot;
}

void SetSeries(QCPGraph* graph, const std::vector<double>& values) {
  QVector<double> xs, ys;
  for (size_t i = 0; i < values.size(); ++i) {
    xs << static_cast<double>(i + 1);
    ys << values[i];
  }
  graph->setData(xs, ys, true);
}

QTableWidgetItem* Cell(const QString& text, const QString& tip = QString()) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  item->setToolTip(tip.isEmpty() ? text : tip);
  return item;
}

QString Last(const std::vector<double>& values) {
  return values.empty() ? QStringLiteral("–") : FormatValue(values.back());
}

}  // namespace

ExperimentsView::ExperimentsView(QWidget* parent)
    : QWidget(parent), runner_(std::make_unique<ExperimentRunner>()) {
  table_ = new QTableWidget(0, kColumnCount, this);
  table_->setHorizontalHeaderLabels({tr("Arm"), tr("Params"), tr("Arena"), tr("Heap peak"),
                                     tr("Δ heap"), tr("Step"), tr("Loss"), tr("Metric")});
  table_->horizontalHeaderItem(kTrainedParams)->setToolTip(tr("Parameters the arm trains"));
  table_->horizontalHeaderItem(kLastLoss)->setToolTip(tr("Mean loss of the last epoch"));
  table_->horizontalHeaderItem(kLastMetric)->setToolTip(tr("Metric after the last epoch"));
  table_->horizontalHeaderItem(kHeapVsFirst)
      ->setToolTip(tr("Heap peak of this arm minus the first arm's: the RAM a choice saves"));
  table_->horizontalHeaderItem(kStepTime)->setToolTip(tr("Median time of one optimizer step"));
  table_->verticalHeader()->setVisible(false);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setMinimumSectionSize(40);
  table_->horizontalHeader()->setTextElideMode(Qt::ElideRight);
  table_->setWordWrap(false);

  loss_plot_ = MakePlot(this, tr("mean loss"));
  metric_plot_ = MakePlot(this, tr("metric"));
  status_ = new QLabel(this);
  status_->setWordWrap(true);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(createControls());
  layout->addWidget(table_);
  layout->addWidget(status_);
  layout->addWidget(loss_plot_, 3);
  layout->addWidget(metric_plot_, 2);

  timer_ = new QTimer(this);
  timer_->setInterval(kRefreshMs);
  connect(timer_, &QTimer::timeout, this, &ExperimentsView::refresh);
  applyTheme();
  rebuildTable(nullptr);
}

ExperimentsView::~ExperimentsView() = default;

QWidget* ExperimentsView::createControls() {
  auto* controls = new QWidget(this);
  auto* row = new QHBoxLayout(controls);
  row->setContentsMargins(0, 0, 0, 0);

  add_button_ = new QToolButton(controls);
  add_button_->setText(tr("Add Arm"));
  add_button_->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(add_button_);
  menu->addAction(tr("All layers"), this, [this] {
    addArm({tr("all layers"), TrainabilityConfig()});
  });
  menu->addAction(tr("Last N layers (N from the box)"), this, [this] { addArm(lastNArm()); });
  menu->addAction(tr("Layers panel: applied choice"), this, [this] {
    if (!applied_choice_ || graph_.subgraphs.empty()) return;
    const TrainabilityConfig config = applied_choice_();
    addArm({tr("applied: %1").arg(DescribeTrainability(graph_.main(), config)), config});
  });
  menu->addAction(tr("Layers panel: pending choice"), this, [this] {
    if (!pending_choice_ || graph_.subgraphs.empty()) return;
    const TrainabilityConfig config = pending_choice_();
    addArm({tr("pending: %1").arg(DescribeTrainability(graph_.main(), config)), config});
  });
  add_button_->setMenu(menu);

  last_n_ = new QSpinBox(controls);
  last_n_->setPrefix(tr("N = "));
  last_n_->setRange(1, 1);
  last_n_->setValue(2);
  last_n_->setToolTip(tr("The N of the next \"Last N layers\" arm"));

  remove_button_ = new QPushButton(tr("Remove"), controls);
  remove_button_->setToolTip(tr("Remove the selected arms"));
  connect(remove_button_, &QPushButton::clicked, this, [this] {
    std::vector<int> rows;
    for (const QModelIndex& index : table_->selectionModel()->selectedRows()) {
      rows.push_back(index.row());
    }
    std::sort(rows.rbegin(), rows.rend());
    for (int selected : rows) {
      if (selected >= 0 && static_cast<size_t>(selected) < arms_.size())
        arms_.erase(arms_.begin() + selected);
    }
    rebuildTable(nullptr);
  });

  epochs_ = new QSpinBox(controls);
  epochs_->setRange(1, 100000);
  epochs_->setValue(10);
  epochs_->setSuffix(tr(" epochs"));
  epochs_->setToolTip(tr("How long every arm trains"));

  run_button_ = new QPushButton(tr("Run Arms"), controls);
  run_button_->setToolTip(tr("Train every arm from the session's initial weights"));
  connect(run_button_, &QPushButton::clicked, this, [this] { run(); });
  stop_button_ = new QPushButton(tr("Stop"), controls);
  stop_button_->setEnabled(false);
  connect(stop_button_, &QPushButton::clicked, this, &ExperimentsView::stop);

  row->addWidget(add_button_);
  row->addWidget(last_n_);
  row->addWidget(remove_button_);
  row->addStretch(1);
  row->addWidget(epochs_);
  row->addWidget(run_button_);
  row->addWidget(stop_button_);
  return controls;
}

void ExperimentsView::setGraph(const Graph& graph, const TrainingOptions& options) {
  stop();
  graph_ = graph;
  options_ = options;
  const int ops = graph.subgraphs.empty() ? 1 : static_cast<int>(graph.main().operators.size());
  last_n_->setRange(1, std::max(ops, 1));
  last_n_->setValue(std::min(2, ops));
  shown_.reset();
  runner_ = std::make_unique<ExperimentRunner>();
  rebuildTable(nullptr);
  plot(ExperimentSnapshot());
}

void ExperimentsView::setChoiceProviders(ChoiceProvider applied, ChoiceProvider pending) {
  applied_choice_ = std::move(applied);
  pending_choice_ = std::move(pending);
}

void ExperimentsView::setArms(const std::vector<ExperimentArm>& arms) {
  arms_ = arms;
  rebuildTable(nullptr);
}

void ExperimentsView::addArm(const ExperimentArm& arm) {
  arms_.push_back(arm);
  rebuildTable(nullptr);
}

void ExperimentsView::setEpochs(int epochs) {
  epochs_->setValue(epochs);
}

ExperimentArm ExperimentsView::lastNArm() const {
  TrainabilityConfig config;
  config.num_train_layers = static_cast<uint32_t>(last_n_->value());
  const QString name = graph_.subgraphs.empty() ? tr("last %1 layers").arg(last_n_->value())
                                                : DescribeTrainability(graph_.main(), config);
  return {name, config};
}

bool ExperimentsView::run() {
  stop();
  ExperimentSpec spec;
  Status status = spec_provider_ ? spec_provider_(&spec)
                                 : Status::Error(StatusCode::kInvalidArgument,
                                                 "open a model to train before running arms");
  if (status.ok()) {
    spec.arms = arms_;
    spec.options.epochs = static_cast<uint32_t>(epochs_->value());
    status = runner_->start(std::move(spec));
  }
  if (!status.ok()) {
    status_->setText(tr("Cannot run: %1").arg(QString::fromUtf8(status.message())));
    return false;
  }
  was_running_ = true;
  run_button_->setEnabled(false);
  stop_button_->setEnabled(true);
  timer_->start();
  refresh();
  return true;
}

void ExperimentsView::stop() {
  runner_->cancel();
  if (timer_->isActive()) refresh();
}

bool ExperimentsView::running() const {
  return runner_->running();
}

std::shared_ptr<const ExperimentSnapshot> ExperimentsView::snapshot() const {
  return runner_->snapshot();
}

void ExperimentsView::refresh() {
  const std::shared_ptr<const ExperimentSnapshot> latest = runner_->snapshot();
  if (!latest) return;
  if (latest != shown_) {
    shown_ = latest;
    rebuildTable(latest.get());
    plot(*latest);
  }
  if (!latest->running) {
    timer_->stop();
    run_button_->setEnabled(true);
    stop_button_->setEnabled(false);
    if (was_running_) {
      was_running_ = false;
      Q_EMIT finished();
    }
  }
}

void ExperimentsView::rebuildTable(const ExperimentSnapshot* snapshot) {
  const bool results = snapshot != nullptr && snapshot->arms.size() == arms_.size();
  table_->setRowCount(static_cast<int>(arms_.size()));
  std::vector<TrainabilityCost> costs;
  for (size_t a = 0; a < arms_.size(); ++a) {
    // Before a run the costs are planned here, from the same function the runner uses.
    costs.push_back(results ? snapshot->arms[a].cost : TrainabilityCost());
  }
  if (!results) {
    for (size_t a = 0; a < arms_.size(); ++a) {
      costs[a] = PlanTrainabilityCost(graph_, options_, arms_[a].trainability);
    }
  }
  for (size_t a = 0; a < arms_.size(); ++a) {
    const int row = static_cast<int>(a);
    auto* name = Cell(arms_[a].name);
    name->setForeground(armColor(a));
    table_->setItem(row, kArm, name);
    const TrainabilityCost& cost = costs[a];
    const bool planned = cost.planned;
    table_->setItem(row, kTrainedParams, Cell(FormatCount(cost.trained_params)));
    table_->setItem(row, kArena,
                    Cell(planned ? FormatBytes(cost.arena_bytes) : QStringLiteral("–")));
    table_->setItem(row, kHeapPeak,
                    Cell(planned ? FormatBytes(cost.heap_peak_bytes) : QStringLiteral("–")));
    const int64_t vs_first = static_cast<int64_t>(cost.heap_peak_bytes) -
                             static_cast<int64_t>(costs.front().heap_peak_bytes);
    table_->setItem(row, kHeapVsFirst,
                    Cell(a == 0 || !planned ? QStringLiteral("–") : FormatBytesDelta(vs_first)));
    if (results) {
      const ArmResult& arm = snapshot->arms[a];
      table_->setItem(
          row, kStepTime,
          Cell(arm.median_step_seconds > 0.0
                   ? FormatDuration(static_cast<uint64_t>(arm.median_step_seconds * 1e9))
                   : QStringLiteral("–")));
      table_->setItem(row, kLastLoss, Cell(Last(arm.epoch_loss)));
      table_->setItem(row, kLastMetric, Cell(Last(arm.epoch_metric)));
      if (!arm.error.isEmpty()) name->setToolTip(arm.error);
    } else {
      for (int column : {kStepTime, kLastLoss, kLastMetric}) {
        table_->setItem(row, column, Cell(QStringLiteral("–")));
      }
    }
  }
  // Every arm visible without scrolling; a narrow dock may still scroll sideways.
  table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() +
                         table_->verticalHeader()->length() + 2 * table_->frameWidth() +
                         table_->horizontalScrollBar()->sizeHint().height());
  remove_button_->setEnabled(!arms_.empty());
  if (snapshot == nullptr) {
    status_->setText(
        arms_.empty()
            ? tr("Add arms to compare, then Run Arms.")
            : tr("%1 arm(s), each from the session's initial weights.").arg(arms_.size()));
    return;
  }
  uint32_t epochs_done = 0;
  QStringList errors;
  for (const ArmResult& arm : snapshot->arms) {
    epochs_done = std::max<uint32_t>(epochs_done, static_cast<uint32_t>(arm.epoch_loss.size()));
    if (!arm.error.isEmpty()) errors << tr("%1: %2").arg(arm.arm.name, arm.error);
  }
  QString text = snapshot->running ? tr("Training: epoch %1 of %2.")
                                         .arg(std::min(epochs_done + 1, snapshot->epochs))
                                         .arg(snapshot->epochs)
                 : snapshot->cancelled
                     ? tr("Stopped after %1 of %2 epochs.").arg(epochs_done).arg(snapshot->epochs)
                     : tr("Done: %1 epochs of %2 optimizer steps per arm, "
                          "from the same initial weights.")
                           .arg(snapshot->epochs)
                           .arg(snapshot->steps_per_epoch);
  if (!errors.isEmpty()) text += QLatin1Char(' ') + errors.join(QStringLiteral("; "));
  status_->setText(text);
}

void ExperimentsView::plot(const ExperimentSnapshot& snapshot) {
  for (QCustomPlot* plot : {loss_plot_, metric_plot_}) plot->clearGraphs();
  bool has_metric = false;
  for (size_t a = 0; a < snapshot.arms.size(); ++a) {
    const ArmResult& arm = snapshot.arms[a];
    QPen pen(armColor(a), 2.0);
    QCPGraph* loss = loss_plot_->addGraph();
    loss->setName(arm.arm.name);
    loss->setPen(pen);
    SetSeries(loss, arm.epoch_loss);
    QCPGraph* metric = metric_plot_->addGraph();
    metric->setName(arm.arm.name);
    metric->setPen(pen);
    SetSeries(metric, arm.epoch_metric);
    has_metric = has_metric || !arm.epoch_metric.empty();
  }
  metric_plot_->yAxis->setLabel(snapshot.metric == MetricKind::kNone
                                    ? tr("metric")
                                    : QString::fromLatin1(MetricName(snapshot.metric)));
  metric_plot_->setVisible(has_metric || snapshot.arms.empty());
  for (QCustomPlot* plot : {loss_plot_, metric_plot_}) {
    plot->rescaleAxes();
    plot->xAxis->setRangeLower(std::min(plot->xAxis->range().lower, 1.0));
    ReplotWhenVisible(plot);
  }
}

QColor ExperimentsView::armColor(size_t arm) const {
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  if (arm == 0) return theme.accent;
  if (arm == 1) return theme.peak;
  return theme.categories[(arm - 2) % theme.categories.size()];
}

void ExperimentsView::applyTheme() {
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  for (QCustomPlot* plot : {loss_plot_, metric_plot_}) ApplyPlotTheme(plot, theme);
}

void ExperimentsView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    applyTheme();
    rebuildTable(shown_.get());
    if (shown_) plot(*shown_);
  }
}

}  // namespace trainscope
