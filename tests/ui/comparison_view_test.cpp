// SPDX-License-Identifier: Apache-2.0
//
// The comparison view on a small diff report: the thresholds start at the file's and decide
// divergence again as they are edited (a lower rel L2 limit marks a tensor and moves the first
// divergent op), a bad threshold is refused with the reason, the values panel shows the selected
// tensor's counts (NaN included) and charts, and in the window the graph marks the first
// divergent op and follows the selection; a report of another model says why the graph cannot.
#include <QApplication>
#include <QDir>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <limits>

#include "tests/ui/test_files.h"
#include "tests/ui/test_models.h"
#include "ui/controllers/comparison_controller.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/comparison/comparison_model.h"
#include "ui/widgets/comparison/comparison_values.h"
#include "ui/widgets/comparison/comparison_view.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/main_window/main_window.h"

namespace trainscope {
namespace {

// MakeMlp({4, 2}): op 1 SOFTMAX, op 0 FULLY_CONNECTED. Softmax's output gradient is 2e-5 off
// (rel L2), with a NaN on the board; the dense layer's weight gradient 5e-4 off.
QByteArray Report(const QString& model) {
  QByteArray json =
      "{\n"
      "  \"board\": \"trainscope-board-sim\", \"endpoint\": \"tcp://127.0.0.1:4000\", \"model\": "
      "\"MODEL\",\n"
      "  \"step\": 3, \"thresholds\": {\"relative_l2\": 0.0001, \"max_abs\": \"inf\", "
      "\"min_cosine\": -1},\n"
      "  \"ops\": [\n"
      "    {\"op\": 1, \"opcode\": \"SOFTMAX\", \"backward_step\": 0, \"divergent\": false, "
      "\"tensors\": [\n"
      "      {\"tensor\": 4, \"name\": \"dense1/softmax\", \"role\": \"output gradient\", "
      "\"aspect\": \"gradient\",\n"
      "       \"sample\": 0, \"board_held\": true, \"reference_held\": true, \"divergent\": "
      "false,\n"
      "       \"shape\": [1, 3], \"shape_matches\": true, \"count\": 2, \"max_abs\": 0.00001, "
      "\"max_abs_index\": 1,\n"
      "       \"rmse\": 0.000007, \"relative_l2\": 0.00002, \"cosine\": 1, \"max_ulp\": 84,\n"
      "       \"nonfinite_mismatches\": 0, \"board_nonfinite\": 1, \"reference_nonfinite\": 1,\n"
      "       \"board_values\": [0.25, -0.5, \"nan\"], \"reference_values\": [0.25, -0.50001, "
      "\"nan\"]}]},\n"
      "    {\"op\": 0, \"opcode\": \"FULLY_CONNECTED\", \"backward_step\": 1, \"divergent\": true, "
      "\"tensors\": [\n"
      "      {\"tensor\": 1, \"name\": \"dense1/w\", \"role\": \"weights gradient\", \"aspect\": "
      "\"gradient\",\n"
      "       \"sample\": 0, \"board_held\": true, \"reference_held\": true, \"divergent\": true,\n"
      "       \"shape\": [2, 4], \"shape_matches\": true, \"count\": 8, \"max_abs\": 0.001, "
      "\"max_abs_index\": 3,\n"
      "       \"rmse\": 0.0004, \"relative_l2\": 0.0005, \"cosine\": 0.99999, \"max_ulp\": 9000,\n"
      "       \"nonfinite_mismatches\": 0, \"board_nonfinite\": 0, \"reference_nonfinite\": 0,\n"
      "       \"board_values\": [1, 2, 3, 4.001, 5, 6, 7, 8], \"reference_values\": [1, 2, 3, 4, "
      "5, 6, 7, 8]}]}],\n"
      "  \"update\": [],\n"
      "  \"compared\": 2, \"held_on_one_side\": 0,\n"
      "  \"transfer\": {\"requests\": 2, \"not_held\": 0, \"values\": 11, \"chunks\": 2, "
      "\"payload_bytes\": 44,\n"
      "               \"wire_bytes\": 80, \"seconds\": 0.0015},\n"
      "  \"first_divergent_op\": 0,\n"
      "  \"first_divergent\": {\"op\": 0, \"moment\": \"backward\",\n"
      "                      \"known_onert_differences\": [\"a made-up known difference\"]}\n"
      "}\n";
  return json.replace("MODEL", model.toUtf8());
}

StepComparisonPtr Parse(const QByteArray& json) {
  StepComparisonPtr file;
  const Status status = ParseStepComparison(json, &file);
  if (!status.ok()) qWarning("%s", status.message());
  return file;
}

}  // namespace

class ComparisonViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void lowerRelativeL2MovesTheFirstDivergentOp() {
    ComparisonView view;
    QSignalSpy first(&view, &ComparisonView::firstDivergentOpChanged);
    const StepComparisonPtr file = Parse(Report(QStringLiteral("/nowhere/m.circle")));
    QVERIFY(file != nullptr);
    view.setComparison(file, QStringLiteral("report.json"));
    QCOMPARE(view.thresholdEdit(ComparisonView::kRelativeL2Edit)->text(), QStringLiteral("0.0001"));
    QCOMPARE(view.thresholdEdit(ComparisonView::kMaxAbsEdit)->text(), QStringLiteral("inf"));
    QCOMPARE(view.verdict().first_divergent_op, 0);
    QVERIFY(view.headlineText().contains(QStringLiteral("First divergent: op #0 FULLY_CONNECTED")));
    QVERIFY(view.headlineText().contains(QStringLiteral("a made-up known difference")));
    ComparisonModel* model = view.model();
    const QModelIndex softmax = model->indexOfTensor(0);
    QCOMPARE(
        model->index(softmax.row(), ComparisonModel::kVerdict, softmax.parent()).data().toString(),
        QStringLiteral("within"));

    QLineEdit* edit = view.thresholdEdit(ComparisonView::kRelativeL2Edit);
    edit->setText(QStringLiteral("1e-5"));
    Q_EMIT edit->editingFinished();
    QCOMPARE(view.verdict().first_divergent_op, 1);
    QCOMPARE(first.last().at(0).toInt(), 1);
    QCOMPARE(model->index(softmax.row(), ComparisonModel::kRelativeL2, softmax.parent())
                 .data()
                 .toString(),
             QStringLiteral("2e-05 > 1e-05"));
    QCOMPARE(
        model->index(softmax.row(), ComparisonModel::kVerdict, softmax.parent()).data().toString(),
        QStringLiteral("FIRST DIVERGENT"));
    QCOMPARE(model->index(0, ComparisonModel::kVerdict).data().toString(),
             QStringLiteral("FIRST DIVERGENT (1)"));
    QVERIFY(view.headlineText().contains(QStringLiteral("op #1 SOFTMAX")));
    // Not the op the file names its known differences at.
    QVERIFY(view.headlineText().contains(QStringLiteral("only at op #0")));

    // A newer report lists the known differences per op: the headline names SOFTMAX's.
    {
      QByteArray per_op = Report(QStringLiteral("/nowhere/m.circle"));
      per_op.replace("\"opcode\": \"SOFTMAX\",",
                     "\"opcode\": \"SOFTMAX\", \"known_onert_differences\": [\"beta is not 1\"],");
      ComparisonView other;
      other.setComparison(Parse(per_op), QStringLiteral("per-op.json"));
      other.setThresholds({1e-5, std::numeric_limits<double>::infinity(),
                           std::numeric_limits<uint64_t>::max(), -1.0});
      QCOMPARE(other.verdict().first_divergent_op, 1);
      QVERIFY2(other.headlineText().contains(QStringLiteral("beta is not 1")),
               qPrintable(other.headlineText()));
    }

    // An ulp limit alone puts both in; Reset takes the file's thresholds back.
    edit->setText(QStringLiteral("1"));
    Q_EMIT edit->editingFinished();
    QCOMPARE(view.verdict().first_divergent_op, -1);
    QVERIFY(view.headlineText().contains(QStringLiteral("Nothing diverges")));
    view.setThresholds(file->thresholds);
    QCOMPARE(view.verdict().first_divergent_op, 0);
  }

  void aBadThresholdIsRefusedWithTheReason() {
    ComparisonView view;
    view.setComparison(Parse(Report(QStringLiteral("/nowhere/m.circle"))),
                       QStringLiteral("r.json"));
    QLineEdit* cosine = view.thresholdEdit(ComparisonView::kMinCosineEdit);
    cosine->setText(QStringLiteral("2"));
    Q_EMIT cosine->editingFinished();
    QVERIFY(view.thresholdErrorText().contains(
        QStringLiteral("cosine '2' is not a number from -1 to 1")));
    QCOMPARE(cosine->text(), QStringLiteral("-1"));
    QCOMPARE(view.thresholds().min_cosine, -1.0);
  }

  void theValuesPanelShowsTheSelectedTensor() {
    ComparisonView view;
    view.resize(900, 700);
    view.show();
    view.setComparison(Parse(Report(QStringLiteral("/nowhere/m.circle"))),
                       QStringLiteral("r.json"));
    // Opened at the first divergent tensor: the dense weights, a 2×4 matrix.
    QCOMPARE(view.selectedTensor(), 1);
    QVERIFY(view.values()->showsHeatmap());
    QVERIFY(
        view.values()->countsText().contains(QStringLiteral("8 values: 8 finite on both sides")));
    QVERIFY(view.values()->countsText().contains(
        QStringLiteral("at element 3 (board 4.00099993, reference 4)")));
    QCOMPARE(view.values()->plottedPoints(), 3 * 8);

    view.selectTensor(0);
    QVERIFY(!view.values()->showsHeatmap());
    const QString counts = view.values()->countsText();
    QVERIFY(counts.contains(QStringLiteral("3 values: 2 finite on both sides")));
    QVERIFY(counts.contains(QStringLiteral("NaN/Inf: board 1, reference 1, mismatched 0")));
    QCOMPARE(view.values()->plottedPoints(), 3);
    QCOMPARE(view.values()->seriesPlot()->graph(2)->data()->size(), 1);  // the board's NaN
    QVERIFY(view.transferText().contains(QStringLiteral("2 tensors asked")));
    QVERIFY(view.transferText().contains(QStringLiteral("80 B on the line")));
  }

  void theGraphMarksTheFirstDivergentOpAndFollowsTheSelection() {
    QTemporaryDir dir;
    const QString model_path = dir.filePath(QStringLiteral("mlp.circle"));
    QVERIFY(testing::WriteAll(model_path, testing::MakeMlpBytes({4, 2})));
    const QString report = dir.filePath(QStringLiteral("report.json"));
    QVERIFY(testing::WriteAll(report, Report(model_path)));

    MainWindow window;
    window.setStore(std::make_shared<SessionStore>());
    SessionModel session;
    session.graph = testing::MakeMlp({4, 2});
    session.path = model_path;
    window.sessionHost()->showModel(session);
    ComparisonController comparison;
    comparison.install(&window);
    const Status opened = comparison.open(report);
    QVERIFY2(opened.ok(), opened.message());
    QVERIFY(comparison.linked());
    QCOMPARE(window.graphView()->divergentOp(), 0);
    QVERIFY(window.graphView()->lookOfOp(0)->divergent);
    QVERIFY(!window.graphView()->lookOfOp(1)->divergent);

    comparison.view()->selectOp(1);
    QCOMPARE(window.graphView()->selectedOps(), QList<int>{1});
    QLineEdit* edit = comparison.view()->thresholdEdit(ComparisonView::kRelativeL2Edit);
    edit->setText(QStringLiteral("1e-5"));
    Q_EMIT edit->editingFinished();
    QCOMPARE(window.graphView()->divergentOp(), 1);

    // A report of a model that is not on this machine: shown, the graph left alone.
    const QString elsewhere = dir.filePath(QStringLiteral("elsewhere.json"));
    QVERIFY(testing::WriteAll(elsewhere, Report(QStringLiteral("/nowhere/other.circle"))));
    session.graph = testing::MakeMlp({4, 3, 2});
    session.path = dir.filePath(QStringLiteral("other-shape.circle"));
    window.sessionHost()->showModel(session);
    QVERIFY(comparison.open(elsewhere).ok());
    QVERIFY(!comparison.linked());
    QCOMPARE(window.graphView()->divergentOp(), -1);
    QVERIFY(comparison.view()->noteText().contains(
        QStringLiteral("/nowhere/other.circle, which is not on this machine")));

    StepComparisonPtr refused;
    QVERIFY(testing::WriteAll(elsewhere, QByteArray("{\"board\": 1}")));
    QCOMPARE(QString::fromUtf8(comparison.open(elsewhere).message()),
             QStringLiteral("elsewhere.json: board: expected a string, found a number"));
  }
};

}  // namespace trainscope

QTEST_MAIN(trainscope::ComparisonViewTest)
#include "comparison_view_test.moc"
