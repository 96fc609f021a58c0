// SPDX-License-Identifier: Apache-2.0
//
// ComparisonView: a board's optimizer step beside the reference engine's, from the report
// `trainscope-cli diff ... --json FILE --values` writes (StepComparisonFile). On top, the file's
// board, step and model and a headline naming the first divergent op with what onert-micro is
// known to compute differently there; the four thresholds (relative L2, max |a−b|, max ulp, min
// cosine), initialised from the file, decide divergence again as they are edited (Reset takes the
// file's back). The tree lists the ops in backward order with each tensor's figures, marking what
// is beyond a threshold in text and colour; the selected tensor's values from both sides and their
// difference are drawn below (ComparisonValues), and the last line gives what the transfer cost
// (tensors, values, bytes on the line, time).
//
// The view owns nothing but the file it shows; opSelected() and firstDivergentOpChanged() tell
// the window which op to select and mark in the graph.
//
//   view->setComparison(file, path);
//   connect(view, &ComparisonView::opSelected, graph, [graph](int op) {
//   graph->setSelectedOps({op}); });
#pragma once

#include <QWidget>

#include "ui/session/step_comparison_file.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTreeView;

namespace trainscope {

class ComparisonModel;
class ComparisonValues;

class ComparisonView : public QWidget {
  Q_OBJECT

 public:
  enum ThresholdEdit { kRelativeL2Edit = 0, kMaxAbsEdit, kMaxUlpEdit, kMinCosineEdit };

  explicit ComparisonView(QWidget* parent = nullptr);
  QSize sizeHint() const override { return QSize(900, 700); }

  void setComparison(StepComparisonPtr file, const QString& path);
  const StepComparisonPtr& comparison() const { return file_; }
  // Applies thresholds as if typed in the editors.
  void setThresholds(const DivergenceThresholds& thresholds);
  const DivergenceThresholds& thresholds() const { return verdict_.thresholds; }
  const ComparisonVerdict& verdict() const { return verdict_; }
  // A line above the tree, e.g. why the graph cannot follow (empty hides it).
  void setNote(const QString& note);

  // Selects the op's row (or a tensor's: an index into the file) and shows its values.
  void selectOp(int op);
  void selectTensor(size_t tensor);
  int selectedTensor() const;  // -1: none

  QString headlineText() const;
  QString noteText() const;
  QString transferText() const;
  QLineEdit* thresholdEdit(ThresholdEdit which) const { return edits_[which]; }
  QString thresholdErrorText() const;
  QTreeView* tree() const { return tree_; }
  ComparisonModel* model() const { return model_; }
  ComparisonValues* values() const { return values_; }

 Q_SIGNALS:
  void opSelected(int op);
  void firstDivergentOpChanged(int op);  // -1: nothing diverges

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void readThresholds();
  void showThresholds();
  void evaluate(const DivergenceThresholds& thresholds);
  void updateHeadline();
  void onCurrentChanged();

  StepComparisonPtr file_;
  QString path_;
  ComparisonVerdict verdict_;
  QLabel* source_ = nullptr;
  QLabel* headline_ = nullptr;
  QLabel* note_ = nullptr;
  QLabel* transfer_ = nullptr;
  QLabel* threshold_error_ = nullptr;
  QLineEdit* edits_[4] = {};
  QPushButton* reset_ = nullptr;
  QTreeView* tree_ = nullptr;
  ComparisonModel* model_ = nullptr;
  ComparisonValues* values_ = nullptr;
};

}  // namespace trainscope
