// SPDX-License-Identifier: Apache-2.0
//
// "Export memory report…": the report `trainscope-cli report` writes (ui/report), for the model
// in the panel, the choice it previews (the pending one, equal to the applied one when nothing is
// pending) and the optimizer and batch of setTrainingOptions(). Same inputs, same bytes as the
// command line.
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>

#include <string>
#include <vector>

#include "ui/report/report_export.h"
#include "ui/widgets/layers/layers_model.h"
#include "ui/widgets/layers/layers_panel.h"

namespace trainscope {
namespace {

struct ReportFileType {
  ReportFormat format;
  const char* filter;
  const char* suffix;  // longest first among the .json ones, so "x.trace.json" is not plain JSON
};

constexpr ReportFileType kReportFileTypes[] = {
    {ReportFormat::kHtml, "HTML report (*.html)", ".html"},
    {ReportFormat::kPdf, "PDF report (*.pdf)", ".pdf"},
    {ReportFormat::kMondrian, "Mondrian allocation trace for ONE-vscode (*.tracealloc.json)",
     ".tracealloc.json"},
    {ReportFormat::kChromeTrace, "Chrome trace / Perfetto (*.trace.json)", ".trace.json"},
    {ReportFormat::kJson, "JSON report (*.json)", ".json"},
    {ReportFormat::kCsv, "CSV, per tick and per buffer (*.csv)", ".csv"},
    {ReportFormat::kPng, "PNG plots (*.png)", ".png"},
};

}  // namespace

bool ReportFormatForPath(const QString& path, ReportFormat* format) {
  for (const ReportFileType& type : kReportFileTypes) {
    if (path.endsWith(QLatin1String(type.suffix), Qt::CaseInsensitive)) {
      *format = type.format;
      return true;
    }
  }
  return false;
}

Status LayersPanel::exportMemoryReport(const QString& path, ReportFormat format) const {
  const Graph& graph = model_->graph();
  if (graph.subgraphs.empty()) {
    return report(Status::Error(StatusCode::kInvalidArgument, "no model is loaded"), QString());
  }
  MemoryReportOptions options;
  options.optimizer = training_options_.optimizer;
  options.batch_size = training_options_.batch_size;
  const QString name =
      model_file_.isEmpty() ? QStringLiteral("model") : QFileInfo(model_file_).fileName();
  ReportData report_data;
  Status status =
      BuildReportData(graph, name.toStdString(), pendingTrainability(), options, &report_data);
  std::vector<std::string> written;
  if (status.ok()) status = WriteReport(report_data, format, path.toStdString(), &written);
  if (!status.ok()) return report(std::move(status), QString());
  QStringList files;
  for (const std::string& file : written) files << QString::fromStdString(file);
  return report(Status::Ok(), tr("Wrote the %1 memory report (%2): %3")
                                  .arg(QString::fromLatin1(ReportFormatName(format)),
                                       QString::fromStdString(report_data.trainability_text),
                                       files.join(QStringLiteral(", "))));
}

void LayersPanel::exportMemoryReportDialog() {
  QStringList filters;
  for (const ReportFileType& type : kReportFileTypes) filters << tr(type.filter);
  const QFileInfo model(model_file_);
  const QString suggestion =
      model_file_.isEmpty()
          ? QStringLiteral("memory-report.html")
          : model.dir().filePath(model.completeBaseName() + QStringLiteral("-memory.html"));
  QString selected = filters.front();
  QString path = QFileDialog::getSaveFileName(this, tr("Export Memory Report"), suggestion,
                                              filters.join(QStringLiteral(";;")), &selected);
  if (path.isEmpty()) return;
  // The file name decides when it names a format; else the chosen filter does, and its suffix
  // is added so that the file opens with the right program.
  ReportFormat format;
  if (!ReportFormatForPath(path, &format)) {
    const int chosen = static_cast<int>(filters.indexOf(selected));
    const ReportFileType& type = kReportFileTypes[chosen >= 0 ? chosen : 0];
    format = type.format;
    path += QLatin1String(type.suffix);
  }
  QApplication::setOverrideCursor(Qt::WaitCursor);
  static_cast<void>(exportMemoryReport(path, format));  // the label under the buttons says how
  QApplication::restoreOverrideCursor();
}

}  // namespace trainscope
