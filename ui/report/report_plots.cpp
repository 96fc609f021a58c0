// SPDX-License-Identifier: Apache-2.0
#include "ui/report/report_plots.h"

#include <algorithm>
#include <cmath>

namespace trainscope {
namespace {

constexpr PlotColor kAxis{90, 90, 100, 255};
constexpr PlotColor kGrid{0, 0, 0, 28};
constexpr PlotColor kText{40, 40, 48, 255};
constexpr PlotColor kMutedText{100, 100, 110, 255};
constexpr PlotColor kPeak{200, 40, 40, 255};
constexpr double kLeft = 70, kRight = 14, kTop = 40, kBottom = 66;

PlotItem Rect(double x0, double y0, double x1, double y1, PlotColor fill) {
  PlotItem item;
  item.kind = PlotItem::Kind::kRect;
  item.points = {{x0, y0}, {x1, y1}};
  item.fill = fill;
  return item;
}

PlotItem Line(double x0, double y0, double x1, double y1, PlotColor stroke, double width = 1.0) {
  PlotItem item;
  item.kind = PlotItem::Kind::kLine;
  item.points = {{x0, y0}, {x1, y1}};
  item.stroke = stroke;
  item.stroke_width = width;
  return item;
}

PlotItem Text(double x, double y, std::string text, double size, TextAnchor anchor,
              PlotColor color = kText) {
  PlotItem item;
  item.kind = PlotItem::Kind::kText;
  item.points = {{x, y}};
  item.text = std::move(text);
  item.font_size = size;
  item.anchor = anchor;
  item.fill = color;
  return item;
}

// A round step for about `target` intervals over [0, top]: 1, 2 or 5 times a power of ten of
// bytes, KiB or MiB, so the axis reads 10 KiB, 20 KiB, ...
uint64_t NiceStep(uint64_t top, int target) {
  const uint64_t unit = top >= 4 * 1024 * 1024 ? 1024 * 1024 : top >= 4 * 1024 ? 1024 : 1;
  const double raw = std::max(1.0, static_cast<double>(top / unit) / target);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (factor * power >= raw) return static_cast<uint64_t>(factor * power) * unit;
  }
  return static_cast<uint64_t>(10 * power) * unit;
}

std::string AxisLabel(uint64_t bytes) {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0) {
    return std::to_string(bytes / (1024 * 1024)) + " MiB";
  }
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return HumanBytes(bytes);
}

// The phase band's label, shortened when the band is narrow ("" when nothing fits).
std::string BandLabel(Phase phase, uint32_t sample, double width) {
  const std::string suffix = sample > 0 ? " #" + std::to_string(sample) : "";
  const std::string full = PhaseName(phase) + suffix;
  const std::string brief = std::string(phase == Phase::kOptimizer  ? "opt"
                                        : phase == Phase::kBackward ? "bwd"
                                                                    : "fwd") +
                            suffix;
  for (const std::string& label : {full, brief}) {
    if (width > 6.0 * static_cast<double>(label.size()) + 4) return label;
  }
  return "";
}

// Plot area and scales shared by both plots: x in ticks, y in bytes (0 at the bottom).
struct Frame {
  double x0, x1, y0, y1;
  uint32_t ticks;
  uint64_t y_top;
  double X(double tick) const { return x0 + (x1 - x0) * tick / std::max<uint32_t>(ticks, 1); }
  double Y(double bytes) const {
    return y1 - (y1 - y0) * bytes / static_cast<double>(std::max<uint64_t>(y_top, 1));
  }
};

Frame MakeFrame(const ReportData& data, double width, double height, uint64_t max_bytes) {
  Frame frame{
      kLeft, width - kRight, kTop, height - kBottom, static_cast<uint32_t>(data.memory.rows.size()),
      1};
  // Headroom above the highest value for the line labels.
  const uint64_t wanted = std::max<uint64_t>(max_bytes + max_bytes / 8, 1);
  const uint64_t step = NiceStep(wanted, 5);
  frame.y_top = (wanted + step - 1) / step * step;
  return frame;
}

PlotColor PhaseTint(Phase phase) {
  switch (phase) {
    case Phase::kForward:
      return {86, 180, 233, 22};
    case Phase::kBackward:
      return {230, 159, 0, 22};
    case Phase::kOptimizer:
      return {0, 158, 115, 26};
  }
  return {0, 0, 0, 0};
}

// Phase bands, grid, axes, tick labels and the legend of the categories in use.
void AddFrame(const ReportData& data, const Frame& frame, PlotScene* scene) {
  const std::vector<MemoryStepRow>& rows = data.memory.rows;
  for (uint32_t begin = 0; begin < rows.size();) {
    uint32_t end = begin + 1;
    while (end < rows.size() && rows[end].tick.phase() == rows[begin].tick.phase() &&
           rows[end].tick.sample == rows[begin].tick.sample) {
      ++end;
    }
    const Phase phase = rows[begin].tick.phase();
    scene->items.push_back(
        Rect(frame.X(begin), frame.y0, frame.X(end), frame.y1, PhaseTint(phase)));
    const std::string label =
        BandLabel(phase, rows[begin].tick.sample, frame.X(end) - frame.X(begin));
    if (!label.empty()) {
      scene->items.push_back(Text((frame.X(begin) + frame.X(end)) / 2, frame.y0 - 4, label, 9,
                                  TextAnchor::kMiddle, kMutedText));
    }
    begin = end;
  }
  const uint64_t step = NiceStep(frame.y_top, 5);
  for (uint64_t v = 0; v <= frame.y_top; v += step) {
    scene->items.push_back(Line(frame.x0, frame.Y(static_cast<double>(v)), frame.x1,
                                frame.Y(static_cast<double>(v)), kGrid));
    scene->items.push_back(Text(frame.x0 - 6, frame.Y(static_cast<double>(v)) + 3.5, AxisLabel(v),
                                9, TextAnchor::kEnd, kMutedText));
  }
  const double column = (frame.x1 - frame.x0) / std::max<uint32_t>(frame.ticks, 1);
  const uint32_t every = std::max<uint32_t>(1, static_cast<uint32_t>(std::ceil(28.0 / column)));
  for (uint32_t t = 0; t < frame.ticks; t += every) {
    const double x = frame.X(t + 0.5);
    scene->items.push_back(Line(x, frame.y1, x, frame.y1 + 4, kAxis));
    scene->items.push_back(Text(x, frame.y1 + 15, std::to_string(t), 9, TextAnchor::kMiddle));
  }
  scene->items.push_back(Line(frame.x0, frame.y0, frame.x0, frame.y1, kAxis));
  scene->items.push_back(Line(frame.x0, frame.y1, frame.x1, frame.y1, kAxis));
  scene->items.push_back(
      Text(frame.x0 - 6, frame.y1 + 15, "tick", 9, TextAnchor::kEnd, kMutedText));

  double x = frame.x0;
  double y = frame.y1 + 36;
  for (uint8_t c = 0; c < kMemoryCategoryCount; ++c) {
    bool used = false;
    for (const CategoryBytes& bytes : data.tick_bytes) used = used || bytes[c] > 0;
    if (!used) continue;
    const std::string name = MemoryCategoryName(static_cast<MemoryCategory>(c));
    const double item_width = 14 + 6.2 * static_cast<double>(name.size()) + 14;
    if (x + item_width > frame.x1 + kRight) {
      x = frame.x0;
      y += 14;
    }
    scene->items.push_back(
        Rect(x, y - 8, x + 10, y + 1, CategoryColor(static_cast<MemoryCategory>(c))));
    scene->items.push_back(Text(x + 14, y, name, 9, TextAnchor::kStart));
    x += item_width;
  }
}

std::string TickTooltip(const ReportData& data, uint32_t t) {
  const MemoryStepRow& row = data.memory.rows[t];
  std::string text = "tick " + std::to_string(t) + ": " + data.tick_labels[t] + "\nlive " +
                     std::to_string(row.live_bytes) + " B";
  for (uint8_t c = 0; c < kMemoryCategoryCount; ++c) {
    if (data.tick_bytes[t][c] == 0) continue;
    text += std::string("\n  ") + MemoryCategoryName(static_cast<MemoryCategory>(c)) + " " +
            std::to_string(data.tick_bytes[t][c]) + " B";
  }
  return text;
}

}  // namespace

PlotColor CategoryColor(MemoryCategory category) {
  static constexpr PlotColor kColors[kMemoryCategoryCount] = {
      {120, 120, 140, 255}, {86, 180, 233, 255},  {0, 158, 115, 255},  {230, 159, 0, 255},
      {213, 94, 0, 255},    {204, 121, 167, 255}, {190, 175, 20, 255}, {160, 160, 160, 255}};
  return kColors[static_cast<size_t>(category) % kMemoryCategoryCount];
}

PlotScene LiveBytesPlot(const ReportData& data, double width, double height) {
  PlotScene scene;
  scene.width = width;
  scene.height = height;
  scene.title = "Live bytes per tick by category (heap accounting)";
  const Frame frame = MakeFrame(data, width, height, data.memory.heap_peak_bytes);
  AddFrame(data, frame, &scene);
  const uint32_t ticks = frame.ticks;
  std::vector<uint64_t> below(ticks, 0);
  for (uint8_t c = 0; c < kMemoryCategoryCount; ++c) {
    PlotItem area;
    area.kind = PlotItem::Kind::kPolygon;
    area.fill = CategoryColor(static_cast<MemoryCategory>(c));
    bool used = false;
    for (uint32_t t = 0; t < ticks; ++t) {
      const double top = frame.Y(static_cast<double>(below[t] + data.tick_bytes[t][c]));
      area.points.push_back({frame.X(t), top});
      area.points.push_back({frame.X(t + 1), top});
      used = used || data.tick_bytes[t][c] > 0;
    }
    for (uint32_t t = ticks; t-- > 0;) {
      const double bottom = frame.Y(static_cast<double>(below[t]));
      area.points.push_back({frame.X(t + 1), bottom});
      area.points.push_back({frame.X(t), bottom});
      below[t] += data.tick_bytes[t][c];
    }
    if (used) scene.items.push_back(area);
  }
  for (uint32_t t = 0; t < ticks; ++t) {  // hover targets
    PlotItem target = Rect(frame.X(t), frame.y0, frame.X(t + 1), frame.y1, {0, 0, 0, 0});
    target.tooltip = TickTooltip(data, t);
    scene.items.push_back(target);
  }
  const double peak_y = frame.Y(static_cast<double>(data.memory.heap_peak_bytes));
  PlotItem peak = Line(frame.x0, peak_y, frame.x1, peak_y, kPeak, 1.5);
  peak.dashed = true;
  scene.items.push_back(peak);
  scene.items.push_back(Text(frame.x1 - 4, peak_y - 5,
                             "heap peak " + std::to_string(data.memory.heap_peak_bytes) +
                                 " B at tick " + std::to_string(data.memory.heap_peak_tick),
                             10, TextAnchor::kEnd, kPeak));
  scene.items.push_back(Text(frame.x0, 16, scene.title, 11, TextAnchor::kStart));
  scene.items.back().bold = true;
  return scene;
}

PlotScene AddressMapPlot(const ReportData& data, double width, double height) {
  PlotScene scene;
  scene.width = width;
  scene.height = height;
  scene.title = "Address map of the planned arena (offset x tick)";
  const Frame frame = MakeFrame(data, width, height, data.memory.arena_bytes);
  AddFrame(data, frame, &scene);
  for (const MemoryReportBuffer& b : data.memory.buffers) {
    if (b.buffer.bytes == 0) continue;
    PlotItem rect =
        Rect(frame.X(b.buffer.first_tick), frame.Y(static_cast<double>(b.offset + b.buffer.bytes)),
             frame.X(b.buffer.last_tick + 1.0), frame.Y(static_cast<double>(b.offset)),
             CategoryColor(b.buffer.category));
    rect.stroke = {255, 255, 255, 255};
    rect.stroke_width = 0.5;
    rect.tooltip = b.name + "\n" + MemoryCategoryName(b.buffer.category) + ", " +
                   std::to_string(b.buffer.bytes) + " B at offset " + std::to_string(b.offset) +
                   "\nticks " + std::to_string(b.buffer.first_tick) + "-" +
                   std::to_string(b.buffer.last_tick);
    scene.items.push_back(rect);
  }
  const double arena_y = frame.Y(static_cast<double>(data.memory.arena_bytes));
  PlotItem arena = Line(frame.x0, arena_y, frame.x1, arena_y, kAxis, 1.5);
  arena.dashed = true;
  scene.items.push_back(arena);
  scene.items.push_back(Text(frame.x1 - 4, arena_y - 5,
                             "arena " + std::to_string(data.memory.arena_bytes) +
                                 " B (lower bound " +
                                 std::to_string(data.memory.lower_bound_bytes) + " B)",
                             10, TextAnchor::kEnd));
  scene.items.push_back(Text(frame.x0, 16, scene.title, 11, TextAnchor::kStart));
  scene.items.back().bold = true;
  return scene;
}

}  // namespace trainscope
