// SPDX-License-Identifier: Apache-2.0
//
// ReportDocument: the human-readable report (HTML and PDF) as a list of blocks - headings,
// paragraphs, tables, plots and notes - built once from ReportData. The HTML and PDF renderers
// only lay the blocks out, so both show the same sections, tables and numbers.
//
//   ReportDocument document = BuildReportDocument(data);
//   QByteArray html = RenderHtml(document);
#pragma once

#include <string>
#include <vector>

#include "ui/report/report_data.h"
#include "ui/report/report_plots.h"

namespace trainscope {

struct ReportTable {
  std::vector<std::string> header;
  std::vector<bool> numeric;  // right-aligned columns
  std::vector<std::vector<std::string>> rows;
  int highlight_row = -1;  // e.g. the tick of the heap peak
};

struct ReportBlock {
  enum class Kind : uint8_t { kTitle, kHeading, kParagraph, kTable, kPlot, kNotes };
  Kind kind = Kind::kParagraph;
  std::string text;  // title, heading, paragraph
  ReportTable table;
  PlotScene plot;
  std::vector<std::string> notes;
};

struct ReportDocument {
  std::string title;
  std::vector<ReportBlock> blocks;
};

inline constexpr double kReportPlotWidth = 760;

ReportDocument BuildReportDocument(const ReportData& data);

}  // namespace trainscope
