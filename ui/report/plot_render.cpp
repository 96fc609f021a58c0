// SPDX-License-Identifier: Apache-2.0
//
// The two renderers of a PlotScene: SVG text and QPainter.
#include <QFont>
#include <QFontMetricsF>
#include <QPaintDevice>
#include <QPainter>
#include <QPolygonF>

#include <cstdio>

#include "ui/report/report_plots.h"

namespace trainscope {
namespace {

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", value);
  std::string s = text;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string Rgb(PlotColor c) {
  return "rgb(" + std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b) + ")";
}

std::string Paint(const PlotItem& item) {
  std::string out;
  out += item.fill.a == 0 ? " fill=\"none\"" : " fill=\"" + Rgb(item.fill) + "\"";
  if (item.fill.a != 0 && item.fill.a != 255)
    out += " fill-opacity=\"" + Number(item.fill.a / 255.0) + "\"";
  if (item.stroke.a != 0) {
    out +=
        " stroke=\"" + Rgb(item.stroke) + "\" stroke-width=\"" + Number(item.stroke_width) + "\"";
    if (item.stroke.a != 255) out += " stroke-opacity=\"" + Number(item.stroke.a / 255.0) + "\"";
    if (item.dashed) out += " stroke-dasharray=\"6 4\"";
  }
  return out;
}

QColor ToQColor(PlotColor c) {
  return QColor(c.r, c.g, c.b, c.a);
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderSvg(const PlotScene& scene) {
  std::string out =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Number(scene.width) + "\" height=\"" +
      Number(scene.height) + "\" viewBox=\"0 0 " + Number(scene.width) + " " +
      Number(scene.height) +
      "\" font-family=\"DejaVu Sans, Verdana, sans-serif\" role=\"img\" aria-label=\"" +
      XmlEscape(scene.title) + "\">\n<title>" + XmlEscape(scene.title) + "</title>\n";
  for (const PlotItem& item : scene.items) {
    const std::string tooltip =
        item.tooltip.empty() ? "" : "<title>" + XmlEscape(item.tooltip) + "</title>";
    switch (item.kind) {
      case PlotItem::Kind::kRect: {
        if (item.points.size() < 2) break;
        const PlotPoint a = item.points[0], b = item.points[1];
        out += "<rect x=\"" + Number(a.x) + "\" y=\"" + Number(a.y) + "\" width=\"" +
               Number(b.x - a.x) + "\" height=\"" + Number(b.y - a.y) + "\"" + Paint(item);
        out += tooltip.empty() ? "/>\n" : ">" + tooltip + "</rect>\n";
        break;
      }
      case PlotItem::Kind::kPolygon: {
        out += "<polygon points=\"";
        for (size_t i = 0; i < item.points.size(); ++i) {
          out += (i ? " " : "") + Number(item.points[i].x) + "," + Number(item.points[i].y);
        }
        out += "\"" + Paint(item) + "/>\n";
        break;
      }
      case PlotItem::Kind::kLine: {
        if (item.points.size() < 2) break;
        out += "<line x1=\"" + Number(item.points[0].x) + "\" y1=\"" + Number(item.points[0].y) +
               "\" x2=\"" + Number(item.points[1].x) + "\" y2=\"" + Number(item.points[1].y) +
               "\"" + Paint(item) + "/>\n";
        break;
      }
      case PlotItem::Kind::kText: {
        if (item.points.empty()) break;
        const char* anchor = item.anchor == TextAnchor::kMiddle ? "middle"
                             : item.anchor == TextAnchor::kEnd  ? "end"
                                                                : "start";
        out += "<text x=\"" + Number(item.points[0].x) + "\" y=\"" + Number(item.points[0].y) +
               "\" font-size=\"" + Number(item.font_size) + "\" text-anchor=\"" + anchor + "\"" +
               (item.bold ? " font-weight=\"bold\"" : "") + " fill=\"" + Rgb(item.fill) + "\">" +
               XmlEscape(item.text) + "</text>\n";
        break;
      }
    }
  }
  return out + "</svg>\n";
}

void PaintPlot(const PlotScene& scene, QPainter* painter, const QRectF& target) {
  if (scene.width <= 0 || scene.height <= 0) return;
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing);
  painter->translate(target.topLeft());
  painter->scale(target.width() / scene.width, target.height() / scene.height);
  const double dpi = painter->device() != nullptr ? painter->device()->logicalDpiY() : 72.0;
  for (const PlotItem& item : scene.items) {
    QPen pen =
        item.stroke.a == 0 ? QPen(Qt::NoPen) : QPen(ToQColor(item.stroke), item.stroke_width);
    if (item.dashed) pen.setDashPattern({6.0 / item.stroke_width, 4.0 / item.stroke_width});
    const QBrush brush = item.fill.a == 0 ? QBrush(Qt::NoBrush) : QBrush(ToQColor(item.fill));
    switch (item.kind) {
      case PlotItem::Kind::kRect:
        if (item.points.size() < 2 || (item.fill.a == 0 && item.stroke.a == 0)) break;
        painter->setPen(pen);
        painter->setBrush(brush);
        painter->drawRect(QRectF(QPointF(item.points[0].x, item.points[0].y),
                                 QPointF(item.points[1].x, item.points[1].y)));
        break;
      case PlotItem::Kind::kPolygon: {
        QPolygonF polygon;
        for (const PlotPoint& p : item.points) polygon << QPointF(p.x, p.y);
        painter->setPen(pen);
        painter->setBrush(brush);
        painter->drawPolygon(polygon);
        break;
      }
      case PlotItem::Kind::kLine:
        if (item.points.size() < 2) break;
        painter->setPen(pen);
        painter->drawLine(QPointF(item.points[0].x, item.points[0].y),
                          QPointF(item.points[1].x, item.points[1].y));
        break;
      case PlotItem::Kind::kText: {
        if (item.points.empty()) break;
        QFont font(QStringLiteral("DejaVu Sans"));
        font.setPointSizeF(item.font_size * 72.0 / dpi);
        font.setBold(item.bold);
        painter->setFont(font);
        painter->setPen(ToQColor(item.fill));
        const QString text = QString::fromStdString(item.text);
        const double advance = QFontMetricsF(font, painter->device()).horizontalAdvance(text);
        double x = item.points[0].x;
        if (item.anchor == TextAnchor::kMiddle) x -= advance / 2;
        if (item.anchor == TextAnchor::kEnd) x -= advance;
        painter->drawText(QPointF(x, item.points[0].y), text);
        break;
      }
    }
  }
  painter->restore();
}

}  // namespace trainscope
