// SPDX-License-Identifier: Apache-2.0
#include "ui/report/report_export.h"

#include <QString>

#include <cstring>

#include "engine/model/file_io.h"

namespace trainscope {
namespace {

struct FormatName {
  ReportFormat format;
  const char* name;
};
constexpr FormatName kFormats[] = {{ReportFormat::kJson, "json"},
                                   {ReportFormat::kCsv, "csv"},
                                   {ReportFormat::kHtml, "html"},
                                   {ReportFormat::kPdf, "pdf"},
                                   {ReportFormat::kMondrian, "mondrian"},
                                   {ReportFormat::kChromeTrace, "chrome-trace"},
                                   {ReportFormat::kPng, "png"}};

Status WriteAtomically(const std::string& path, const QByteArray& bytes) {
  return WriteFileAtomically(path, reinterpret_cast<const uint8_t*>(bytes.constData()),
                             static_cast<size_t>(bytes.size()));
}

}  // namespace

const char* ReportFormatName(ReportFormat format) {
  for (const FormatName& entry : kFormats) {
    if (entry.format == format) return entry.name;
  }
  return "unknown";
}

bool ParseReportFormat(const std::string& name, ReportFormat* format) {
  for (const FormatName& entry : kFormats) {
    if (name == entry.name) {
      *format = entry.format;
      return true;
    }
  }
  return false;
}

const char* ReportFormatList() {
  return "json|csv|html|pdf|mondrian|chrome-trace|png";
}

std::string BuffersCsvPath(const std::string& path) {
  const std::string extension = ".csv";
  if (path.size() > extension.size() &&
      path.compare(path.size() - extension.size(), extension.size(), extension) == 0) {
    return path.substr(0, path.size() - extension.size()) + ".buffers.csv";
  }
  return path + ".buffers.csv";
}

Status WriteReport(const ReportData& data, ReportFormat format, const std::string& path,
                   std::vector<std::string>* written) {
  std::vector<std::pair<std::string, QByteArray>> files;
  switch (format) {
    case ReportFormat::kJson:
      files.emplace_back(path, RenderReportJson(data));
      break;
    case ReportFormat::kCsv:
      files.emplace_back(path, RenderTicksCsv(data));
      files.emplace_back(BuffersCsvPath(path), RenderBuffersCsv(data));
      break;
    case ReportFormat::kHtml:
      files.emplace_back(path, RenderReportHtml(data));
      break;
    case ReportFormat::kPdf: {
      QByteArray pdf;
      TS_RETURN_IF_ERROR(RenderReportPdf(data, &pdf));
      files.emplace_back(path, pdf);
      break;
    }
    case ReportFormat::kMondrian:
      files.emplace_back(path, RenderMondrian(data));
      break;
    case ReportFormat::kChromeTrace:
      files.emplace_back(path, RenderChromeTrace(data));
      break;
    case ReportFormat::kPng: {
      QByteArray png;
      TS_RETURN_IF_ERROR(RenderPlotsPng(data, 2.0, &png));
      files.emplace_back(path, png);
      break;
    }
  }
  for (const auto& file : files) {
    TS_RETURN_IF_ERROR(WriteAtomically(file.first, file.second));
    if (written != nullptr) written->push_back(file.first);
  }
  return Status::Ok();
}

}  // namespace trainscope
