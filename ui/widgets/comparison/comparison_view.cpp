// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/comparison/comparison_view.h"

#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

#include "ui/widgets/common/format.h"
#include "ui/widgets/common/theme.h"
#include "ui/widgets/comparison/comparison_model.h"
#include "ui/widgets/comparison/comparison_values.h"

namespace trainscope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

QString LimitText(double value) {
  return std::isinf(value) ? QStringLiteral("inf") : QString::number(value, 'g', 6);
}

// "inf", "∞" or nothing: no limit.
bool ParseLimit(const QString& text, double* out) {
  const QString t = text.trimmed();
  if (t.isEmpty() || t == QLatin1String("inf") || t == QStringLiteral("∞")) {
    *out = kInf;
    return true;
  }
  bool ok = false;
  *out = t.toDouble(&ok);
  return ok && !std::isnan(*out);
}

}  // namespace

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent) {
  source_ = new QLabel(this);
  source_->setWordWrap(true);
  source_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  headline_ = new QLabel(this);
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  headline_->setObjectName(QStringLiteral("comparisonHeadline"));
  note_ = new QLabel(this);
  note_->setWordWrap(true);
  note_->hide();

  static const char* const kLabels[] = {QT_TR_NOOP("rel L2 >"), QT_TR_NOOP("max |a−b| >"),
                                        QT_TR_NOOP("ulp >"), QT_TR_NOOP("cosine <")};
  static const char* const kTips[] = {
      QT_TR_NOOP("A tensor diverges when its relative L2 error is above this"),
      QT_TR_NOOP("… or its largest |board − reference| is above this (inf: no limit)"),
      QT_TR_NOOP("… or its largest distance in floats is above this (inf: no limit)"),
      QT_TR_NOOP("… or its cosine similarity is below this (-1: no limit). A NaN/Inf mismatch "
                 "always diverges.")};
  auto* thresholds = new QHBoxLayout;
  thresholds->addWidget(new QLabel(tr("Diverges when"), this));
  for (int k = 0; k < 4; ++k) {
    auto* label = new QLabel(tr(kLabels[k]), this);
    edits_[k] = new QLineEdit(this);
    edits_[k]->setToolTip(tr(kTips[k]));
    edits_[k]->setMinimumWidth(64);
    edits_[k]->setMaximumWidth(96);
    label->setBuddy(edits_[k]);
    thresholds->addWidget(label);
    thresholds->addWidget(edits_[k]);
    connect(edits_[k], &QLineEdit::editingFinished, this, &ComparisonView::readThresholds);
  }
  reset_ = new QPushButton(tr("Reset"), this);
  reset_->setToolTip(tr("The thresholds the file was written with"));
  connect(reset_, &QPushButton::clicked, this, [this] {
    if (file_) setThresholds(file_->thresholds);
  });
  thresholds->addWidget(reset_);
  thresholds->addStretch(1);
  threshold_error_ = new QLabel(this);
  threshold_error_->hide();

  model_ = new ComparisonModel(this);
  tree_ = new QTreeView(this);
  tree_->setModel(model_);
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->setSelectionBehavior(QAbstractItemView::SelectRows);
  tree_->header()->setStretchLastSection(true);
  tree_->setMinimumHeight(110);
  connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          &ComparisonView::onCurrentChanged);

  values_ = new ComparisonValues(this);
  transfer_ = new QLabel(this);
  transfer_->setWordWrap(true);
  transfer_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(tree_);
  splitter->addWidget(values_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setChildrenCollapsible(false);
  values_->setMinimumHeight(190);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(source_);
  layout->addWidget(headline_);
  layout->addLayout(thresholds);
  layout->addWidget(threshold_error_);
  layout->addWidget(note_);
  layout->addWidget(splitter, 1);
  layout->addWidget(transfer_);

  model_->setTheme(ViewTheme::fromPalette(palette()));
  headline_->setText(
      tr("No comparison: File > Open Comparison… reads the file "
         "<tt>trainscope-cli diff … --json FILE --values</tt> writes."));
  for (QLineEdit* edit : edits_) edit->setEnabled(false);
  reset_->setEnabled(false);
}

void ComparisonView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    model_->setTheme(ViewTheme::fromPalette(palette()));
    updateHeadline();
  }
}

void ComparisonView::setComparison(StepComparisonPtr file, const QString& path) {
  file_ = std::move(file);
  path_ = path;
  model_->setComparison(file_);
  for (QLineEdit* edit : edits_) edit->setEnabled(file_ != nullptr);
  reset_->setEnabled(file_ != nullptr);
  if (!file_) {
    source_->clear();
    transfer_->clear();
    values_->showNothing(QString());
    verdict_ = ComparisonVerdict();
    updateHeadline();
    return;
  }
  source_->setText(tr("Board <b>%1</b> at %2 · optimizer step %3 · model %4 · %5")
                       .arg(file_->board.toHtmlEscaped(), file_->endpoint.toHtmlEscaped())
                       .arg(file_->step)
                       .arg(QFileInfo(file_->model).fileName().toHtmlEscaped(),
                            QFileInfo(path).fileName().toHtmlEscaped()));
  source_->setToolTip(tr("%1\nmodel: %2").arg(path, file_->model));
  const ComparisonTransfer& t = file_->transfer;
  transfer_->setText(
      tr("Transfer: %1 tensors asked (%2 not held) · %3 values in %4 chunks · %5 on the line "
         "(%6 payload) · %7")
          .arg(FormatCount(t.requests), FormatCount(t.not_held), FormatCount(t.values),
               FormatCount(t.chunks), FormatBytes(t.wire_bytes), FormatBytes(t.payload_bytes),
               FormatDuration(static_cast<uint64_t>(std::llround(t.seconds * 1e9)))));
  tree_->expandAll();
  for (int c = 0; c < ComparisonModel::kColumnCount; ++c) tree_->resizeColumnToContents(c);
  tree_->setColumnWidth(ComparisonModel::kName, std::min(tree_->columnWidth(0), 320));
  setThresholds(file_->thresholds);
  // Start where the answer is: the first divergent tensor, else the largest difference.
  if (verdict_.first_divergent_tensor >= 0) {
    selectTensor(static_cast<size_t>(verdict_.first_divergent_tensor));
  } else if (verdict_.largest >= 0) {
    selectTensor(static_cast<size_t>(verdict_.largest));
  } else {
    values_->showNothing(tr("Nothing was compared on both sides."));
  }
}

void ComparisonView::setThresholds(const DivergenceThresholds& thresholds) {
  evaluate(thresholds);
  showThresholds();
}

void ComparisonView::showThresholds() {
  const DivergenceThresholds& t = verdict_.thresholds;
  edits_[kRelativeL2Edit]->setText(LimitText(t.relative_l2));
  edits_[kMaxAbsEdit]->setText(LimitText(t.max_abs));
  edits_[kMaxUlpEdit]->setText(t.max_ulp == std::numeric_limits<uint64_t>::max()
                                   ? QStringLiteral("inf")
                                   : QString::number(t.max_ulp));
  edits_[kMinCosineEdit]->setText(QString::number(t.min_cosine, 'g', 9));
  for (QLineEdit* edit : edits_) edit->setCursorPosition(0);
}

void ComparisonView::readThresholds() {
  if (!file_) return;
  DivergenceThresholds t = verdict_.thresholds;
  QStringList errors;
  double value = 0.0;
  if (ParseLimit(edits_[kRelativeL2Edit]->text(), &value) && value >= 0.0) {
    t.relative_l2 = value;
  } else {
    errors << tr("rel L2 '%1' is not a number from 0").arg(edits_[kRelativeL2Edit]->text());
  }
  if (ParseLimit(edits_[kMaxAbsEdit]->text(), &value) && value >= 0.0) {
    t.max_abs = value;
  } else {
    errors << tr("max |a−b| '%1' is not a number from 0").arg(edits_[kMaxAbsEdit]->text());
  }
  if (ParseLimit(edits_[kMaxUlpEdit]->text(), &value) && value >= 0.0 &&
      (std::isinf(value) || value == std::floor(value))) {
    t.max_ulp = std::isinf(value) || value >= 1.8e19 ? std::numeric_limits<uint64_t>::max()
                                                     : static_cast<uint64_t>(value);
  } else {
    errors << tr("ulp '%1' is not a whole number").arg(edits_[kMaxUlpEdit]->text());
  }
  const QString cosine = edits_[kMinCosineEdit]->text().trimmed();
  bool ok = false;
  value = cosine.toDouble(&ok);
  if (ok && value >= -1.0 && value <= 1.0) {
    t.min_cosine = value;
  } else {
    errors << tr("cosine '%1' is not a number from -1 to 1").arg(cosine);
  }
  threshold_error_->setVisible(!errors.isEmpty());
  threshold_error_->setText(
      QStringLiteral("<span style='color:%1'>%2</span>")
          .arg(ViewTheme::fromPalette(palette()).error.name(),
               QString(errors.join(QStringLiteral("; ")) + tr(" (kept the previous value)"))
                   .toHtmlEscaped()));
  evaluate(t);
  if (!errors.isEmpty()) showThresholds();
}

QString ComparisonView::thresholdErrorText() const {
  return threshold_error_->isHidden() ? QString() : threshold_error_->text();
}

void ComparisonView::evaluate(const DivergenceThresholds& thresholds) {
  const int64_t before = verdict_.first_divergent_op;
  verdict_ = file_ ? EvaluateComparison(*file_, thresholds) : ComparisonVerdict();
  verdict_.thresholds = thresholds;
  model_->setVerdict(verdict_);
  updateHeadline();
  if (verdict_.first_divergent_op != before || !file_) {
    Q_EMIT firstDivergentOpChanged(static_cast<int>(verdict_.first_divergent_op));
  }
}

void ComparisonView::updateHeadline() {
  if (!file_) return;
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  const auto describe = [&](size_t index) {
    const ComparedTensor& t = file_->tensors[index];
    const TensorDifference& d = t.pair.difference;
    QString where = QString::fromStdString(t.pair.read.role);
    if (index >= file_->update_begin) where += tr(" after the update");
    if (t.pair.point.sample > 0) where += tr(", sample %1").arg(t.pair.point.sample);
    QString figures = t.pair.shape_matches
                          ? tr("rel L2 %1, max |a−b| %2, cosine %3, %4 ulp, %5 NaN/Inf mismatches")
                                .arg(FormatValue(d.relative_l2), FormatValue(d.max_abs))
                                .arg(d.cosine, 0, 'g', 7)
                                .arg(d.max_ulp)
                                .arg(d.nonfinite_mismatches)
                          : tr("the shapes differ");
    return tr("%1 of %2: %3").arg(where.toHtmlEscaped(), t.name.toHtmlEscaped(), figures);
  };
  const auto opcode_of = [&](int64_t op) {
    for (const ComparedOp& o : file_->ops) {
      if (o.op == op) return o.opcode;
    }
    return QString();
  };
  QString text;
  if (verdict_.first_divergent_tensor >= 0) {
    const int64_t op = verdict_.first_divergent_op;
    text = QStringLiteral("<span style='color:%1'><b>%2</b></span> %3")
               .arg(theme.error.name(),
                    tr("First divergent: op #%1 %2").arg(op).arg(opcode_of(op)).toHtmlEscaped(),
                    describe(static_cast<size_t>(verdict_.first_divergent_tensor)));
    text += tr(" · %1 of %2 tensors diverge")
                .arg(verdict_.divergent_tensors)
                .arg(file_->tensors.size());
    QStringList known;
    for (const ComparedOp& o : file_->ops) {
      if (static_cast<int64_t>(o.op) == op) known = o.known_onert_differences;
    }
    if (known.isEmpty() && op == file_->file_first_divergent_op) {
      known = file_->known_onert_differences;
    }
    if (!known.isEmpty()) {
      text += tr("<br><b>onert-micro is known to compute this op differently:</b> %1")
                  .arg(known.join(QStringLiteral("; ")).toHtmlEscaped());
    } else if (op == file_->file_first_divergent_op || file_->known_differences_per_op) {
      text += tr("<br>No known onert-micro difference at this op: a board difference to look at.");
    } else if (file_->file_first_divergent_op >= 0) {
      text += tr("<br>The file names onert-micro's known differences only at op #%1, its first "
                 "divergent op under its own thresholds.")
                  .arg(file_->file_first_divergent_op);
    } else {
      text +=
          tr("<br>The file was written with nothing diverging, so it names no known "
             "onert-micro difference.");
    }
  } else {
    text = tr("<b>Nothing diverges</b> under these thresholds (%1 compared on both sides, %2 held "
              "on one side)")
               .arg(file_->compared)
               .arg(file_->held_on_one_side);
    if (verdict_.largest >= 0) {
      const auto largest = static_cast<size_t>(verdict_.largest);
      text += tr("; the largest difference is at op #%1, %2")
                  .arg(file_->tensors[largest].pair.read.op_index)
                  .arg(describe(largest));
    }
  }
  headline_->setText(text);
}

void ComparisonView::setNote(const QString& note) {
  note_->setText(note);
  note_->setVisible(!note.isEmpty());
}

QString ComparisonView::headlineText() const {
  return headline_->text();
}

QString ComparisonView::noteText() const {
  return note_->isHidden() ? QString() : note_->text();
}

QString ComparisonView::transferText() const {
  return transfer_->text();
}

void ComparisonView::selectOp(int op) {
  const QModelIndex index = model_->indexOfOp(op);
  if (!index.isValid()) return;
  tree_->setCurrentIndex(index);
  tree_->scrollTo(index);
}

void ComparisonView::selectTensor(size_t tensor) {
  const QModelIndex index = model_->indexOfTensor(tensor);
  if (!index.isValid()) return;
  tree_->setCurrentIndex(index);
  tree_->scrollTo(index);
}

int ComparisonView::selectedTensor() const {
  const QModelIndex current = tree_->currentIndex();
  if (!current.isValid()) return -1;
  return current.data(ComparisonModel::kTensorRole).toInt();
}

void ComparisonView::onCurrentChanged() {
  const QModelIndex current = tree_->currentIndex();
  if (!file_ || !current.isValid()) return;
  const int tensor = current.data(ComparisonModel::kTensorRole).toInt();
  if (tensor >= 0 && static_cast<size_t>(tensor) < file_->tensors.size()) {
    values_->showTensor(file_->tensors[static_cast<size_t>(tensor)]);
  } else {
    values_->showNothing(tr("Select one of the op's tensors to see both sides' values."));
  }
  const int op = current.data(ComparisonModel::kOpRole).toInt();
  if (op >= 0) Q_EMIT opSelected(op);
}

}  // namespace trainscope
