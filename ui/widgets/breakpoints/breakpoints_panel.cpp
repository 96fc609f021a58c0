// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/breakpoints/breakpoints_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

#include "engine/model/opcodes.h"

namespace trainscope {
namespace {

constexpr int kMaxBudgetKib = 1 << 22;  // the memory view's range

QString OpItemText(const Subgraph& subgraph, size_t op) {
  const Operator& o = subgraph.operators[op];
  const char* name = OpcodeName(o.opcode);
  QString text =
      QStringLiteral("#%1  %2").arg(op).arg(name ? QLatin1String(name) : QLatin1String("?"));
  if (!o.outputs.empty() && o.outputs[0] >= 0 &&
      static_cast<size_t>(o.outputs[0]) < subgraph.tensors.size()) {
    const std::string& out = subgraph.tensors[static_cast<size_t>(o.outputs[0])].name;
    if (!out.empty()) text += QStringLiteral("  → ") + QString::fromStdString(out);
  }
  return text;
}

}  // namespace

BreakpointsPanel::BreakpointsPanel(QWidget* parent) : QWidget(parent) {
  auto* ops_box = new QGroupBox(tr("Pause before the backward step of"), this);
  op_list_ = new QListWidget(ops_box);
  op_list_->setToolTip(
      tr("Check an op to pause before its backward step; double-click shows it in the graph"));
  auto* clear_ops = new QPushButton(tr("Clear"), ops_box);
  clear_ops->setToolTip(tr("Remove every op breakpoint"));
  auto* ops_layout = new QVBoxLayout(ops_box);
  ops_layout->addWidget(op_list_);
  ops_layout->addWidget(clear_ops, 0, Qt::AlignRight);

  nan_inf_check_ = new QCheckBox(tr("NaN or Inf in any gradient"), this);
  nan_inf_check_->setToolTip(tr("Pause right after the backward step whose gradient holds it"));

  gradient_check_ = new QCheckBox(tr("Gradient above"), this);
  gradient_check_->setToolTip(
      tr("Pause right after a backward step whose weight or bias "
         "gradient exceeds the threshold"));
  measure_combo_ = new QComboBox(this);
  measure_combo_->addItem(tr("L2 norm"), static_cast<int>(GradientMeasure::kL2Norm));
  measure_combo_->addItem(tr("max |g|"), static_cast<int>(GradientMeasure::kMaxAbs));
  threshold_spin_ = new QDoubleSpinBox(this);
  threshold_spin_->setRange(0.0, 1e12);
  threshold_spin_->setDecimals(4);
  threshold_spin_->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
  auto* gradient_row = new QHBoxLayout;
  gradient_row->addWidget(gradient_check_);
  gradient_row->addWidget(measure_combo_);
  gradient_row->addWidget(threshold_spin_, 1);

  budget_check_ = new QCheckBox(tr("Live bytes above the RAM budget"), this);
  budget_check_->setToolTip(
      tr("Pause at the tick whose live bytes first rise above the "
         "budget (the same budget as the memory view's)"));
  budget_spin_ = new QSpinBox(this);
  budget_spin_->setRange(0, kMaxBudgetKib);
  budget_spin_->setSuffix(QStringLiteral(" KiB"));
  budget_spin_->setSpecialValueText(tr("no budget"));
  auto* budget_row = new QHBoxLayout;
  budget_row->addWidget(budget_check_);
  budget_row->addWidget(budget_spin_, 1);

  hit_label_ = new QLabel(this);
  hit_label_->setWordWrap(true);
  hit_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(ops_box, 1);
  layout->addWidget(nan_inf_check_);
  layout->addLayout(gradient_row);
  layout->addLayout(budget_row);
  layout->addWidget(hit_label_);

  connect(op_list_, &QListWidget::itemChanged, this, &BreakpointsPanel::onItemChanged);
  connect(op_list_, &QListWidget::itemDoubleClicked, this,
          [this](QListWidgetItem* item) { Q_EMIT opActivated(op_list_->row(item)); });
  connect(clear_ops, &QPushButton::clicked, this, [this] {
    set_.ops.clear();
    showSet();
    Q_EMIT breakpointsChanged(set_);
  });
  for (QCheckBox* check : {nan_inf_check_, gradient_check_, budget_check_}) {
    connect(check, &QCheckBox::toggled, this, &BreakpointsPanel::readWidgets);
  }
  connect(measure_combo_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          &BreakpointsPanel::readWidgets);
  connect(threshold_spin_, qOverload<double>(&QDoubleSpinBox::valueChanged), this,
          &BreakpointsPanel::readWidgets);
  connect(budget_spin_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int kib) {
    if (updating_) return;
    set_.budget_bytes = static_cast<uint64_t>(kib) * 1024;
    Q_EMIT budgetChanged(set_.budget_bytes);
    Q_EMIT breakpointsChanged(set_);
  });
  showSet();
}

void BreakpointsPanel::setGraph(const Graph& graph) {
  graph_ = graph;
  const size_t op_count = graph_.subgraphs.empty() ? 0 : graph_.main().operators.size();
  set_.ops.erase(set_.ops.lower_bound(static_cast<uint32_t>(op_count)), set_.ops.end());
  updating_ = true;
  op_list_->clear();
  for (size_t op = 0; op < op_count; ++op) {
    auto* item = new QListWidgetItem(OpItemText(graph_.main(), op), op_list_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
  }
  updating_ = false;
  showSet();
}

void BreakpointsPanel::setBreakpoints(const BreakpointSet& set) {
  set_ = set;
  showSet();
}

void BreakpointsPanel::setBudgetBytes(uint64_t bytes) {
  set_.budget_bytes = bytes;
  showSet();
}

void BreakpointsPanel::toggleOp(uint32_t op) {
  if (op >= static_cast<uint32_t>(op_list_->count())) return;
  set_.toggleOp(op);
  showSet();
  Q_EMIT breakpointsChanged(set_);
}

void BreakpointsPanel::showHit(const QString& reason) {
  hit_label_->setText(reason.isEmpty() ? QString() : tr("Last hit: %1").arg(reason));
}

QString BreakpointsPanel::hitText() const {
  return hit_label_->text();
}

void BreakpointsPanel::showSet() {
  updating_ = true;
  const QSignalBlocker block_nan(nan_inf_check_);
  const QSignalBlocker block_gradient(gradient_check_);
  const QSignalBlocker block_measure(measure_combo_);
  const QSignalBlocker block_threshold(threshold_spin_);
  const QSignalBlocker block_budget(budget_check_);
  const QSignalBlocker block_budget_spin(budget_spin_);
  for (int row = 0; row < op_list_->count(); ++row) {
    op_list_->item(row)->setCheckState(set_.hasOp(static_cast<uint32_t>(row)) ? Qt::Checked
                                                                              : Qt::Unchecked);
  }
  nan_inf_check_->setChecked(set_.nan_inf);
  gradient_check_->setChecked(set_.gradient_enabled);
  measure_combo_->setCurrentIndex(
      measure_combo_->findData(static_cast<int>(set_.gradient_measure)));
  threshold_spin_->setValue(static_cast<double>(set_.gradient_threshold));
  budget_check_->setChecked(set_.budget_enabled);
  budget_spin_->setValue(
      static_cast<int>(std::min<uint64_t>(set_.budget_bytes / 1024, kMaxBudgetKib)));
  updating_ = false;
}

void BreakpointsPanel::readWidgets() {
  if (updating_) return;
  set_.nan_inf = nan_inf_check_->isChecked();
  set_.gradient_enabled = gradient_check_->isChecked();
  set_.gradient_measure = static_cast<GradientMeasure>(measure_combo_->currentData().toInt());
  set_.gradient_threshold = static_cast<float>(threshold_spin_->value());
  set_.budget_enabled = budget_check_->isChecked();
  Q_EMIT breakpointsChanged(set_);
}

void BreakpointsPanel::onItemChanged(QListWidgetItem* item) {
  if (updating_) return;
  const uint32_t op = static_cast<uint32_t>(op_list_->row(item));
  const bool checked = item->checkState() == Qt::Checked;
  if (checked == set_.hasOp(op)) return;
  set_.toggleOp(op);
  Q_EMIT breakpointsChanged(set_);
}

}  // namespace trainscope
