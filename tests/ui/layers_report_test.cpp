// SPDX-License-Identifier: Apache-2.0
//
// "Export memory report…" in the layers panel: the report of the pending choice, with the
// panel's optimizer and batch, in the bytes `trainscope-cli report` writes for the same choice
// (when the CLI is built); the numbers equal the memory planner's; the format follows the file
// name; a path that cannot be written fails with a message that names it and leaves no file.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "engine/memory/memory_report.h"
#include "engine/plan/train_config_file.h"
#include "tests/ui/test_files.h"
#include "tests/ui/test_models.h"
#include "ui/widgets/layers/layers_panel.h"

namespace trainscope {
namespace {

using testing::ReadAll;
using testing::WriteAll;

}  // namespace

class LayersReportTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    QVERIFY(dir_.isValid());
    model_path_ = dir_.filePath(QStringLiteral("mlp.circle"));
    const std::vector<uint8_t> bytes = testing::MakeMlpBytes({16, 24, 12, 4});
    QVERIFY(!bytes.empty());
    QVERIFY(WriteAll(model_path_, bytes));
    QVERIFY(ReadModelFile(model_path_.toStdString(), &model_).ok());
    options_.optimizer = OptimizerKind::kAdam;
    options_.batch_size = 2;
  }

  void theReportDescribesThePendingChoiceWithThePanelsOptions() {
    LayersPanel panel;
    panel.setGraph(model_.graph());
    panel.setModelFile(model_path_);
    panel.setTrainingOptions(options_);
    // Pending, not applied: only the last FULLY_CONNECTED (op 4) trains, and only its bias.
    const QString config_path = dir_.filePath(QStringLiteral("bias.cfg"));
    std::vector<uint8_t> config_bytes;
    QVERIFY(WriteTrainConfig({{4, TrainRank::kOnlyBias}}, &config_bytes).ok());
    QVERIFY(WriteAll(config_path, config_bytes));
    QVERIFY(panel.loadTrainConfig(config_path).ok());
    QVERIFY(panel.appliedTrainability().op_ranks.empty());

    const QString json_path = dir_.filePath(QStringLiteral("panel.json"));
    QVERIFY(panel.exportMemoryReport(json_path, ReportFormat::kJson).ok());
    QVERIFY2(panel.fileMessageLabel()->text().contains(json_path),
             qPrintable(panel.fileMessageLabel()->text()));
    const QJsonObject report = QJsonDocument::fromJson(ReadAll(json_path)).object();
    QVERIFY(!report.isEmpty());

    MemoryReportOptions memory;
    memory.optimizer = OptimizerKind::kAdam;
    memory.batch_size = 2;
    MemoryReport pending, everything;
    QVERIFY(
        ComputeMemoryReport(model_.graph(), panel.pendingTrainability(), memory, &pending).ok());
    QVERIFY(ComputeMemoryReport(model_.graph(), TrainabilityConfig(), memory, &everything).ok());
    QVERIFY(pending.heap_peak_bytes < everything.heap_peak_bytes);  // the choice matters
    const QString text = QString::fromUtf8(ReadAll(json_path));
    QVERIFY2(text.contains(QStringLiteral("\"heap_peak_bytes\": %1").arg(pending.heap_peak_bytes)),
             qPrintable(text.left(2000)));
    QVERIFY(text.contains(QStringLiteral("\"arena_bytes\": %1").arg(pending.arena_bytes)));

#ifdef TRAINSCOPE_CLI
    // The command line writes the same bytes for the same model, choice and options.
    const QString cli_path = dir_.filePath(QStringLiteral("cli.json"));
    QProcess cli;
    cli.start(QStringLiteral(TRAINSCOPE_CLI),
              {QStringLiteral("report"), model_path_, QStringLiteral("--train-config"), config_path,
               QStringLiteral("--optimizer"), QStringLiteral("adam"), QStringLiteral("--batch"),
               QStringLiteral("2"), QStringLiteral("--format"), QStringLiteral("json"),
               QStringLiteral("-o"), cli_path});
    QVERIFY(cli.waitForFinished(30000));
    QCOMPARE(cli.exitCode(), 0);
    QCOMPARE(ReadAll(json_path), ReadAll(cli_path));
#endif

    // Other formats through the same call: a self-contained page and the two CSV files.
    const QString html_path = dir_.filePath(QStringLiteral("panel.html"));
    QVERIFY(panel.exportMemoryReport(html_path, ReportFormat::kHtml).ok());
    QVERIFY(ReadAll(html_path).contains("mlp.circle"));
    QVERIFY(panel.exportMemoryReport(dir_.filePath(QStringLiteral("panel.csv")), ReportFormat::kCsv)
                .ok());
    QVERIFY(QFile::exists(dir_.filePath(QStringLiteral("panel.buffers.csv"))));
  }

  void anUnwritablePathFailsWithItsNameAndLeavesNoFile() {
    LayersPanel panel;
    panel.setGraph(model_.graph());
    panel.setModelFile(model_path_);
    const QString path = dir_.filePath(QStringLiteral("missing/dir/report.json"));
    const Status status = panel.exportMemoryReport(path, ReportFormat::kJson);
    QVERIFY(!status.ok());
    QVERIFY2(panel.fileMessageLabel()->text().contains(QStringLiteral("missing/dir")),
             qPrintable(panel.fileMessageLabel()->text()));
    QVERIFY(!QFile::exists(path));
  }

  void withoutAModelNothingIsWritten() {
    LayersPanel panel;
    const QString path = dir_.filePath(QStringLiteral("empty.json"));
    QVERIFY(!panel.exportMemoryReport(path, ReportFormat::kJson).ok());
    QVERIFY(!QFile::exists(path));
  }

  void theFileNameChoosesTheFormat() {
    const std::pair<const char*, ReportFormat> cases[] = {
        {"a/report.html", ReportFormat::kHtml},
        {"report.PDF", ReportFormat::kPdf},
        {"step.tracealloc.json", ReportFormat::kMondrian},
        {"step.trace.json", ReportFormat::kChromeTrace},
        {"step.json", ReportFormat::kJson},
        {"ticks.csv", ReportFormat::kCsv},
        {"plots.png", ReportFormat::kPng},
    };
    for (const auto& [name, want] : cases) {
      ReportFormat format = ReportFormat::kPng;
      QVERIFY2(ReportFormatForPath(QString::fromLatin1(name), &format), name);
      QCOMPARE(static_cast<int>(format), static_cast<int>(want));
    }
    ReportFormat format;
    QVERIFY(!ReportFormatForPath(QStringLiteral("report"), &format));
    QVERIFY(!ReportFormatForPath(QStringLiteral("report.txt"), &format));
  }

 private:
  QTemporaryDir dir_;
  QString model_path_;
  Model model_;
  TrainingOptions options_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::LayersReportTest)
#include "layers_report_test.moc"
