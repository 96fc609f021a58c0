// SPDX-License-Identifier: Apache-2.0
//
// Report exporters: one ReportData (report_data.h) written as
//   json          TrainScope's documented report schema (docs/reports.md)
//   csv           per-tick live bytes by category; a companion "<name>.buffers.csv" lists every
//                 buffer's lifetime, offset and size
//   html          one self-contained page with inline SVG plots (no external resources)
//   pdf           the same content as the HTML, drawn with QPdfWriter (needs a QGuiApplication;
//                 QT_QPA_PLATFORM=offscreen works without a display)
//   mondrian      *.tracealloc.json for ONE-vscode's Mondrian viewer (schema_version 1)
//   chrome-trace  Trace Event JSON (Perfetto, chrome://tracing): the step timeline, buffer
//                 lifetimes and memory counters
//   png           the two plots of the HTML/PDF report, one above the other (QGuiApplication)
// The renderers are pure functions of the data, without timestamps, so the same inputs give the
// same bytes (except the creation date QPdfWriter stamps into a PDF). Files are written through
// QSaveFile: a failed export never leaves a partial file behind.
//
//   ReportFormat format;
//   if (!ParseReportFormat("html", &format)) ...;
//   std::vector<std::string> written;
//   TS_RETURN_IF_ERROR(WriteReport(data, format, "report.html", &written));
#pragma once

#include <QByteArray>

#include <string>
#include <vector>

#include "engine/core/status.h"
#include "ui/report/report_data.h"

namespace trainscope {

enum class ReportFormat : uint8_t { kJson, kCsv, kHtml, kPdf, kMondrian, kChromeTrace, kPng };

const char* ReportFormatName(ReportFormat format);  // "json", ..., "chrome-trace"
bool ParseReportFormat(const std::string& name, ReportFormat* format);
const char* ReportFormatList();  // "json|csv|html|pdf|mondrian|chrome-trace|png"

QByteArray RenderReportJson(const ReportData& data);
QByteArray RenderTicksCsv(const ReportData& data);
QByteArray RenderBuffersCsv(const ReportData& data);
QByteArray RenderReportHtml(const ReportData& data);
// `pages` (may be null) receives the page count.
Status RenderReportPdf(const ReportData& data, QByteArray* pdf, int* pages = nullptr);
QByteArray RenderMondrian(const ReportData& data);
QByteArray RenderChromeTrace(const ReportData& data);
// `scale` 2 doubles the pixels of the plots' nominal size (for high-density screens).
Status RenderPlotsPng(const ReportData& data, double scale, QByteArray* png);

// "out.csv" -> "out.buffers.csv"; a path without ".csv" gets ".buffers.csv" appended.
std::string BuffersCsvPath(const std::string& path);

// Writes the file(s) of `format`; `written` (may be null) receives their paths. Errors name the
// path (kIoError).
Status WriteReport(const ReportData& data, ReportFormat format, const std::string& path,
                   std::vector<std::string>* written = nullptr);

}  // namespace trainscope
