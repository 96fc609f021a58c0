// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/layers/layers_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "engine/memory/memory_report.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/layers/layers_model.h"

namespace trainscope {
namespace {

// The rank column edits through a combo box of onert-micro's four rank names.
class RankDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&,
                        const QModelIndex&) const override {
    auto* combo = new QComboBox(parent);
    for (uint8_t rank = 0; rank < kTrainRankCount; ++rank) {
      combo->addItem(QString::fromLatin1(TrainRankName(static_cast<TrainRank>(rank))), rank);
    }
    return combo;
  }
  void setEditorData(QWidget* editor, const QModelIndex& index) const override {
    auto* combo = static_cast<QComboBox*>(editor);
    combo->setCurrentIndex(combo->findData(index.data(LayersModel::kRankRole).toInt()));
  }
  void setModelData(QWidget* editor, QAbstractItemModel* model,
                    const QModelIndex& index) const override {
    auto* combo = static_cast<QComboBox*>(editor);
    model->setData(index, combo->currentData(), Qt::EditRole);
  }
};

QString Delta(uint64_t now, uint64_t before, bool bytes) {
  const int64_t delta = static_cast<int64_t>(now) - static_cast<int64_t>(before);
  if (delta == 0) return QString();
  return QStringLiteral(" (%1)").arg(bytes ? FormatBytesDelta(delta) : FormatCountDelta(delta));
}

}  // namespace

LayersPanel::LayersPanel(QWidget* parent) : QWidget(parent) {
  qRegisterMetaType<TrainRankMap>();
  model_ = new LayersModel(this);
  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->setItemDelegateForColumn(LayersModel::kRank, new RankDelegate(table_));
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::SelectedClicked |
                          QAbstractItemView::EditKeyPressed);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setAlternatingRowColors(true);
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    if (selecting_) return;
    QList<int> ops;
    for (const QModelIndex& index : table_->selectionModel()->selectedRows())
      ops.push_back(index.row());
    std::sort(ops.begin(), ops.end());
    Q_EMIT opsSelected(ops);
  });

  last_n_spin_ = new QSpinBox(this);
  last_n_spin_->setSpecialValueText(tr("all"));
  last_n_spin_->setToolTip(
      tr("Train the last N operators (onert-micro's num_of_train_layers). "
         "Changing it clears the per-operator choices."));
  connect(last_n_spin_, qOverload<int>(&QSpinBox::valueChanged), this,
          [this](int n) { model_->setLastN(static_cast<uint32_t>(n)); });
  apply_button_ = new QPushButton(tr("Apply"), this);
  apply_button_->setToolTip(tr("Takes effect at the next optimizer step"));
  revert_button_ = new QPushButton(tr("Revert"), this);
  connect(apply_button_, &QPushButton::clicked, this, &LayersPanel::apply);
  connect(revert_button_, &QPushButton::clicked, this, &LayersPanel::revert);
  preview_ = new QLabel(this);
  preview_->setWordWrap(true);
  preview_->setTextFormat(Qt::RichText);
  connect(model_, &LayersModel::pendingChanged, this, &LayersPanel::updatePreview);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Last N layers"), this));
  controls->addWidget(last_n_spin_);
  controls->addStretch(1);
  controls->addWidget(revert_button_);
  controls->addWidget(apply_button_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(table_, 1);
  layout->addLayout(controls);
  layout->addWidget(preview_);
  layout->addLayout(createFileButtons());
  layout->addLayout(createFitControls());
  updatePreview();
}

LayersPanel::~LayersPanel() {
  waitForFit();
}

void LayersPanel::setGraph(const Graph& graph) {
  ++fit_generation_;
  model_->setGraph(graph);
  const int n = graph.subgraphs.empty() ? 0 : static_cast<int>(graph.main().operators.size());
  QSignalBlocker block(last_n_spin_);
  last_n_spin_->setRange(0, n);
  last_n_spin_->setValue(0);
  table_->resizeColumnsToContents();
  const bool had_history = !undo_.empty() || !redo_.empty();
  undo_.clear();
  redo_.clear();
  updatePreview();
  if (had_history) Q_EMIT applyHistoryChanged();
}

void LayersPanel::planMemoryOf(const Graph& graph, const TrainingOptions& options,
                               const QString& note, bool training) {
  training_options_ = options;
  plan_note_ = note;
  plan_training_ = training;
  if (graph.subgraphs.empty()) {
    setEstimator(nullptr);
    return;
  }
  setEstimator([graph, options, training](uint32_t last_n, const TrainRankMap& ranks) {
    TrainabilityConfig config;
    config.num_train_layers = last_n;
    config.op_ranks = ranks;
    const TrainabilityCost cost = PlanTrainabilityCost(graph, options, config, training);
    Estimate estimate;
    estimate.heap_peak_bytes = cost.heap_peak_bytes;
    estimate.arena_bytes = cost.arena_bytes;
    estimate.trained_params = cost.trained_params;
    return estimate;
  });
}

void LayersPanel::setEstimator(Estimator estimator) {
  estimator_ = std::move(estimator);
  updatePreview();
}

void LayersPanel::setAppliedTrainability(const TrainabilityConfig& config) {
  model_->setApplied(config);
  model_->setPending(config);
  QSignalBlocker block(last_n_spin_);
  last_n_spin_->setValue(static_cast<int>(config.num_train_layers));
}

const TrainabilityConfig& LayersPanel::appliedTrainability() const {
  return model_->applied();
}

const TrainabilityConfig& LayersPanel::pendingTrainability() const {
  return model_->pending();
}

void LayersPanel::setOpWarning(int op, const QString& text) {
  model_->setWarning(op, text);
}

void LayersPanel::clearOpWarnings() {
  model_->clearWarnings();
}

void LayersPanel::apply() {
  const TrainabilityConfig config = model_->pending();
  if (config == model_->applied()) return;
  undo_.push_back(model_->applied());
  redo_.clear();
  applyConfig(config);
  Q_EMIT applyHistoryChanged();
}

void LayersPanel::undoApply() {
  if (undo_.empty()) return;
  redo_.push_back(model_->applied());
  const TrainabilityConfig config = undo_.back();
  undo_.pop_back();
  applyConfig(config);
  Q_EMIT applyHistoryChanged();
}

void LayersPanel::redoApply() {
  if (redo_.empty()) return;
  undo_.push_back(model_->applied());
  const TrainabilityConfig config = redo_.back();
  redo_.pop_back();
  applyConfig(config);
  Q_EMIT applyHistoryChanged();
}

void LayersPanel::applyConfig(const TrainabilityConfig& config) {
  setAppliedTrainability(config);
  updatePreview();
  Q_EMIT trainabilityApplied(config.num_train_layers, config.op_ranks);
}

bool LayersPanel::hasPendingChange() const {
  return model_->pending() != model_->applied();
}

void LayersPanel::revert() {
  setAppliedTrainability(model_->applied());
}

void LayersPanel::selectOps(const QList<int>& ops) {
  selecting_ = true;
  QItemSelection selection;
  for (int op : ops) {
    if (op < 0 || op >= model_->rowCount()) continue;
    selection.select(model_->index(op, 0), model_->index(op, LayersModel::kColumnCount - 1));
  }
  table_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
  if (!ops.isEmpty() && ops.front() >= 0 && ops.front() < model_->rowCount()) {
    table_->scrollTo(model_->index(ops.front(), 0));
  }
  selecting_ = false;
}

LayersPanel::Estimate LayersPanel::estimate(const TrainabilityConfig& config) const {
  if (estimator_) return estimator_(config.num_train_layers, config.op_ranks);
  Estimate fallback;
  const Graph& graph = model_->graph();
  if (!graph.subgraphs.empty()) {
    fallback.trained_params =
        TrainedParameterCount(graph.main(), ResolveTrainability(graph.main(), config));
  }
  return fallback;
}

void LayersPanel::updatePreview() {
  const bool changed = model_->pending() != model_->applied();
  apply_button_->setEnabled(changed);
  revert_button_->setEnabled(changed);
  if (model_->graph().subgraphs.empty()) {
    preview_->setText(tr("No model loaded."));
    return;
  }
  const Estimate now = estimate(model_->pending());
  // Each estimate plans a whole train step (about half a second on a 300-op model): not twice.
  const Estimate before = changed ? estimate(model_->applied()) : now;
  QStringList parts;
  if (estimator_) {
    parts << tr("Heap peak <b>%1</b>%2")
                 .arg(FormatBytes(now.heap_peak_bytes),
                      Delta(now.heap_peak_bytes, before.heap_peak_bytes, true));
    parts << tr("arena <b>%1</b>%2")
                 .arg(FormatBytes(now.arena_bytes),
                      Delta(now.arena_bytes, before.arena_bytes, true));
  }
  parts << tr("trained params <b>%1</b>%2")
               .arg(FormatCount(now.trained_params),
                    Delta(now.trained_params, before.trained_params, false));
  QString text = parts.join(QStringLiteral(" · "));
  const TrainabilityConfig& pending = model_->pending();
  text += QStringLiteral("<br>") +
          (pending.op_ranks.empty()
               ? (pending.num_train_layers == 0
                      ? tr("All operators train.")
                      : tr("The last %1 operators train.").arg(pending.num_train_layers))
               : tr("%n operator(s) listed with a rank; backward starts at #%1.", nullptr,
                    static_cast<int>(pending.op_ranks.size()))
                     .arg(pending.op_ranks.begin()->first));
  if (changed) text += QStringLiteral(" ") + tr("<i>Not applied yet.</i>");
  // Every figure says what it assumes; without a plan, why there is none.
  if (estimator_ && plan_training_) {
    text +=
        QStringLiteral("<br>") + tr("Planned for %1, batch %2.")
                                     .arg(QLatin1String(OptimizerName(training_options_.optimizer)))
                                     .arg(training_options_.batch_size);
  } else if (estimator_) {
    text +=
        QStringLiteral("<br>") + tr("One inference planned: %1.").arg(plan_note_.toHtmlEscaped());
  } else if (!plan_note_.isEmpty()) {
    text += QStringLiteral("<br>") + plan_note_.toHtmlEscaped();
  }
  preview_->setText(text);
}

void LayersPanel::setTrainingOptions(const TrainingOptions& options) {
  training_options_ = options;
  updatePreview();
}

}  // namespace trainscope
