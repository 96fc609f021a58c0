// SPDX-License-Identifier: Apache-2.0
//
// The HTML report: one self-contained page (inline CSS and SVG, no scripts, no external files).
#include "ui/report/report_document.h"
#include "ui/report/report_export.h"
#include "ui/report/report_plots.h"

namespace trainscope {
namespace {

constexpr char kStyle[] = R"(
body { font-family: "DejaVu Sans", Verdana, sans-serif; color: #28282f; margin: 24px auto;
       max-width: 1000px; padding: 0 16px; font-size: 14px; line-height: 1.45; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #d8d8de; padding-bottom: 3px; }
table { border-collapse: collapse; font-size: 12.5px; margin: 8px 0; }
th, td { padding: 3px 9px; border-bottom: 1px solid #e4e4ea; text-align: left; vertical-align: top; }
th { background: #f0f0f4; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.highlight td { background: #fde6e4; font-weight: 600; }
.scroll { overflow-x: auto; }
svg { max-width: 100%; height: auto; }
ul.notes li { color: #8a5a00; }
)";

std::string TableHtml(const ReportTable& table) {
  auto cell_class = [&table](size_t column) {
    return column < table.numeric.size() && table.numeric[column] ? " class=\"num\"" : "";
  };
  std::string out = "<div class=\"scroll\"><table>\n<thead><tr>";
  for (size_t c = 0; c < table.header.size(); ++c) {
    out += std::string("<th") + cell_class(c) + ">" + XmlEscape(table.header[c]) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    out += static_cast<int>(r) == table.highlight_row ? "<tr class=\"highlight\">" : "<tr>";
    for (size_t c = 0; c < table.rows[r].size(); ++c) {
      out += std::string("<td") + cell_class(c) + ">" + XmlEscape(table.rows[r][c]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

}  // namespace

QByteArray RenderReportHtml(const ReportData& data) {
  const ReportDocument document = BuildReportDocument(data);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"generator\" content=\"" +
      XmlEscape(data.generator) + "\">\n<title>" + XmlEscape(document.title) + "</title>\n<style>" +
      kStyle + "</style>\n</head>\n<body>\n";
  for (const ReportBlock& block : document.blocks) {
    switch (block.kind) {
      case ReportBlock::Kind::kTitle:
        out += "<h1>" + XmlEscape(block.text) + "</h1>\n";
        break;
      case ReportBlock::Kind::kHeading:
        out += "<h2>" + XmlEscape(block.text) + "</h2>\n";
        break;
      case ReportBlock::Kind::kParagraph:
        out += "<p>" + XmlEscape(block.text) + "</p>\n";
        break;
      case ReportBlock::Kind::kTable:
        out += TableHtml(block.table);
        break;
      case ReportBlock::Kind::kPlot:
        out += "<figure>\n" + RenderSvg(block.plot) + "</figure>\n";
        break;
      case ReportBlock::Kind::kNotes:
        out += "<ul class=\"notes\">\n";
        for (const std::string& note : block.notes) out += "<li>" + XmlEscape(note) + "</li>\n";
        out += "</ul>\n";
        break;
    }
  }
  out += "</body>\n</html>\n";
  return QByteArray::fromStdString(out);
}

}  // namespace trainscope
