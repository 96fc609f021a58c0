// SPDX-License-Identifier: Apache-2.0
//
// ComparisonModel: a diff report as a tree for the comparison view. The top rows are the ops in
// backward order, then "after the update"; their children are the tensors read there, with the
// figures (rel L2, max |a-b|, RMSE, cosine, ulp, NaN/Inf mismatches) and a verdict. Under the
// thresholds of the verdict it is given, a figure beyond its threshold says so in its text
// ("2.1e-04 > 1e-04") as well as in colour, and the first divergent op's row says "first
// divergent". setVerdict() only repaints: selection and expansion stay.
//
//   model.setComparison(file);
//   model.setVerdict(EvaluateComparison(*file, thresholds));
#pragma once

#include <QAbstractItemModel>

#include "ui/session/step_comparison_file.h"
#include "ui/widgets/common/theme.h"

namespace trainscope {

class ComparisonModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Column {
    kName = 0,
    kRead,
    kShape,
    kRelativeL2,
    kMaxAbs,
    kRmse,
    kCosine,
    kUlp,
    kNonFinite,
    kVerdict,
    kColumnCount
  };
  // Qt::UserRole of any cell: the tensor index into the file (-1 on an op or the update row);
  // kOpRole: the operator index (-1 on the update row).
  static constexpr int kTensorRole = Qt::UserRole;
  static constexpr int kOpRole = Qt::UserRole + 1;

  explicit ComparisonModel(QObject* parent = nullptr);

  void setComparison(StepComparisonPtr file);
  void setVerdict(const ComparisonVerdict& verdict);
  void setTheme(const ViewTheme& theme);
  const StepComparisonPtr& comparison() const { return file_; }

  // The row of `op` (an operator index), or of the tensor `tensor` (an index into the file).
  QModelIndex indexOfOp(int op) const;
  QModelIndex indexOfTensor(size_t tensor) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = QModelIndex()) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  // The top row's tensors (an op's, or the update's).
  std::vector<size_t> tensorsOfRow(int row) const;
  int topRows() const;
  QVariant opData(int row, int column, int role) const;
  QVariant tensorData(size_t tensor, int column, int role) const;

  StepComparisonPtr file_;
  ComparisonVerdict verdict_;
  ViewTheme theme_;
};

}  // namespace trainscope
