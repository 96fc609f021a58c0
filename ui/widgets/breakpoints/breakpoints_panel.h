// SPDX-License-Identifier: Apache-2.0
//
// BreakpointsPanel: edits a BreakpointSet. A checkable list of the model's ops sets "pause before
// the backward step of op k"; check boxes enable the NaN/Inf, gradient-threshold (L2 norm or
// max |g|) and RAM-budget breakpoints with their parameters; a line shows the latest hit. Every
// edit emits breakpointsChanged() with the whole set. The budget value is the memory view's: the
// owner wires budgetChanged() both ways, and setBudgetBytes() does not echo.
//
//   BreakpointsPanel panel;
//   panel.setGraph(model.graph());
//   connect(&panel, &BreakpointsPanel::breakpointsChanged, source, &EventSource::setBreakpoints);
#pragma once

#include <QWidget>

#include <cstdint>

#include "engine/model/graph.h"
#include "ui/session/breakpoints.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QSpinBox;

namespace trainscope {

class BreakpointsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit BreakpointsPanel(QWidget* parent = nullptr);

  // Lists the ops; op breakpoints past the new graph's op count are dropped.
  void setGraph(const Graph& graph);
  // Shows `set` (its budget value included) without emitting breakpointsChanged().
  void setBreakpoints(const BreakpointSet& set);
  const BreakpointSet& breakpoints() const { return set_; }
  void setBudgetBytes(uint64_t bytes);
  void toggleOp(uint32_t op);
  // The latest hit's reason, or empty to clear it.
  void showHit(const QString& reason);
  QString hitText() const;

  QListWidget* opList() const { return op_list_; }
  QCheckBox* nanInfCheck() const { return nan_inf_check_; }
  QCheckBox* gradientCheck() const { return gradient_check_; }
  QComboBox* measureCombo() const { return measure_combo_; }
  QDoubleSpinBox* thresholdSpin() const { return threshold_spin_; }
  QCheckBox* budgetCheck() const { return budget_check_; }
  QSpinBox* budgetSpin() const { return budget_spin_; }

 Q_SIGNALS:
  void breakpointsChanged(const trainscope::BreakpointSet& set);
  void budgetChanged(uint64_t bytes);
  // An op of the list was double-clicked: show it.
  void opActivated(int op);

 private:
  void showSet();
  void readWidgets();
  void onItemChanged(QListWidgetItem* item);

  Graph graph_;
  BreakpointSet set_;
  bool updating_ = false;

  QListWidget* op_list_ = nullptr;
  QCheckBox* nan_inf_check_ = nullptr;
  QCheckBox* gradient_check_ = nullptr;
  QComboBox* measure_combo_ = nullptr;
  QDoubleSpinBox* threshold_spin_ = nullptr;
  QCheckBox* budget_check_ = nullptr;
  QSpinBox* budget_spin_ = nullptr;
  QLabel* hit_label_ = nullptr;
};

}  // namespace trainscope
