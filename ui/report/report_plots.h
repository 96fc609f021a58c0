// SPDX-License-Identifier: Apache-2.0
//
// The report's two plots as format-neutral scenes: lists of rectangles, polygons, lines and
// texts in a width x height box (y grows downwards, units are pixels in HTML and points in PDF).
// One scene is rendered as inline SVG (RenderSvg) for HTML and painted with QPainter (PaintPlot)
// for PDF and PNG, so both formats draw exactly the same thing.
//
//  - LiveBytesPlot: live bytes per tick stacked by memory category (heap accounting), with the
//    heap peak as a dashed line and the phases (forward, backward, optimizer) as bands.
//  - AddressMapPlot: every buffer of the planned arena as a rectangle, offset (up) x tick
//    (right), coloured by category, with the arena size line.
//
//   PlotScene scene = LiveBytesPlot(data, 760, 300);
//   std::string svg = RenderSvg(scene);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ui/report/report_data.h"

class QPainter;
class QRectF;

namespace trainscope {

struct PlotColor {
  uint8_t r = 0, g = 0, b = 0, a = 255;
};

struct PlotPoint {
  double x = 0.0, y = 0.0;
};

enum class TextAnchor : uint8_t { kStart, kMiddle, kEnd };

struct PlotItem {
  enum class Kind : uint8_t { kRect, kPolygon, kLine, kText };
  Kind kind = Kind::kRect;
  std::vector<PlotPoint> points;  // rect: top-left and bottom-right; line: two; text: anchor
  PlotColor fill{0, 0, 0, 0};     // alpha 0: no fill
  PlotColor stroke{0, 0, 0, 0};   // alpha 0: no outline
  double stroke_width = 1.0;
  bool dashed = false;
  std::string text;  // kText
  double font_size = 10.0;
  bool bold = false;
  TextAnchor anchor = TextAnchor::kStart;
  std::string tooltip;  // shown on hover in HTML
};

struct PlotScene {
  double width = 0.0;
  double height = 0.0;
  std::string title;
  std::vector<PlotItem> items;
};

// The colour of each memory category (colour-blind safe, readable on white).
PlotColor CategoryColor(MemoryCategory category);

PlotScene LiveBytesPlot(const ReportData& data, double width, double height);
PlotScene AddressMapPlot(const ReportData& data, double width, double height);

// A standalone <svg> element (no XML declaration), for inline use in HTML.
std::string RenderSvg(const PlotScene& scene);

// Text safe inside XML/HTML content and attribute values (&, <, >, ").
std::string XmlEscape(const std::string& text);
// Paints the scene scaled into `target`; needs a QGuiApplication for the fonts.
void PaintPlot(const PlotScene& scene, QPainter* painter, const QRectF& target);

}  // namespace trainscope
