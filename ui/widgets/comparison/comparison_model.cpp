// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/comparison/comparison_model.h"

#include <QFont>

#include <cmath>
#include <limits>

#include "ui/widgets/common/format.h"

namespace trainscope {
namespace {

QString Figure(double value) {
  return std::isfinite(value) ? QString::number(value, 'g', 3) : FormatValue(value);
}

QString Threshold(double value) {
  return std::isinf(value) ? QStringLiteral("∞") : QString::number(value, 'g', 3);
}

QString Aspect(const TensorComparison& pair) {
  QString text = QString::fromStdString(pair.read.role);
  if (pair.point.sample > 0) text += QStringLiteral(" · sample %1").arg(pair.point.sample);
  return text;
}

}  // namespace

ComparisonModel::ComparisonModel(QObject* parent) : QAbstractItemModel(parent) {}

void ComparisonModel::setComparison(StepComparisonPtr file) {
  beginResetModel();
  file_ = std::move(file);
  verdict_ = file_ ? EvaluateComparison(*file_, file_->thresholds) : ComparisonVerdict();
  endResetModel();
}

void ComparisonModel::setVerdict(const ComparisonVerdict& verdict) {
  verdict_ = verdict;
  for (int row = 0; row < topRows(); ++row) {
    Q_EMIT dataChanged(index(row, 0), index(row, kColumnCount - 1));
    const QModelIndex parent = index(row, 0);
    const int children = rowCount(parent);
    if (children > 0) {
      Q_EMIT dataChanged(index(0, 0, parent), index(children - 1, kColumnCount - 1, parent));
    }
  }
}

void ComparisonModel::setTheme(const ViewTheme& theme) {
  theme_ = theme;
  if (topRows() > 0) setVerdict(verdict_);
}

int ComparisonModel::topRows() const {
  if (!file_) return 0;
  const bool update = file_->update_begin < file_->tensors.size();
  return static_cast<int>(file_->ops.size()) + (update ? 1 : 0);
}

std::vector<size_t> ComparisonModel::tensorsOfRow(int row) const {
  if (!file_ || row < 0 || row >= topRows()) return {};
  if (static_cast<size_t>(row) < file_->ops.size())
    return file_->ops[static_cast<size_t>(row)].tensors;
  std::vector<size_t> update;
  for (size_t i = file_->update_begin; i < file_->tensors.size(); ++i) update.push_back(i);
  return update;
}

QModelIndex ComparisonModel::indexOfOp(int op) const {
  if (!file_) return QModelIndex();
  for (size_t k = 0; k < file_->ops.size(); ++k) {
    if (static_cast<int>(file_->ops[k].op) == op) return index(static_cast<int>(k), 0);
  }
  return QModelIndex();
}

QModelIndex ComparisonModel::indexOfTensor(size_t tensor) const {
  for (int row = 0; row < topRows(); ++row) {
    const std::vector<size_t> tensors = tensorsOfRow(row);
    for (size_t child = 0; child < tensors.size(); ++child) {
      if (tensors[child] == tensor) return index(static_cast<int>(child), 0, index(row, 0));
    }
  }
  return QModelIndex();
}

QModelIndex ComparisonModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= kColumnCount) return QModelIndex();
  if (!parent.isValid())
    return row < topRows() ? createIndex(row, column, quintptr{0}) : QModelIndex();
  if (parent.internalId() != 0) return QModelIndex();
  if (row >= static_cast<int>(tensorsOfRow(parent.row()).size())) return QModelIndex();
  return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex ComparisonModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == 0) return QModelIndex();
  return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr{0});
}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return topRows();
  if (parent.internalId() != 0 || parent.column() != 0) return 0;
  return static_cast<int>(tensorsOfRow(parent.row()).size());
}

int ComparisonModel::columnCount(const QModelIndex&) const {
  return kColumnCount;
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return QVariant();
  static const char* const kTitles[] = {
      QT_TR_NOOP("Op / tensor"), QT_TR_NOOP("Read"),   QT_TR_NOOP("Shape"),  QT_TR_NOOP("rel L2"),
      QT_TR_NOOP("max |a−b|"),   QT_TR_NOOP("RMSE"),   QT_TR_NOOP("cosine"), QT_TR_NOOP("ulp"),
      QT_TR_NOOP("NaN/Inf"),     QT_TR_NOOP("Verdict")};
  static const char* const kTips[] = {
      QT_TR_NOOP("The op (backward order) and the tensors read after its backward step"),
      QT_TR_NOOP("What was read: the tensor's role and aspect, and the sample of the batch"),
      QT_TR_NOOP("The tensor's shape (a half-rank gradient has fewer rows)"),
      QT_TR_NOOP("Relative L2 error ‖board − reference‖ / ‖reference‖"),
      QT_TR_NOOP("Largest |board − reference|"),
      QT_TR_NOOP("Root mean square of board − reference"),
      QT_TR_NOOP("Cosine similarity of board and reference"),
      QT_TR_NOOP("Largest distance in representable floats (0: bit-identical)"),
      QT_TR_NOOP("Positions NaN/Inf on one side only (always a divergence)"),
      QT_TR_NOOP("Under the thresholds above")};
  if (section < 0 || section >= kColumnCount) return QVariant();
  if (role == Qt::DisplayRole) return tr(kTitles[section]);
  if (role == Qt::ToolTipRole) return tr(kTips[section]);
  return QVariant();
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
  if (!file_ || !index.isValid()) return QVariant();
  if (index.internalId() == 0) return opData(index.row(), index.column(), role);
  const std::vector<size_t> tensors = tensorsOfRow(static_cast<int>(index.internalId() - 1));
  if (index.row() >= static_cast<int>(tensors.size())) return QVariant();
  return tensorData(tensors[static_cast<size_t>(index.row())], index.column(), role);
}

QVariant ComparisonModel::opData(int row, int column, int role) const {
  const bool update = static_cast<size_t>(row) >= file_->ops.size();
  const ComparedOp* op = update ? nullptr : &file_->ops[static_cast<size_t>(row)];
  // The row holding the first divergent tensor (the update's when the backward agreed).
  const int64_t first_tensor = verdict_.first_divergent_tensor;
  const bool in_update =
      first_tensor >= 0 && static_cast<size_t>(first_tensor) >= file_->update_begin;
  const bool first =
      first_tensor >= 0 &&
      (op != nullptr ? !in_update && verdict_.first_divergent_op == op->op : in_update);
  size_t divergent = 0;
  for (size_t i : tensorsOfRow(row)) divergent += verdict_.divergent[i] ? 1 : 0;
  switch (role) {
    case kTensorRole:
      return -1;
    case kOpRole:
      return op != nullptr ? static_cast<int>(op->op) : -1;
    case Qt::DisplayRole:
      if (column == kName) {
        return op != nullptr ? tr("#%1  %2 · backward step %3")
                                   .arg(op->op)
                                   .arg(op->opcode)
                                   .arg(op->backward_step)
                             : tr("after the update");
      }
      if (column == kVerdict) {
        if (first) return tr("FIRST DIVERGENT (%1)").arg(divergent);
        if (divergent > 0) return tr("diverges (%1)").arg(divergent);
        return tr("within");
      }
      return QVariant();
    case Qt::FontRole:
      if (first || (column == kVerdict && divergent > 0)) {
        QFont font;
        font.setBold(true);
        return font;
      }
      return QVariant();
    case Qt::BackgroundRole:
      if (first) {
        QColor tint = theme_.error;
        tint.setAlphaF(0.28f);
        return tint;
      }
      return QVariant();
    case Qt::ForegroundRole:
      if (column == kVerdict && divergent > 0) return theme_.error;
      return QVariant();
    default:
      return QVariant();
  }
}

QVariant ComparisonModel::tensorData(size_t tensor, int column, int role) const {
  const ComparedTensor& t = file_->tensors[tensor];
  const TensorComparison& pair = t.pair;
  const TensorDifference& d = pair.difference;
  const DivergenceThresholds& limit = verdict_.thresholds;
  const FiguresBeyond beyond = FiguresBeyondThresholds(d, limit);
  const bool metrics = pair.shape_matches;
  const bool divergent = verdict_.divergent[tensor];
  bool marked = false;
  if (metrics) {
    marked = (column == kRelativeL2 && beyond.relative_l2) ||
             (column == kMaxAbs && beyond.max_abs) || (column == kUlp && beyond.max_ulp) ||
             (column == kCosine && beyond.cosine) || (column == kNonFinite && beyond.nonfinite);
  }
  marked = marked || (column == kVerdict && divergent) ||
           (column == kShape && t.bothHeld() && !pair.shape_matches);
  switch (role) {
    case kTensorRole:
      return static_cast<qulonglong>(tensor);
    case kOpRole:
      return static_cast<int>(pair.read.op_index);
    case Qt::DisplayRole: {
      const auto figure = [&](double value, bool over, const char* sign, double threshold) {
        QString text = Figure(value);
        if (over) text += QStringLiteral(" %1 %2").arg(QLatin1String(sign), Threshold(threshold));
        return text;
      };
      switch (column) {
        case kName:
          return QStringLiteral("%1 · %2").arg(pair.read.tensor).arg(t.name);
        case kRead:
          return tensor >= file_->update_begin
                     ? tr("%1 (op #%2)").arg(Aspect(pair)).arg(pair.read.op_index)
                     : Aspect(pair);
        case kShape:
          if (!t.bothHeld()) return QVariant();
          return pair.shape_matches ? FormatShape(pair.shape)
                                    : tr("%1 (differs)").arg(FormatShape(pair.shape));
        case kRelativeL2:
          if (!metrics) return QVariant();
          return figure(d.relative_l2, beyond.relative_l2, ">", limit.relative_l2);
        case kMaxAbs:
          if (!metrics) return QVariant();
          return figure(d.max_abs, beyond.max_abs, ">", limit.max_abs);
        case kRmse:
          return metrics ? Figure(d.rmse) : QVariant();
        case kCosine:
          if (!metrics) return QVariant();
          return beyond.cosine ? QStringLiteral("%1 < %2")
                                     .arg(QString::number(d.cosine, 'g', 7))
                                     .arg(QString::number(limit.min_cosine, 'g', 7))
                               : QString::number(d.cosine, 'g', 7);
        case kUlp:
          if (!metrics) return QVariant();
          return beyond.max_ulp ? QStringLiteral("%1 > %2").arg(d.max_ulp).arg(limit.max_ulp)
                                : QString::number(d.max_ulp);
        case kNonFinite:
          if (!metrics) return QVariant();
          return d.nonfinite_mismatches > 0 ? tr("%1 mismatched").arg(d.nonfinite_mismatches)
                                            : QString::number(0);
        case kVerdict:
          if (!pair.board_held && !pair.reference_held) return tr("held on neither side");
          if (!pair.board_held) return tr("not on the board");
          if (!pair.reference_held) return tr("not in the reference");
          if (!pair.shape_matches) return tr("DIVERGES: shapes differ");
          if (static_cast<int64_t>(tensor) == verdict_.first_divergent_tensor) {
            return tr("FIRST DIVERGENT");
          }
          return divergent ? tr("DIVERGES") : tr("within");
        default:
          return QVariant();
      }
    }
    case Qt::ToolTipRole:
      if (!pair.board_held || !pair.reference_held) {
        QStringList why;
        if (!pair.board_held) why << tr("board: %1").arg(QString::fromStdString(pair.board_reason));
        if (!pair.reference_held) {
          why << tr("reference: %1").arg(QString::fromStdString(pair.reference_reason));
        }
        return why.join(QLatin1Char('\n'));
      }
      if (column == kName) return t.name;
      return QVariant();
    case Qt::FontRole:
      if (marked) {
        QFont font;
        font.setBold(true);
        return font;
      }
      return QVariant();
    case Qt::BackgroundRole:
      if (marked) {
        QColor tint = theme_.error;
        tint.setAlphaF(0.22f);
        return tint;
      }
      return QVariant();
    case Qt::ForegroundRole:
      if (!t.bothHeld()) return theme_.muted_text;
      return QVariant();
    case Qt::TextAlignmentRole:
      if (column >= kRelativeL2 && column <= kNonFinite) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
      }
      return QVariant();
    default:
      return QVariant();
  }
}

}  // namespace trainscope
