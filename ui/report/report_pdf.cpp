// SPDX-License-Identifier: Apache-2.0
//
// The PDF report: the ReportDocument laid out top to bottom on A4 pages (1 unit = 1 point),
// tables broken across pages with their header repeated.
#include <QBuffer>
#include <QCoreApplication>
#include <QFont>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>

#include <algorithm>

#include "ui/report/report_document.h"
#include "ui/report/report_export.h"

namespace trainscope {
namespace {

constexpr double kMargin = 40;
constexpr double kFooter = 16;
constexpr double kCellPad = 4;

QFont Font(double points, bool bold = false) {
  QFont font(QStringLiteral("DejaVu Sans"));
  font.setPointSizeF(points);
  font.setBold(bold);
  return font;
}

class PdfLayout {
 public:
  PdfLayout(QPdfWriter* writer, QPainter* painter, std::string footer)
      : writer_(writer), painter_(painter), footer_(std::move(footer)) {
    const QRectF page = writer->pageLayout().paintRectPoints();
    width_ = page.width();
    height_ = page.height() - kFooter;
  }

  int pages() const { return pages_; }

  void Title(const std::string& text) { Text(text, Font(15, true), 10); }
  // `keep_with`: the height of what follows, which must land on the same page.
  void Heading(const std::string& text, double keep_with) {
    Ensure(30 + keep_with);
    y_ += 6;
    Text(text, Font(11.5, true), 4);
  }
  void Paragraph(const std::string& text) { Text(text, Font(9), 6); }
  void Notes(const std::vector<std::string>& notes) {
    for (const std::string& note : notes) Text("- " + note, Font(8.5), 2);
    y_ += 4;
  }

  double PlotHeight(const PlotScene& scene) const {
    return width_ * scene.height / std::max(scene.width, 1.0);
  }

  void Plot(const PlotScene& scene) {
    const double height = PlotHeight(scene);
    Ensure(height);
    PaintPlot(scene, painter_, QRectF(0, y_, width_, height));
    y_ += height + 8;
  }

  void Table(const ReportTable& table) {
    double size = 8;
    std::vector<double> widths = ColumnWidths(table, size);
    double total = Sum(widths);
    if (total > width_) {
      size = std::max(5.0, size * width_ / total);
      widths = ColumnWidths(table, size);
      total = Sum(widths);
    }
    if (total > width_) {  // still too wide: the widest text column gives way
      size_t widest = 0;
      for (size_t c = 0; c < widths.size(); ++c) {
        if (!Numeric(table, c) && widths[c] > widths[widest]) widest = c;
      }
      widths[widest] = std::max(30.0, widths[widest] - (total - width_));
    }
    const QFont font = Font(size), bold = Font(size, true);
    const double row_height = QFontMetricsF(font, writer_).height() + 3;
    Ensure(2 * row_height);
    Row(table, table.header, widths, bold, row_height, QColor(236, 236, 242));
    for (size_t r = 0; r < table.rows.size(); ++r) {
      if (y_ + row_height > height_) {
        NewPage();
        Row(table, table.header, widths, bold, row_height, QColor(236, 236, 242));
      }
      const bool highlight = static_cast<int>(r) == table.highlight_row;
      Row(table, table.rows[r], widths, highlight ? bold : font, row_height,
          highlight ? QColor(253, 226, 222) : (r % 2 ? QColor(248, 248, 251) : QColor(Qt::white)));
    }
    y_ += 8;
  }

  void Finish() { Footer(); }

 private:
  static double Sum(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s;
  }
  static bool Numeric(const ReportTable& table, size_t c) {
    return c < table.numeric.size() && table.numeric[c];
  }

  std::vector<double> ColumnWidths(const ReportTable& table, double size) const {
    // Measured in bold, which the header and the highlighted row use.
    const QFontMetricsF bold(Font(size, true), writer_);
    std::vector<double> widths(table.header.size(), 0.0);
    for (size_t c = 0; c < widths.size(); ++c) {
      widths[c] = bold.horizontalAdvance(QString::fromStdString(table.header[c]));
      for (const auto& row : table.rows) {
        if (c < row.size()) {
          widths[c] = std::max(widths[c], bold.horizontalAdvance(QString::fromStdString(row[c])));
        }
      }
      widths[c] += 2 * kCellPad;
    }
    return widths;
  }

  void Row(const ReportTable& table, const std::vector<std::string>& cells,
           const std::vector<double>& widths, const QFont& font, double height, QColor fill) {
    painter_->fillRect(QRectF(0, y_, Sum(widths), height), fill);
    painter_->setFont(font);
    painter_->setPen(QColor(40, 40, 48));
    const QFontMetricsF metrics(font, writer_);
    double x = 0;
    for (size_t c = 0; c < widths.size() && c < cells.size(); ++c) {
      const QRectF cell(x + kCellPad, y_, widths[c] - 2 * kCellPad, height);
      const QString text =
          metrics.elidedText(QString::fromStdString(cells[c]), Qt::ElideRight, cell.width() + 0.5);
      painter_->drawText(
          cell, Qt::AlignVCenter | (Numeric(table, c) ? Qt::AlignRight : Qt::AlignLeft), text);
      x += widths[c];
    }
    y_ += height;
  }

  void Text(const std::string& text, const QFont& font, double after) {
    const QString content = QString::fromStdString(text);
    const QRectF box = QFontMetricsF(font, writer_)
                           .boundingRect(QRectF(0, 0, width_, 1e6), Qt::TextWordWrap, content);
    Ensure(box.height());
    painter_->setFont(font);
    painter_->setPen(QColor(40, 40, 48));
    painter_->drawText(QRectF(0, y_, width_, box.height() + 1), Qt::TextWordWrap, content);
    y_ += box.height() + after;
  }

  void Ensure(double height) {
    if (y_ > 0 && y_ + height > height_) NewPage();
  }

  void NewPage() {
    Footer();
    writer_->newPage();
    ++pages_;
    y_ = 0;
  }

  void Footer() {
    painter_->setFont(Font(7));
    painter_->setPen(QColor(120, 120, 130));
    painter_->drawText(
        QRectF(0, height_ + 4, width_, kFooter - 4), Qt::AlignRight | Qt::AlignVCenter,
        QString::fromStdString(footer_) + QStringLiteral(" - page ") + QString::number(pages_));
  }

  QPdfWriter* writer_;
  QPainter* painter_;
  std::string footer_;
  double width_ = 0, height_ = 0, y_ = 0;
  int pages_ = 1;
};

Status RequireGuiApplication(const char* what) {
  if (qobject_cast<QGuiApplication*>(QCoreApplication::instance()) == nullptr) {
    return Status::Error(StatusCode::kUnsupported,
                         "%s export needs a QGuiApplication (without a display, set "
                         "QT_QPA_PLATFORM=offscreen)",
                         what);
  }
  return Status::Ok();
}

}  // namespace

Status RenderPlotsPng(const ReportData& data, double scale, QByteArray* png) {
  TS_RETURN_IF_ERROR(RequireGuiApplication("PNG"));
  const PlotScene plots[] = {LiveBytesPlot(data, kReportPlotWidth, 320),
                             AddressMapPlot(data, kReportPlotWidth, 320)};
  QImage image(static_cast<int>(kReportPlotWidth * scale), static_cast<int>(640 * scale),
               QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  QPainter painter(&image);
  for (int i = 0; i < 2; ++i) {
    PaintPlot(plots[i], &painter,
              QRectF(0, 320 * scale * i, kReportPlotWidth * scale, 320 * scale));
  }
  painter.end();
  QBuffer buffer(png);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG")) {
    return Status::Error(StatusCode::kIoError, "PNG export: encoding failed");
  }
  return Status::Ok();
}

Status RenderReportPdf(const ReportData& data, QByteArray* pdf, int* pages) {
  TS_RETURN_IF_ERROR(RequireGuiApplication("PDF"));
  const ReportDocument document = BuildReportDocument(data);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  int page_count = 0;
  {
    QPdfWriter writer(&buffer);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(kMargin, kMargin, kMargin, kMargin), QPageLayout::Point);
    writer.setResolution(72);
    writer.setTitle(QString::fromStdString(document.title));
    writer.setCreator(QString::fromStdString(data.generator));
    QPainter painter;
    if (!painter.begin(&writer)) {
      return Status::Error(StatusCode::kIoError, "PDF export: cannot start painting");
    }
    PdfLayout layout(&writer, &painter, document.title);
    for (size_t i = 0; i < document.blocks.size(); ++i) {
      const ReportBlock& block = document.blocks[i];
      switch (block.kind) {
        case ReportBlock::Kind::kTitle:
          layout.Title(block.text);
          break;
        case ReportBlock::Kind::kHeading: {
          const ReportBlock* next =
              i + 1 < document.blocks.size() ? &document.blocks[i + 1] : nullptr;
          layout.Heading(block.text, next != nullptr && next->kind == ReportBlock::Kind::kPlot
                                         ? layout.PlotHeight(next->plot)
                                         : 40);
          break;
        }
        case ReportBlock::Kind::kParagraph:
          layout.Paragraph(block.text);
          break;
        case ReportBlock::Kind::kTable:
          layout.Table(block.table);
          break;
        case ReportBlock::Kind::kPlot:
          layout.Plot(block.plot);
          break;
        case ReportBlock::Kind::kNotes:
          layout.Notes(block.notes);
          break;
      }
    }
    layout.Finish();
    page_count = layout.pages();
    painter.end();
  }
  *pdf = std::move(bytes);
  if (pages != nullptr) *pages = page_count;
  return Status::Ok();
}

}  // namespace trainscope
