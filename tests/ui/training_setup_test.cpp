// SPDX-License-Identifier: Apache-2.0
//
// ValidateTrainingSetup (each message: what is wrong, which file, which size) and the set-up
// dialog: messages under their fields, OK only when clean, and a round trip of every field.
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>

#include "tests/ui/test_models.h"
#include "ui/widgets/setup/training_setup_dialog.h"

namespace trainscope {
namespace {

const SetupIssue* Find(const std::vector<SetupIssue>& issues, SetupField field, int index = -1) {
  for (const SetupIssue& issue : issues) {
    if (issue.field == field && issue.index == index) return &issue;
  }
  return nullptr;
}

QString Join(const std::vector<SetupIssue>& issues) {
  QStringList lines;
  for (const SetupIssue& issue : issues)
    lines << SetupFieldName(issue.field) + QStringLiteral(": ") + issue.message;
  return lines.join(QLatin1Char('\n'));
}

// Two graph inputs (ADD), so sample counts can disagree between input files.
Graph MakeTwoInputGraph() {
  ModelBuilder b;
  const int a = b.AddTensor("left", {1, 4});
  const int c = b.AddTensor("right", {1, 4});
  const int y = b.AddTensor("sum", {1, 4});
  b.AddOperator(op::kAdd, {a, c}, {y});
  b.SetInputs({a, c});
  b.SetOutputs({y});
  return testing::FinishGraph(b);
}

}  // namespace

class TrainingSetupTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    graph_ = testing::MakeMlp({16, 8, 4});  // input [1, 16] = 64 bytes; 4 outputs
    QVERIFY(dir_.isValid());
  }

  void optionRangesNameTheValue() {
    TrainingOptions o;
    o.optimizer = OptimizerKind::kAdam;
    o.learning_rate = 0.0f;
    o.beta1 = 1.0f;
    o.beta2 = -0.1f;
    o.epsilon = 0.0f;
    o.batch_size = 0;
    o.epochs = 0;
    const auto issues = ValidateTrainingOptions(o);
    QCOMPARE(issues.size(), size_t{6});
    QVERIFY(Find(issues, SetupField::kLearningRate)->message.contains(QStringLiteral("> 0")));
    QVERIFY(Find(issues, SetupField::kBeta1)->message.startsWith(QStringLiteral("beta1 1:")));
    QVERIFY(Find(issues, SetupField::kBeta1)->message.contains(QStringLiteral("[0, 1)")));
    QVERIFY(Find(issues, SetupField::kBeta2)->message.startsWith(QStringLiteral("beta2 -0.1:")));
    QVERIFY(Find(issues, SetupField::kEpsilon)->message.startsWith(QStringLiteral("epsilon 0:")));
    QVERIFY(Find(issues, SetupField::kBatchSize));
    QVERIFY(Find(issues, SetupField::kEpochs));

    o.learning_rate = std::numeric_limits<float>::infinity();
    QVERIFY(Find(ValidateTrainingOptions(o), SetupField::kLearningRate)
                ->message.startsWith(QStringLiteral("learning rate inf")));
    o.learning_rate = std::nanf("");
    QVERIFY(Find(ValidateTrainingOptions(o), SetupField::kLearningRate));
    // SGD has no betas or epsilon: whatever they hold is not checked.
    o.optimizer = OptimizerKind::kSgd;
    o.learning_rate = 0.1f;
    o.batch_size = o.epochs = 1;
    QVERIFY2(ValidateTrainingOptions(o).empty(), qPrintable(Join(ValidateTrainingOptions(o))));
    o.optimizer = OptimizerKind::kAdam;
    o.beta1 = 0.0f;  // the edge of [0, 1) is allowed
    o.beta2 = 0.999f;
    o.epsilon = 1e-8f;
    QVERIFY(ValidateTrainingOptions(o).empty());
  }

  void aWellFormedSetupHasNoIssues() {
    const TrainingSetupRequest setup = filesSetup(10, 10, LossKind::kMse);
    const auto issues = ValidateTrainingSetup(graph_.main(), setup);
    QVERIFY2(issues.empty(), qPrintable(Join(issues)));
  }

  void inputSizeNotWholeSamplesSaysTheBytesPerSample() {
    TrainingSetupRequest setup = filesSetup(10, 10, LossKind::kMse);
    setup.data.inputs[0] = write(QStringLiteral("odd.bin"), 25);  // 100 bytes, samples are 64
    const auto issues = ValidateTrainingSetup(graph_.main(), setup);
    const SetupIssue* issue = Find(issues, SetupField::kInput, 0);
    QVERIFY2(issue, qPrintable(Join(issues)));
    QVERIFY2(issue->message.contains(QStringLiteral("has 100 bytes")), qPrintable(issue->message));
    QVERIFY(issue->message.contains(QStringLiteral("64 bytes")));
    QVERIFY(issue->message.contains(QStringLiteral("[1, 16]")));
    QVERIFY(issue->message.contains(QStringLiteral("input 0 'input'")));
    QVERIFY(issue->message.contains(setup.data.inputs[0]));
  }

  void targetSampleCountMustMatchTheInputs() {
    const TrainingSetupRequest setup = filesSetup(10, 9, LossKind::kMse);
    const auto issues = ValidateTrainingSetup(graph_.main(), setup);
    const SetupIssue* issue = Find(issues, SetupField::kTarget);
    QVERIFY2(issue, qPrintable(Join(issues)));
    QVERIFY(
        issue->message.contains(QStringLiteral("holds 9 samples of 4 float(s), the inputs 10")));
  }

  void sparseLossRefusesOneHotTargets() {
    // 10 samples of 4 floats is 40 whole sparse labels, but not 10 of them.
    const TrainingSetupRequest setup = filesSetup(10, 10, LossKind::kSparseCrossEntropy);
    const auto issues = ValidateTrainingSetup(graph_.main(), setup);
    const SetupIssue* issue = Find(issues, SetupField::kTarget);
    QVERIFY2(issue, qPrintable(Join(issues)));
    QVERIFY(issue->message.contains(QStringLiteral("holds 40 samples of 1 float(s)")));
    QVERIFY(issue->message.contains(QStringLiteral("4 values per sample (one-hot?)")));
    QVERIFY(issue->message.contains(QStringLiteral("sparse-ce")));
  }

  void denseLossRefusesClassIndices() {
    TrainingSetupRequest setup = filesSetup(8, 8, LossKind::kCrossEntropy);
    setup.data.target = write(QStringLiteral("labels.bin"), 8);  // one float per sample
    setup.options.metric = MetricKind::kAccuracy;
    const auto issues = ValidateTrainingSetup(graph_.main(), setup);
    const SetupIssue* issue = Find(issues, SetupField::kTarget);
    QVERIFY2(issue, qPrintable(Join(issues)));
    QVERIFY2(issue->message.contains(QStringLiteral("holds 2 samples of 4 float(s), the inputs 8")),
             qPrintable(issue->message));
    QVERIFY(issue->message.contains(QStringLiteral("one value per sample (class indices?)")));
  }

  void batchLargerThanTheDataIsRefused() {
    TrainingSetupRequest setup = filesSetup(10, 10, LossKind::kMse);
    setup.options.batch_size = 11;
    auto issues = ValidateTrainingSetup(graph_.main(), setup);
    QVERIFY(Find(issues, SetupField::kBatchSize));
    QCOMPARE(Find(issues, SetupField::kBatchSize)->message,
             QStringLiteral("batch size 11 is larger than the 10 training samples."));
    setup.options.batch_size = 10;
    QVERIFY(ValidateTrainingSetup(graph_.main(), setup).empty());
    // Built-in data: the caller says how many samples it has.
    TrainingSetupRequest builtin;
    builtin.options.batch_size = 33;
    builtin.builtin_sample_count = 32;
    QVERIFY(Find(ValidateTrainingSetup(graph_.main(), builtin), SetupField::kBatchSize));
  }

  void metricMustReadTheTargetsItGets() {
    TrainingSetupRequest setup = filesSetup(10, 10, LossKind::kMse);
    setup.data.target = write(QStringLiteral("labels.bin"), 10);
    setup.options.loss = LossKind::kSparseCrossEntropy;
    setup.options.metric = MetricKind::kAccuracy;  // needs 4 floats, the labels have 1
    auto issues = ValidateTrainingSetup(graph_.main(), setup);
    const SetupIssue* issue = Find(issues, SetupField::kMetric);
    QVERIFY2(issue, qPrintable(Join(issues)));
    QVERIFY(issue->message.contains(QStringLiteral("accuracy needs 4")));
    // A test set of one-hot targets is what that metric reads instead.
    setup.data.test_inputs = {write(QStringLiteral("tx.bin"), 5 * 16)};
    setup.data.test_target = write(QStringLiteral("ty.bin"), 5 * 4);
    issues = ValidateTrainingSetup(graph_.main(), setup);
    QVERIFY2(issues.empty(), qPrintable(Join(issues)));
    setup.data.test_target = write(QStringLiteral("ty1.bin"), 5);
    QVERIFY(Find(ValidateTrainingSetup(graph_.main(), setup), SetupField::kTestTarget));
  }

  void missingFilesAreNamed() {
    TrainingSetupRequest setup = filesSetup(4, 4, LossKind::kMse);
    setup.data.inputs[0] = dir_.filePath(QStringLiteral("nowhere.bin"));
    setup.data.target.clear();
    setup.data.test_inputs = {setup.data.inputs[0]};
    const auto issues = ValidateTrainingSetup(graph_.main(), setup);
    QVERIFY(
        Find(issues, SetupField::kInput, 0)->message.contains(QStringLiteral("does not exist")));
    QVERIFY(Find(issues, SetupField::kTarget)->message.startsWith(QStringLiteral("choose")));
    QVERIFY(Find(issues, SetupField::kTarget)->message.contains(QStringLiteral("16 bytes")));
    QVERIFY(Find(issues, SetupField::kTestTarget));  // a test input without a test target
  }

  void inputFilesMustAgreeOnTheSampleCount() {
    const Graph two = MakeTwoInputGraph();
    TrainingSetupRequest setup;
    setup.use_builtin_data = false;
    setup.data.inputs = {write(QStringLiteral("l.bin"), 6 * 4),
                         write(QStringLiteral("r.bin"), 5 * 4)};
    setup.data.target = write(QStringLiteral("t.bin"), 6 * 4);
    const auto issues = ValidateTrainingSetup(two.main(), setup);
    const SetupIssue* issue = Find(issues, SetupField::kInput, 1);
    QVERIFY2(issue, qPrintable(Join(issues)));
    QVERIFY(issue->message.contains(QStringLiteral("input 1 'right'")));
    QVERIFY(issue->message.contains(QStringLiteral("holds 5 samples, input 0 holds 6")));
  }

  void dialogShowsIssuesUnderTheirFieldsAndBlocksOk() {
    TrainingSetupDialog dialog(graph_);
    TrainingSetupRequest setup = filesSetup(10, 10, LossKind::kMse);
    dialog.setSetup(setup);
    QPushButton* ok = dialog.buttons()->button(QDialogButtonBox::Ok);
    QVERIFY2(dialog.issues().empty(), qPrintable(Join(dialog.issues())));
    QVERIFY(ok->isEnabled());

    auto* lr = qobject_cast<QLineEdit*>(dialog.editor(SetupField::kLearningRate));
    QVERIFY(lr);
    lr->setText(QStringLiteral("fast"));
    QCOMPARE(dialog.message(SetupField::kLearningRate), QStringLiteral("'fast' is not a number."));
    QVERIFY(!ok->isEnabled());
    lr->setText(QStringLiteral("-1"));
    QVERIFY(
        dialog.message(SetupField::kLearningRate).startsWith(QStringLiteral("learning rate -1")));
    lr->setText(QStringLiteral("0.01"));
    QVERIFY(dialog.message(SetupField::kLearningRate).isEmpty());

    auto* input = qobject_cast<QLineEdit*>(dialog.editor(SetupField::kInput, 0));
    input->setText(write(QStringLiteral("short.bin"), 15));
    QVERIFY(dialog.message(SetupField::kInput, 0).contains(QStringLiteral("60 bytes")));
    QVERIFY(!ok->isEnabled());
    // The built-in data makes the files irrelevant (and disables them).
    dialog.builtinDataButton()->setChecked(true);
    QVERIFY(!input->isEnabled());
    QVERIFY(dialog.message(SetupField::kInput, 0).isEmpty());
    QVERIFY(ok->isEnabled());

    // Adam's knobs only matter for Adam.
    auto* optimizer = qobject_cast<QComboBox*>(dialog.editor(SetupField::kOptimizer));
    optimizer->setCurrentIndex(optimizer->findData(static_cast<int>(OptimizerKind::kSgd)));
    QVERIFY(!dialog.editor(SetupField::kBeta1)->isEnabled());
    qobject_cast<QLineEdit*>(dialog.editor(SetupField::kBeta1))->setText(QStringLiteral("2"));
    QVERIFY(ok->isEnabled());
    optimizer->setCurrentIndex(optimizer->findData(static_cast<int>(OptimizerKind::kAdam)));
    QVERIFY(dialog.editor(SetupField::kBeta1)->isEnabled());
    QVERIFY(dialog.message(SetupField::kBeta1).contains(QStringLiteral("[0, 1)")));
    QVERIFY(!ok->isEnabled());
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));  // accept() refuses while issues remain
  }

  void dialogRoundTripsEveryField() {
    TrainingSetupDialog dialog(graph_);
    dialog.setSetup(TrainingSetupRequest());
    dialog.filesButton()->setChecked(true);
    const QString x = write(QStringLiteral("x.bin"), 12 * 16);
    const QString y = write(QStringLiteral("y.bin"), 12 * 4);
    const QString tx = write(QStringLiteral("tx.bin"), 3 * 16);
    const QString ty = write(QStringLiteral("ty.bin"), 3 * 4);
    qobject_cast<QLineEdit*>(dialog.editor(SetupField::kInput, 0))->setText(x);
    qobject_cast<QLineEdit*>(dialog.editor(SetupField::kTarget))->setText(y);
    qobject_cast<QLineEdit*>(dialog.editor(SetupField::kTestInput, 0))->setText(tx);
    qobject_cast<QLineEdit*>(dialog.editor(SetupField::kTestTarget))->setText(ty);
    auto* optimizer = qobject_cast<QComboBox*>(dialog.editor(SetupField::kOptimizer));
    optimizer->setCurrentIndex(optimizer->findData(static_cast<int>(OptimizerKind::kAdam)));
    qobject_cast<QLineEdit*>(dialog.editor(SetupField::kLearningRate))
        ->setText(QStringLiteral("0.02"));
    qobject_cast<QLineEdit*>(dialog.editor(SetupField::kBeta1))->setText(QStringLiteral("0.8"));
    qobject_cast<QLineEdit*>(dialog.editor(SetupField::kBeta2))->setText(QStringLiteral("0.95"));
    qobject_cast<QLineEdit*>(dialog.editor(SetupField::kEpsilon))->setText(QStringLiteral("1e-6"));
    auto* loss = qobject_cast<QComboBox*>(dialog.editor(SetupField::kLoss));
    loss->setCurrentIndex(loss->findData(static_cast<int>(LossKind::kCrossEntropy)));
    auto* metric = qobject_cast<QComboBox*>(dialog.editor(SetupField::kMetric));
    metric->setCurrentIndex(metric->findData(static_cast<int>(MetricKind::kAccuracy)));
    qobject_cast<QSpinBox*>(dialog.editor(SetupField::kBatchSize))->setValue(4);
    qobject_cast<QSpinBox*>(dialog.editor(SetupField::kEpochs))->setValue(7);

    QVERIFY2(dialog.issues().empty(), qPrintable(Join(dialog.issues())));
    dialog.buttons()->button(QDialogButtonBox::Ok)->click();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    const TrainingSetupRequest got = dialog.setup();
    QVERIFY(!got.use_builtin_data);
    QCOMPARE(got.data.inputs, QStringList{x});
    QCOMPARE(got.data.target, y);
    QCOMPARE(got.data.test_inputs, QStringList{tx});
    QCOMPARE(got.data.test_target, ty);
    QCOMPARE(got.options.optimizer, OptimizerKind::kAdam);
    QCOMPARE(got.options.learning_rate, 0.02f);
    QCOMPARE(got.options.beta1, 0.8f);
    QCOMPARE(got.options.beta2, 0.95f);
    QCOMPARE(got.options.epsilon, 1e-6f);
    QCOMPARE(got.options.loss, LossKind::kCrossEntropy);
    QCOMPARE(got.options.metric, MetricKind::kAccuracy);
    QCOMPARE(got.options.batch_size, 4u);
    QCOMPARE(got.options.epochs, 7u);

    // Pre-filled from a setup, the dialog gives the same setup back.
    TrainingSetupDialog again(graph_);
    again.setSetup(got);
    const TrainingSetupRequest back = again.setup();
    QVERIFY(back.data == got.data);
    QCOMPARE(back.options.learning_rate, got.options.learning_rate);
    QCOMPARE(back.options.epsilon, got.options.epsilon);
    QCOMPARE(back.options.metric, got.options.metric);
    QCOMPARE(back.use_builtin_data, false);
  }

 private:
  QString write(const QString& name, size_t floats) {
    const QString path = dir_.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return QString();
    const std::vector<float> values = testing::Ramp(floats, 0.25f);
    file.write(reinterpret_cast<const char*>(values.data()),
               static_cast<qint64>(values.size() * sizeof(float)));
    return path;
  }

  // Inputs of 16 floats and targets of 4 (one-hot sized) per sample.
  TrainingSetupRequest filesSetup(size_t input_samples, size_t target_samples, LossKind loss) {
    TrainingSetupRequest setup;
    setup.use_builtin_data = false;
    setup.options.loss = loss;
    setup.options.metric = MetricKind::kMse;
    setup.data.inputs = {write(QStringLiteral("inputs.bin"), input_samples * 16)};
    setup.data.target = write(QStringLiteral("targets.bin"), target_samples * 4);
    return setup;
  }

  Graph graph_;
  QTemporaryDir dir_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::TrainingSetupTest)
#include "training_setup_test.moc"
