// SPDX-License-Identifier: Apache-2.0
//
// Report exporters on the demo model and the simple_mnist fixture: every format is produced,
// parses, and carries the numbers ComputeMemoryReport computed.
#include <gtest/gtest.h>

#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <map>
#include <numeric>

#include "engine/model/model.h"
#include "tests/common/fixtures.h"
#include "tests/report/report_test_util.h"
#include "ui/report/report_document.h"
#include "ui/report/report_export.h"

namespace trainscope {
namespace {

using testing::Cases;
using testing::CsvRows;
using testing::ReportCase;

TEST(ReportData, TickCategoriesAddUpToTheHeapAccounting) {
  for (const ReportCase& c : Cases()) {
    SCOPED_TRACE(c.label);
    const MemoryReport& m = c.data.memory;
    ASSERT_EQ(c.data.tick_bytes.size(), m.rows.size());
    ASSERT_EQ(c.data.tick_labels.size(), m.rows.size());
    for (size_t t = 0; t < m.rows.size(); ++t) {
      const CategoryBytes& bytes = c.data.tick_bytes[t];
      EXPECT_EQ(std::accumulate(bytes.begin(), bytes.end(), uint64_t{0}), m.rows[t].live_bytes)
          << t;
    }
    if (m.rows.empty()) continue;
    for (uint8_t cat = 0; cat < kMemoryCategoryCount; ++cat) {
      EXPECT_EQ(c.data.tick_bytes[m.heap_peak_tick][cat], m.heap_peak_by_category[cat]);
    }
    uint64_t trained = 0;
    for (const ReportOperator& op : c.data.operators) trained += op.trained_parameters;
    EXPECT_EQ(trained, c.data.trained_parameters);
  }
}

TEST(ReportJson, ParsesAndCarriesTheMemoryReport) {
  for (const ReportCase& c : Cases()) {
    SCOPED_TRACE(c.label);
    const MemoryReport& m = c.data.memory;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(RenderReportJson(c.data), &error);
    ASSERT_EQ(error.error, QJsonParseError::NoError) << error.errorString().toStdString();
    const QJsonObject root = document.object();
    EXPECT_EQ(root[QStringLiteral("schema")].toString(),
              QStringLiteral("trainscope-memory-report"));
    EXPECT_EQ(root[QStringLiteral("schema_version")].toInt(), 1);
    const QJsonObject summary = root[QStringLiteral("summary")].toObject();
    EXPECT_EQ(summary[QStringLiteral("heap_peak_bytes")].toInteger(),
              static_cast<qint64>(m.heap_peak_bytes));
    EXPECT_EQ(summary[QStringLiteral("heap_peak_tick")].toInt(),
              static_cast<int>(m.heap_peak_tick));
    EXPECT_EQ(summary[QStringLiteral("arena_bytes")].toInteger(),
              static_cast<qint64>(m.arena_bytes));
    EXPECT_EQ(summary[QStringLiteral("lower_bound_bytes")].toInteger(),
              static_cast<qint64>(m.lower_bound_bytes));
    const QJsonObject at_peak = summary[QStringLiteral("heap_peak_by_category")].toObject();
    ASSERT_EQ(at_peak.size(), kMemoryCategoryCount);
    for (uint8_t cat = 0; cat < kMemoryCategoryCount; ++cat) {
      const QString name =
          QString::fromLatin1(MemoryCategoryName(static_cast<MemoryCategory>(cat)));
      EXPECT_EQ(at_peak[name].toInteger(), static_cast<qint64>(m.heap_peak_by_category[cat]));
    }
    const QJsonArray ticks = root[QStringLiteral("ticks")].toArray();
    ASSERT_EQ(ticks.size(), static_cast<qsizetype>(m.rows.size()));
    for (qsizetype t = 0; t < ticks.size(); ++t) {
      const QJsonObject tick = ticks[t].toObject();
      qint64 sum = 0;
      for (const QJsonValue& v : tick[QStringLiteral("live_by_category")].toObject())
        sum += v.toInteger();
      EXPECT_EQ(sum, tick[QStringLiteral("live_bytes")].toInteger());
      EXPECT_EQ(tick[QStringLiteral("live_bytes")].toInteger(),
                static_cast<qint64>(m.rows[static_cast<size_t>(t)].live_bytes));
    }
    EXPECT_EQ(root[QStringLiteral("buffers")].toArray().size(),
              static_cast<qsizetype>(m.buffers.size()));
    EXPECT_EQ(root[QStringLiteral("operators")].toArray().size(),
              static_cast<qsizetype>(c.data.operator_count));
    EXPECT_EQ(
        root[QStringLiteral("setup")].toObject()[QStringLiteral("trained_parameters")].toInteger(),
        static_cast<qint64>(c.data.trained_parameters));
  }
}

TEST(ReportCsv, OneRowPerTickAndPerBufferWithTheSameNumbers) {
  for (const ReportCase& c : Cases()) {
    SCOPED_TRACE(c.label);
    const MemoryReport& m = c.data.memory;
    const auto ticks = CsvRows(RenderTicksCsv(c.data));
    ASSERT_EQ(ticks.size(), m.rows.size() + 1);
    ASSERT_EQ(ticks[0].size(), 9u + kMemoryCategoryCount);
    EXPECT_EQ(ticks[0][6], "live_bytes");
    for (size_t t = 0; t < m.rows.size(); ++t) {
      const auto& row = ticks[t + 1];
      ASSERT_EQ(row.size(), ticks[0].size());
      EXPECT_EQ(std::stoull(row[6]), m.rows[t].live_bytes);
      EXPECT_EQ(std::stoull(row[7]), m.rows[t].peak_bytes);
      EXPECT_EQ(std::stoull(row[8]), m.rows[t].arena_planned_bytes);
      uint64_t sum = 0;
      for (size_t k = 9; k < row.size(); ++k) sum += std::stoull(row[k]);
      EXPECT_EQ(sum, m.rows[t].live_bytes);
    }
    const auto buffers = CsvRows(RenderBuffersCsv(c.data));
    ASSERT_EQ(buffers.size(), m.buffers.size() + 1);
    for (size_t i = 0; i < m.buffers.size(); ++i) {
      const auto& row = buffers[i + 1];
      ASSERT_EQ(row.size(), buffers[0].size());
      EXPECT_EQ(row[1], m.buffers[i].name);
      EXPECT_EQ(std::stoull(row[7]), m.buffers[i].buffer.bytes);
      EXPECT_EQ(std::stoull(row[8]), m.buffers[i].offset);
      EXPECT_EQ(std::stoul(row[9]), m.buffers[i].buffer.first_tick);
      EXPECT_EQ(std::stoul(row[10]), m.buffers[i].buffer.last_tick);
    }
  }
}

TEST(ReportCsv, NamesWithSeparatorsAndQuotesSurviveTheRoundTrip) {
  const ReportCase c = testing::AwkwardNamesCase();
  const auto buffers = CsvRows(RenderBuffersCsv(c.data));
  bool found = false;
  for (const auto& row : buffers) found = found || row[1] == "in, \"quoted\" <&>";
  EXPECT_TRUE(found);
}

TEST(ReportHtml, SelfContainedWithBothPlotsAndThePeak) {
  for (const ReportCase& c : Cases()) {
    SCOPED_TRACE(c.label);
    const MemoryReport& m = c.data.memory;
    const std::string html = RenderReportHtml(c.data).toStdString();
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    const std::vector<std::string> svgs = testing::SvgElements(html);
    ASSERT_EQ(svgs.size(), 2u);
    for (const std::string& svg : svgs) EXPECT_TRUE(testing::WellFormedXml(svg));
    EXPECT_NE(svgs[0].find("heap peak " + std::to_string(m.heap_peak_bytes) + " B"),
              std::string::npos);
    EXPECT_NE(svgs[1].find("arena " + std::to_string(m.arena_bytes) + " B"), std::string::npos);
    for (const std::string& number :
         {std::to_string(m.heap_peak_bytes), std::to_string(m.arena_bytes),
          std::to_string(m.lower_bound_bytes)}) {
      EXPECT_NE(html.find(number), std::string::npos) << number;
    }
    for (uint64_t bytes : m.heap_peak_by_category) {
      if (bytes > 0) {
        EXPECT_NE(html.find("<td class=\"num\">" + std::to_string(bytes) + "</td>"),
                  std::string::npos);
      }
    }
    EXPECT_EQ(html.find("src="), std::string::npos);  // nothing loaded from elsewhere
    EXPECT_EQ(html.find("href="), std::string::npos);
    EXPECT_EQ(html.find("<script"), std::string::npos);
  }
}

TEST(ReportHtml, EscapesNamesInTablesAndTooltips) {
  const std::string html = RenderReportHtml(testing::AwkwardNamesCase().data).toStdString();
  EXPECT_EQ(html.find("\"quoted\" <&>"), std::string::npos);
  EXPECT_NE(html.find("in, &quot;quoted&quot; &lt;&amp;&gt;"), std::string::npos);
  for (const std::string& svg : testing::SvgElements(html))
    EXPECT_TRUE(testing::WellFormedXml(svg));
}

TEST(ReportPdf, StartsWithPdfAndHasTheReportedPages) {
  for (const ReportCase& c : Cases()) {
    SCOPED_TRACE(c.label);
    QByteArray pdf;
    int pages = 0;
    ASSERT_TRUE(RenderReportPdf(c.data, &pdf, &pages).ok());
    EXPECT_TRUE(pdf.startsWith("%PDF-"));
    EXPECT_TRUE(pdf.trimmed().endsWith("%%EOF"));
    EXPECT_GE(pages, 2);
    EXPECT_EQ(testing::CountPdfPages(pdf), pages);
  }
}

TEST(ReportPdf, TextCarriesTheSameNumbers) {
  const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
  if (pdftotext.isEmpty()) GTEST_SKIP() << "pdftotext (poppler-utils) not installed";
  const ReportCase& c = Cases().front();
  QByteArray pdf;
  ASSERT_TRUE(RenderReportPdf(c.data, &pdf).ok());
  QProcess process;
  process.start(pdftotext, {QStringLiteral("-layout"), QStringLiteral("-"), QStringLiteral("-")});
  process.write(pdf);
  process.closeWriteChannel();
  ASSERT_TRUE(process.waitForFinished(20000));
  const std::string text = process.readAllStandardOutput().toStdString();
  const MemoryReport& m = c.data.memory;
  EXPECT_NE(text.find("heap peak " + std::to_string(m.heap_peak_bytes) + " B"), std::string::npos);
  EXPECT_NE(text.find(std::to_string(m.arena_bytes) + " B"), std::string::npos);
  EXPECT_NE(text.find(std::to_string(m.lower_bound_bytes) + " B"), std::string::npos);
  for (uint64_t bytes : m.heap_peak_by_category) {
    if (bytes > 0) {
      EXPECT_NE(text.find(std::to_string(bytes)), std::string::npos) << bytes;
    }
  }
}

TEST(ReportPng, BothPlotsAtTwiceTheSize) {
  QByteArray png;
  ASSERT_TRUE(RenderPlotsPng(Cases().front().data, 2.0, &png).ok());
  QImage image;
  ASSERT_TRUE(image.loadFromData(png, "PNG"));
  EXPECT_EQ(image.width(), 2 * static_cast<int>(kReportPlotWidth));
  EXPECT_EQ(image.height(), 1280);
}

TEST(ReportFiles, CsvWritesTheBufferTableBesideItAndFailuresLeaveNothing) {
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("memory.csv")).toStdString();
  std::vector<std::string> written;
  ASSERT_TRUE(WriteReport(Cases().front().data, ReportFormat::kCsv, path, &written).ok());
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[1], dir.filePath(QStringLiteral("memory.buffers.csv")).toStdString());
  EXPECT_TRUE(QFile::exists(QString::fromStdString(written[1])));
  EXPECT_EQ(BuffersCsvPath("out"), "out.buffers.csv");

  const std::string bad = dir.filePath(QStringLiteral("missing/report.json")).toStdString();
  const Status status = WriteReport(Cases().front().data, ReportFormat::kJson, bad);
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(std::string(status.message()).find(bad), std::string::npos);
  EXPECT_FALSE(QFile::exists(QString::fromStdString(bad)));
}

TEST(ReportFiles, FormatNamesRoundTrip) {
  for (ReportFormat f :
       {ReportFormat::kJson, ReportFormat::kCsv, ReportFormat::kHtml, ReportFormat::kPdf,
        ReportFormat::kMondrian, ReportFormat::kChromeTrace, ReportFormat::kPng}) {
    ReportFormat parsed = ReportFormat::kJson;
    ASSERT_TRUE(ParseReportFormat(ReportFormatName(f), &parsed));
    EXPECT_EQ(parsed, f);
  }
  ReportFormat unused;
  EXPECT_FALSE(ParseReportFormat("xml", &unused));
}

}  // namespace
}  // namespace trainscope

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication app(argc, argv);  // fonts for the PDF and PNG exporters
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
