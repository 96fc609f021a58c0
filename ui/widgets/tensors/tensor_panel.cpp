// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/tensors/tensor_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ui/session/trainability.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/theme.h"

namespace trainscope {

void TensorTableModel::setValues(TensorValuesPtr values) {
  beginResetModel();
  values_ = std::move(values);
  grid_ = values_ ? GridOf(values_->shape, values_->values.size()) : TensorGrid();
  endResetModel();
}

int TensorTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(grid_.rows);
}

int TensorTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(grid_.columns);
}

QVariant TensorTableModel::data(const QModelIndex& index, int role) const {
  if (!values_ || !index.isValid()) return QVariant();
  const size_t flat =
      static_cast<size_t>(index.row()) * grid_.columns + static_cast<size_t>(index.column());
  if (flat >= values_->values.size()) return QVariant();
  const float value = values_->values[flat];
  switch (role) {
    case Qt::DisplayRole:
      return std::isfinite(value) ? QString::number(value, 'g', 6) : FormatValue(value);
    case Qt::UserRole:
      return value;
    case Qt::ForegroundRole:
      if (!std::isfinite(value)) return QColor(Qt::red);
      return QVariant();
    case Qt::ToolTipRole:
      return tr("element %1").arg(flat);
    case Qt::TextAlignmentRole:
      return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
      return QVariant();
  }
}

QVariant TensorTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return QVariant();
  static_cast<void>(orientation);
  return section;  // both ways a plain index: rows are the leading dimensions flattened
}

TensorPanel::TensorPanel(QWidget* parent) : QWidget(parent) {
  tensor_combo_ = new QComboBox(this);
  tensor_combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  tensor_combo_->setMinimumContentsLength(18);
  tensor_combo_->setToolTip(tr("A tensor of the operator selected in the graph or Layers panel"));
  aspect_combo_ = new QComboBox(this);
  for (TensorAspect aspect : {TensorAspect::kValue, TensorAspect::kGradient, TensorAspect::kAdamM,
                              TensorAspect::kAdamV}) {
    aspect_combo_->addItem(QString::fromLatin1(TensorAspectName(aspect)), static_cast<int>(aspect));
  }
  aspect_combo_->setToolTip(
      tr("Value: weights or activation · Gradient: dL/dT (a weight gradient sums the batch so "
         "far) · Adam m, v: the optimizer's moments"));
  auto* refresh_button = new QToolButton(this);
  refresh_button->setText(tr("Refresh"));
  refresh_button->setToolTip(tr("Read the tensor again at the current point of the step"));
  live_check_ = new QCheckBox(tr("Live"), this);
  live_check_->setToolTip(tr("Read again twice a second while training runs"));

  auto* chooser = new QHBoxLayout;
  chooser->addWidget(tensor_combo_, 1);
  chooser->addWidget(aspect_combo_);
  chooser->addWidget(refresh_button);
  chooser->addWidget(live_check_);

  where_label_ = new QLabel(this);
  where_label_->setWordWrap(true);
  summary_label_ = new QLabel(this);
  summary_label_->setWordWrap(true);
  summary_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  histogram_ = new QCustomPlot(this);
  histogram_->setMinimumHeight(110);
  histogram_->xAxis->setLabel(tr("value"));
  histogram_->yAxis->setLabel(tr("count"));
  ApplyPlotTheme(histogram_, ViewTheme::fromPalette(palette()));
  auto* bars = new QCPBars(histogram_->xAxis, histogram_->yAxis);
  bars->setName(tr("finite values"));

  table_model_ = new TensorTableModel(this);
  table_ = new QTableView(this);
  table_->setModel(table_model_);
  table_->horizontalHeader()->setDefaultSectionSize(88);
  table_->verticalHeader()->setDefaultSectionSize(20);
  table_->setMinimumHeight(100);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(chooser);
  layout->addWidget(where_label_);
  layout->addWidget(summary_label_);
  layout->addWidget(histogram_, 1);
  layout->addWidget(table_, 2);

  live_timer_ = new QTimer(this);
  live_timer_->setInterval(kLiveRefreshMs);
  connect(live_timer_, &QTimer::timeout, this, &TensorPanel::refresh);
  connect(live_check_, &QCheckBox::toggled, this, [this](bool on) {
    if (on) {
      live_timer_->start();
    } else {
      live_timer_->stop();
    }
  });
  connect(tensor_combo_, &QComboBox::currentIndexChanged, this, &TensorPanel::refresh);
  connect(aspect_combo_, &QComboBox::currentIndexChanged, this, &TensorPanel::refresh);
  connect(refresh_button, &QToolButton::clicked, this, &TensorPanel::refresh);
  where_label_->setText(tr("Select an operator in the graph to see its tensors."));
}

void TensorPanel::setGraph(const Graph& graph) {
  graph_ = graph;
  op_ = -1;
  shown_.reset();
  table_model_->setValues(nullptr);
  fillTensorChoices();
}

void TensorPanel::setSource(EventSource* source) {
  if (source_) disconnect(source_, nullptr, this, nullptr);
  source_ = source;
  if (source_) {
    connect(source_, &EventSource::tensorValuesReady, this, &TensorPanel::showValues);
    connect(source_, &EventSource::stateChanged, this, [this](EventSource::State state) {
      if (state != EventSource::State::kRunning) refresh();
    });
  }
  refresh();
}

void TensorPanel::selectOps(const QList<int>& ops) {
  if (ops.isEmpty() || ops.front() == op_) return;
  op_ = ops.front();
  fillTensorChoices();
}

void TensorPanel::fillTensorChoices() {
  const QSignalBlocker blocker(tensor_combo_);
  const int32_t previous = request().tensor;
  tensor_combo_->clear();
  if (graph_.subgraphs.empty() || op_ < 0 ||
      static_cast<size_t>(op_) >= graph_.main().operators.size()) {
    refresh();
    return;
  }
  const Subgraph& subgraph = graph_.main();
  const Operator& op = subgraph.operators[static_cast<size_t>(op_)];
  auto add = [&](int32_t tensor, const QString& place, const QString& role) {
    if (tensor < 0 || static_cast<size_t>(tensor) >= subgraph.tensors.size()) return;
    const Tensor& t = subgraph.tensors[tensor];
    if (t.type != ElementType::kFloat32) return;
    QString label = QStringLiteral("%1 · %2 %3")
                        .arg(place, QString::fromStdString(t.name), FormatShape(t.shape));
    if (!role.isEmpty()) label += QStringLiteral(" (%1)").arg(role);
    tensor_combo_->addItem(label, tensor);
    tensor_combo_->setItemData(tensor_combo_->count() - 1, label, Qt::ToolTipRole);
  };
  for (size_t slot = 0; slot < op.inputs.size(); ++slot) {
    const int32_t tensor = op.inputs[slot];
    if (tensor < 0 || static_cast<size_t>(tensor) >= subgraph.tensors.size()) continue;
    add(tensor, tr("input %1").arg(slot), ParameterRole(subgraph, op, slot));
  }
  for (size_t slot = 0; slot < op.outputs.size(); ++slot) {
    add(op.outputs[slot], tr("output %1").arg(slot), QString());
  }
  const int keep = tensor_combo_->findData(previous);
  if (keep >= 0) tensor_combo_->setCurrentIndex(keep);
  refresh();
}

QList<int32_t> TensorPanel::choices() const {
  QList<int32_t> tensors;
  for (int i = 0; i < tensor_combo_->count(); ++i) tensors << tensor_combo_->itemData(i).toInt();
  return tensors;
}

void TensorPanel::choose(int32_t tensor, TensorAspect aspect) {
  const QSignalBlocker blocker(tensor_combo_);
  const QSignalBlocker aspect_blocker(aspect_combo_);
  const int index = tensor_combo_->findData(tensor);
  if (index >= 0) tensor_combo_->setCurrentIndex(index);
  aspect_combo_->setCurrentIndex(aspect_combo_->findData(static_cast<int>(aspect)));
  refresh();
}

QString TensorPanel::summaryText() const {
  return summary_label_->text();
}

QString TensorPanel::whereText() const {
  return where_label_->text();
}

TensorRequest TensorPanel::request() const {
  TensorRequest request;
  request.tensor = tensor_combo_->currentIndex() >= 0 ? tensor_combo_->currentData().toInt() : -1;
  request.aspect = static_cast<TensorAspect>(aspect_combo_->currentData().toInt());
  return request;
}

void TensorPanel::refresh() {
  const TensorRequest wanted = request();
  if (wanted.tensor < 0) {
    if (op_ >= 0) where_label_->setText(tr("This operator has no float tensor to show."));
    return;
  }
  if (!source_) {
    where_label_->setText(tr("No session: open a model to read its tensors."));
    return;
  }
  source_->requestTensorValues(wanted);
}

void TensorPanel::showValues(TensorValuesPtr values) {
  if (!values || !(values->request == request())) return;  // an answer to an older request
  shown_ = values;
  where_label_->setText(values->where.isEmpty() ? QString() : tr("Read %1.").arg(values->where));
  if (!values->unavailable.isEmpty()) {
    summary_label_->setText(tr("Not available: %1").arg(values->unavailable));
    table_model_->setValues(nullptr);
    plotHistogram(TensorSummary());
    return;
  }
  table_model_->setValues(values);
  showSummary(*values);
}

void TensorPanel::showSummary(const TensorValues& values) {
  const TensorSummary summary = SummarizeTensor(values.values, kHistogramBins);
  QString text =
      tr("%1 %2 · %3 values")
          .arg(values.tensor_name, FormatShape(values.shape), FormatCount(summary.count));
  if (summary.finite() > 0) {
    text += tr(" · min %1 · max %2 · mean %3 · rms %4")
                .arg(FormatValue(summary.min), FormatValue(summary.max), FormatValue(summary.mean),
                     FormatValue(summary.rms));
  }
  text += tr(" · zeros %1").arg(FormatCount(summary.zeros));
  const QString nonfinite = tr(" · NaN %1 · Inf %2").arg(summary.nan).arg(summary.inf);
  if (summary.nan + summary.inf > 0) {
    text += QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                .arg(ViewTheme::fromPalette(palette()).error.name(), nonfinite.toHtmlEscaped());
  } else {
    text += nonfinite;
  }
  summary_label_->setText(text);
  plotHistogram(summary);
}

void TensorPanel::plotHistogram(const TensorSummary& summary) {
  auto* bars = qobject_cast<QCPBars*>(histogram_->plottable(0));
  QVector<double> keys;
  QVector<double> counts;
  const size_t bins = summary.bins.size();
  const double span = static_cast<double>(summary.max) - summary.min;
  // One bin means every finite value is equal: a bar of nominal width at that value.
  const double width = bins > 1 ? span / static_cast<double>(bins)
                                : std::max(std::abs(static_cast<double>(summary.min)) * 0.1, 1e-3);
  for (size_t b = 0; b < bins; ++b) {
    keys << (bins > 1 ? summary.min + (static_cast<double>(b) + 0.5) * width : summary.min);
    counts << summary.bins[b];
  }
  bars->setWidth(width);
  bars->setData(keys, counts, /*alreadySorted=*/true);
  if (bins > 0) {
    const double low = bins > 1 ? summary.min : summary.min - width;
    const double high = bins > 1 ? summary.max : summary.min + width;
    histogram_->xAxis->setRange(low - width * 0.5, high + width * 0.5);
    bars->rescaleValueAxis(false, true);
    histogram_->yAxis->setRangeLower(0.0);
  }
  histogram_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace trainscope
