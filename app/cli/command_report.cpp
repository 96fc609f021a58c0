// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli report MODEL [--train-layers N | --train-config FILE | --inference]
// [--optimizer sgd|adam] [--batch N] --format json|csv|html|pdf|mondrian|chrome-trace -o FILE`:
// the memory report of one train step (or inference) written as a file. See docs/reports.md.
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QGuiApplication>

#include <cstdio>
#include <cstring>
#include <memory>

#include "app/cli/commands.h"
#include "app/common/cli_util.h"
#include "app/common/training_args.h"
#include "ui/report/report_export.h"

namespace trainscope::cli {

std::unique_ptr<QCoreApplication> CreateApplication(int& argc, char** argv) {
  // Only the PDF report draws text, but choosing the application before parsing keeps this
  // simple; a headless tool never needs a display, so the offscreen platform is the default.
  if (argc >= 2 && std::strcmp(argv[1], "report") == 0) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
      qputenv("QT_QPA_PLATFORM", QByteArrayLiteral("offscreen"));
    }
    return std::make_unique<QGuiApplication>(argc, argv);
  }
  return std::make_unique<QCoreApplication>(argc, argv);
}

int RunReport(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Writes the memory report of one train step or inference."));
  AddStepPlanOptions(&parser);
  parser.addOption({QStringLiteral("format"),
                    QStringLiteral("json, csv, html, pdf, mondrian, chrome-trace or png."),
                    QStringLiteral("FORMAT")});
  parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                    QStringLiteral("The file to write (csv also writes <name>.buffers.csv)."),
                    QStringLiteral("FILE")});
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) return exit_status;
  if (parser.positionalArguments().size() != 1) {
    return Fail(QStringLiteral("report takes exactly one MODEL file"), 2);
  }
  if (!parser.isSet(QStringLiteral("format")) || !parser.isSet(QStringLiteral("output"))) {
    return Fail(QStringLiteral("report needs --format %1 and -o FILE")
                    .arg(QString::fromLatin1(ReportFormatList())),
                2);
  }
  ReportFormat format;
  if (!ParseReportFormat(parser.value(QStringLiteral("format")).toStdString(), &format)) {
    return Fail(
        QStringLiteral("--format '%1': expected %2")
            .arg(parser.value(QStringLiteral("format")), QString::fromLatin1(ReportFormatList())),
        2);
  }
  StepPlan plan;
  Status status = LoadStepPlan(parser, &plan);
  if (!status.ok()) return Fail(status);
  const QString model_path = parser.positionalArguments().first();

  ReportData data;
  status = BuildReportData(plan.model.graph(), QFileInfo(model_path).fileName().toStdString(),
                           plan.trainability, plan.options, &data);
  if (!status.ok()) return Fail(status);
  std::vector<std::string> written;
  status =
      WriteReport(data, format, parser.value(QStringLiteral("output")).toStdString(), &written);
  if (!status.ok()) return Fail(status);
  for (const std::string& path : written) {
    std::printf("wrote %s (%s, %lld bytes)\n", path.c_str(), ReportFormatName(format),
                static_cast<long long>(QFileInfo(QString::fromStdString(path)).size()));
  }
  std::printf("heap peak %llu bytes at tick %u, planned arena %llu bytes, lower bound %llu bytes\n",
              static_cast<unsigned long long>(data.memory.heap_peak_bytes),
              data.memory.heap_peak_tick, static_cast<unsigned long long>(data.memory.arena_bytes),
              static_cast<unsigned long long>(data.memory.lower_bound_bytes));
  return 0;
}

}  // namespace trainscope::cli
