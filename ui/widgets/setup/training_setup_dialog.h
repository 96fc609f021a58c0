// SPDX-License-Identifier: Apache-2.0
//
// TrainingSetupDialog: Training > Set up training. Data (the built-in demo data / random samples,
// or raw float32 files: one per graph input, a target file, an optional test set), optimizer
// (SGD, Adam), learning rate, Adam's beta1 / beta2 / epsilon (disabled for SGD), loss, metric,
// batch size and epochs.
//
// Every edit re-runs ValidateTrainingSetup (ui/session/training_setup.h) and shows each issue in
// a line under its field, never in a message box; OK stays disabled while any issue is left.
// The dialog only edits a TrainingSetupRequest: loading it is the owner's job.
//
//   TrainingSetupDialog dialog(graph, this);
//   dialog.setBuiltinDataText(tr("Use the demo data (256 samples)"));
//   dialog.setSetup(current);
//   if (dialog.exec() == QDialog::Accepted) reload(dialog.setup());
#pragma once

#include <QDialog>
#include <QString>

#include <map>
#include <utility>
#include <vector>

#include "engine/model/graph.h"
#include "ui/session/training_setup.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;
class QGridLayout;

namespace trainscope {

class TrainingSetupDialog : public QDialog {
  Q_OBJECT

 public:
  explicit TrainingSetupDialog(const Graph& graph, QWidget* parent = nullptr);
  ~TrainingSetupDialog() override;

  void setSetup(const TrainingSetupRequest& setup);
  // What the fields say now (a value that does not parse reads as NaN).
  TrainingSetupRequest setup() const;
  // The label of the "built-in data" choice, e.g. "Use the demo data (256 samples)".
  void setBuiltinDataText(const QString& text);

  // The issues shown now; empty when OK is enabled.
  const std::vector<SetupIssue>& issues() const { return issues_; }
  // The message under a field ("" when it has none); `index` picks the graph input.
  QString message(SetupField field, int index = -1) const;
  // The field's editor: QLineEdit for files and numbers, QComboBox for optimizer, loss and
  // metric, QSpinBox for batch size and epochs.
  QWidget* editor(SetupField field, int index = -1) const;
  QRadioButton* builtinDataButton() const { return builtin_button_; }
  QRadioButton* filesButton() const { return files_button_; }
  QDialogButtonBox* buttons() const { return buttons_; }

 public Q_SLOTS:
  void validate();
  void accept() override;

 private:
  using Key = std::pair<SetupField, int>;
  struct Field {
    QWidget* editor = nullptr;
    QLabel* message = nullptr;
  };

  // Two grid rows: title, editor and an optional trailing widget, then the message line.
  void addField(QGridLayout* grid, const QString& title, SetupField field, int index,
                QWidget* editor, QWidget* trailing = nullptr);
  QLineEdit* addFileField(QGridLayout* grid, const QString& title, SetupField field, int index);
  QLineEdit* numberEdit();
  void updateEnabled();
  float number(SetupField field) const;

  Graph graph_;
  std::map<Key, Field> fields_;
  std::vector<QWidget*> file_widgets_;
  std::vector<SetupIssue> issues_;
  QRadioButton* builtin_button_ = nullptr;
  QRadioButton* files_button_ = nullptr;
  QComboBox* optimizer_ = nullptr;
  QComboBox* loss_ = nullptr;
  QComboBox* metric_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QSpinBox* epochs_ = nullptr;
  QLabel* summary_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
  uint32_t builtin_sample_count_ = 0;
  bool builtin_has_test_set_ = false;
  bool loading_ = false;
};

}  // namespace trainscope
