// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/setup/training_setup_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/widgets/common/format.h"
#include "ui/widgets/common/theme.h"

namespace trainscope {
namespace {

constexpr int kMaxSpin = 100000000;

const OptimizerKind kOptimizers[] = {OptimizerKind::kSgd, OptimizerKind::kAdam};
const LossKind kLosses[] = {LossKind::kMse, LossKind::kCrossEntropy, LossKind::kSparseCrossEntropy,
                            LossKind::kMae, LossKind::kBinaryCrossEntropy};
const MetricKind kMetrics[] = {MetricKind::kMse,
                               MetricKind::kMae,
                               MetricKind::kCrossEntropy,
                               MetricKind::kAccuracy,
                               MetricKind::kSparseCrossEntropyAccuracy,
                               MetricKind::kNone};

QString FloatText(float value) {
  return QString::number(static_cast<double>(value), 'g', 7);
}

void SelectData(QComboBox* combo, int value) {
  const int index = combo->findData(value);
  if (index >= 0) combo->setCurrentIndex(index);
}

}  // namespace

TrainingSetupDialog::TrainingSetupDialog(const Graph& graph, QWidget* parent)
    : QDialog(parent), graph_(graph) {
  setWindowTitle(tr("Set up training"));
  const Subgraph* main = graph_.subgraphs.empty() ? nullptr : &graph_.main();

  auto* data_box = new QGroupBox(tr("Training data"), this);
  auto* data_grid = new QGridLayout(data_box);
  builtin_button_ = new QRadioButton(tr("Use the demo data / random samples"), data_box);
  files_button_ = new QRadioButton(tr("Use raw float32 files (one per graph input, samples back "
                                      "to back; sparse labels: one float per sample)"),
                                   data_box);
  builtin_button_->setChecked(true);
  data_grid->addWidget(builtin_button_, 0, 0, 1, 3);
  data_grid->addWidget(files_button_, 1, 0, 1, 3);
  const size_t input_count = main ? main->inputs.size() : 0;
  const auto input_title = [main](size_t i, bool test) -> QString {
    const Tensor& t = main->tensors[static_cast<size_t>(main->inputs[i])];
    return (test ? tr("Test input %1") : tr("Input %1")).arg(i) +
           QStringLiteral(" '%1' %2").arg(QString::fromStdString(t.name), FormatShape(t.shape));
  };
  for (size_t i = 0; i < input_count; ++i) {
    addFileField(data_grid, input_title(i, false), SetupField::kInput, static_cast<int>(i));
  }
  addFileField(data_grid, tr("Target"), SetupField::kTarget, -1);
  for (size_t i = 0; i < input_count; ++i) {
    addFileField(data_grid, input_title(i, true) + tr(" (optional)"), SetupField::kTestInput,
                 static_cast<int>(i));
  }
  addFileField(data_grid, tr("Test target (optional)"), SetupField::kTestTarget, -1);
  connect(files_button_, &QRadioButton::toggled, this, &TrainingSetupDialog::updateEnabled);

  auto* optimizer_box = new QGroupBox(tr("Optimizer"), this);
  auto* optimizer_grid = new QGridLayout(optimizer_box);
  optimizer_ = new QComboBox(optimizer_box);
  for (OptimizerKind kind : kOptimizers)
    optimizer_->addItem(QString::fromLatin1(OptimizerName(kind)), static_cast<int>(kind));
  addField(optimizer_grid, tr("Optimizer"), SetupField::kOptimizer, -1, optimizer_);
  addField(optimizer_grid, tr("Learning rate"), SetupField::kLearningRate, -1, numberEdit());
  addField(optimizer_grid, tr("Beta1"), SetupField::kBeta1, -1, numberEdit());
  addField(optimizer_grid, tr("Beta2"), SetupField::kBeta2, -1, numberEdit());
  addField(optimizer_grid, tr("Epsilon"), SetupField::kEpsilon, -1, numberEdit());
  connect(optimizer_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          &TrainingSetupDialog::updateEnabled);

  auto* run_box = new QGroupBox(tr("Loss and schedule"), this);
  auto* run_grid = new QGridLayout(run_box);
  loss_ = new QComboBox(run_box);
  for (LossKind kind : kLosses)
    loss_->addItem(QString::fromLatin1(LossName(kind)), static_cast<int>(kind));
  metric_ = new QComboBox(run_box);
  for (MetricKind kind : kMetrics) {
    metric_->addItem(kind == MetricKind::kNone ? tr("none") : QString::fromLatin1(MetricName(kind)),
                     static_cast<int>(kind));
  }
  batch_ = new QSpinBox(run_box);
  epochs_ = new QSpinBox(run_box);
  for (QSpinBox* spin : {batch_, epochs_}) {
    spin->setRange(0, kMaxSpin);
    connect(spin, qOverload<int>(&QSpinBox::valueChanged), this, &TrainingSetupDialog::validate);
  }
  for (QComboBox* combo : {loss_, metric_}) {
    connect(combo, qOverload<int>(&QComboBox::currentIndexChanged), this,
            &TrainingSetupDialog::validate);
  }
  addField(run_grid, tr("Loss"), SetupField::kLoss, -1, loss_);
  addField(run_grid, tr("Metric"), SetupField::kMetric, -1, metric_);
  addField(run_grid, tr("Batch size"), SetupField::kBatchSize, -1, batch_);
  addField(run_grid, tr("Epochs"), SetupField::kEpochs, -1, epochs_);

  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons_->button(QDialogButtonBox::Ok)->setText(tr("Reload session"));
  connect(buttons_, &QDialogButtonBox::accepted, this, &TrainingSetupDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &TrainingSetupDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(data_box);
  auto* knobs = new QHBoxLayout;
  knobs->addWidget(optimizer_box);
  knobs->addWidget(run_box);
  layout->addLayout(knobs);
  layout->addWidget(summary_);
  layout->addWidget(buttons_);
  setSetup(TrainingSetupRequest());
}

TrainingSetupDialog::~TrainingSetupDialog() = default;

void TrainingSetupDialog::addField(QGridLayout* grid, const QString& title, SetupField field,
                                   int index, QWidget* editor, QWidget* trailing) {
  const int row = grid->rowCount();
  auto* title_label = new QLabel(title, grid->parentWidget());
  title_label->setBuddy(editor);
  grid->addWidget(title_label, row, 0);
  grid->addWidget(editor, row, 1, 1, trailing ? 1 : 2);
  if (trailing) grid->addWidget(trailing, row, 2);
  auto* message = new QLabel(grid->parentWidget());
  message->setWordWrap(true);
  message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QPalette palette = message->palette();
  palette.setColor(QPalette::WindowText, ViewTheme::fromPalette(this->palette()).error);
  message->setPalette(palette);
  message->hide();
  grid->addWidget(message, row + 1, 1, 1, 2);
  grid->setColumnStretch(1, 1);
  fields_[{field, index}] = Field{editor, message};
}

QLineEdit* TrainingSetupDialog::addFileField(QGridLayout* grid, const QString& title,
                                             SetupField field, int index) {
  auto* edit = new QLineEdit(grid->parentWidget());
  edit->setClearButtonEnabled(true);
  auto* browse = new QPushButton(tr("Browse…"), grid->parentWidget());
  connect(browse, &QPushButton::clicked, this, [this, edit, title] {
    const QString path =
        QFileDialog::getOpenFileName(this, title, QFileInfo(edit->text()).absolutePath(),
                                     tr("Raw float32 (*.bin *.raw *.f32);;All files (*)"));
    if (!path.isEmpty()) edit->setText(path);
  });
  connect(edit, &QLineEdit::textChanged, this, &TrainingSetupDialog::validate);
  addField(grid, title, field, index, edit, browse);
  file_widgets_.push_back(edit);
  file_widgets_.push_back(browse);
  return edit;
}

QLineEdit* TrainingSetupDialog::numberEdit() {
  auto* edit = new QLineEdit(this);
  connect(edit, &QLineEdit::textChanged, this, &TrainingSetupDialog::validate);
  return edit;
}

void TrainingSetupDialog::setSetup(const TrainingSetupRequest& setup) {
  loading_ = true;
  const TrainingOptions& o = setup.options;
  SelectData(optimizer_, static_cast<int>(o.optimizer));
  static_cast<QLineEdit*>(editor(SetupField::kLearningRate))->setText(FloatText(o.learning_rate));
  static_cast<QLineEdit*>(editor(SetupField::kBeta1))->setText(FloatText(o.beta1));
  static_cast<QLineEdit*>(editor(SetupField::kBeta2))->setText(FloatText(o.beta2));
  static_cast<QLineEdit*>(editor(SetupField::kEpsilon))->setText(FloatText(o.epsilon));
  SelectData(loss_, static_cast<int>(o.loss));
  SelectData(metric_, static_cast<int>(o.metric));
  batch_->setValue(static_cast<int>(std::min<uint32_t>(o.batch_size, kMaxSpin)));
  epochs_->setValue(static_cast<int>(std::min<uint32_t>(o.epochs, kMaxSpin)));
  for (auto& [key, field] : fields_) {
    const QStringList* list = key.first == SetupField::kInput       ? &setup.data.inputs
                              : key.first == SetupField::kTestInput ? &setup.data.test_inputs
                                                                    : nullptr;
    QString text;
    if (list) {
      text = key.second < list->size() ? list->at(key.second) : QString();
    } else if (key.first == SetupField::kTarget) {
      text = setup.data.target;
    } else if (key.first == SetupField::kTestTarget) {
      text = setup.data.test_target;
    } else {
      continue;
    }
    static_cast<QLineEdit*>(field.editor)->setText(text);
  }
  builtin_sample_count_ = setup.builtin_sample_count;
  builtin_has_test_set_ = setup.builtin_has_test_set;
  (setup.use_builtin_data ? builtin_button_ : files_button_)->setChecked(true);
  loading_ = false;
  updateEnabled();
}

float TrainingSetupDialog::number(SetupField field) const {
  bool ok = false;
  const float value = static_cast<QLineEdit*>(editor(field))->text().trimmed().toFloat(&ok);
  return ok ? value : std::numeric_limits<float>::quiet_NaN();
}

TrainingSetupRequest TrainingSetupDialog::setup() const {
  TrainingSetupRequest setup;
  TrainingOptions& o = setup.options;
  o.optimizer = static_cast<OptimizerKind>(optimizer_->currentData().toInt());
  o.learning_rate = number(SetupField::kLearningRate);
  o.beta1 = number(SetupField::kBeta1);
  o.beta2 = number(SetupField::kBeta2);
  o.epsilon = number(SetupField::kEpsilon);
  o.loss = static_cast<LossKind>(loss_->currentData().toInt());
  o.metric = static_cast<MetricKind>(metric_->currentData().toInt());
  o.batch_size = static_cast<uint32_t>(batch_->value());
  o.epochs = static_cast<uint32_t>(epochs_->value());
  setup.use_builtin_data = builtin_button_->isChecked();
  setup.builtin_sample_count = builtin_sample_count_;
  setup.builtin_has_test_set = builtin_has_test_set_;
  for (const auto& [key, field] : fields_) {
    const QString text = [&] {
      if (key.first == SetupField::kInput || key.first == SetupField::kTarget ||
          key.first == SetupField::kTestInput || key.first == SetupField::kTestTarget) {
        return static_cast<QLineEdit*>(field.editor)->text().trimmed();
      }
      return QString();
    }();
    if (key.first == SetupField::kInput) setup.data.inputs << text;
    if (key.first == SetupField::kTestInput) setup.data.test_inputs << text;
    if (key.first == SetupField::kTarget) setup.data.target = text;
    if (key.first == SetupField::kTestTarget) setup.data.test_target = text;
  }
  if (!setup.data.hasTestSet()) setup.data.test_inputs.clear();
  return setup;
}

void TrainingSetupDialog::setBuiltinDataText(const QString& text) {
  builtin_button_->setText(text);
}

QString TrainingSetupDialog::message(SetupField field, int index) const {
  const auto it = fields_.find({field, index});
  return it == fields_.end() ? QString() : it->second.message->text();
}

QWidget* TrainingSetupDialog::editor(SetupField field, int index) const {
  const auto it = fields_.find({field, index});
  return it == fields_.end() ? nullptr : it->second.editor;
}

void TrainingSetupDialog::updateEnabled() {
  const bool files = files_button_->isChecked();
  for (QWidget* widget : file_widgets_) widget->setEnabled(files);
  const bool adam = optimizer_->currentData().toInt() == static_cast<int>(OptimizerKind::kAdam);
  for (SetupField field : {SetupField::kBeta1, SetupField::kBeta2, SetupField::kEpsilon})
    editor(field)->setEnabled(adam);
  validate();
}

void TrainingSetupDialog::validate() {
  if (loading_) return;
  std::map<Key, QStringList> texts;
  const TrainingSetupRequest now = setup();
  issues_.clear();
  // A value that does not parse gets its own words; the range checks would only say "nan".
  for (SetupField field :
       {SetupField::kLearningRate, SetupField::kBeta1, SetupField::kBeta2, SetupField::kEpsilon}) {
    const bool used =
        field == SetupField::kLearningRate || now.options.optimizer == OptimizerKind::kAdam;
    const QString text = static_cast<QLineEdit*>(editor(field))->text().trimmed();
    if (used && std::isnan(number(field))) {
      issues_.push_back({field, -1, tr("'%1' is not a number.").arg(text)});
    }
  }
  const size_t parse_issues = issues_.size();
  if (!graph_.subgraphs.empty()) {
    for (SetupIssue& issue : ValidateTrainingSetup(graph_.main(), now)) {
      bool unparsed = false;
      for (size_t i = 0; i < parse_issues; ++i) unparsed |= issues_[i].field == issue.field;
      if (!unparsed) issues_.push_back(std::move(issue));
    }
  }
  for (const SetupIssue& issue : issues_) texts[{issue.field, issue.index}] << issue.message;
  for (auto& [key, field] : fields_) {
    const auto it = texts.find(key);
    const QString text = it == texts.end() ? QString() : it->second.join(QLatin1Char('\n'));
    field.message->setText(text);
    field.message->setVisible(!text.isEmpty());
  }
  // An issue without a field of its own (an input the model does not have) goes to the summary.
  QStringList loose;
  for (const SetupIssue& issue : issues_) {
    if (!fields_.count({issue.field, issue.index})) loose << issue.message;
  }
  summary_->setText(loose.join(QLatin1Char('\n')));
  summary_->setVisible(!loose.isEmpty());
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(issues_.empty());
}

void TrainingSetupDialog::accept() {
  validate();
  if (issues_.empty()) QDialog::accept();
}

}  // namespace trainscope
