// SPDX-License-Identifier: Apache-2.0
//
// The arena address map: every buffer of the latest train step as a rectangle, ticks across
// (allocation to free) and arena offsets up, coloured by memory category - the picture of a
// static arena plan, with the gaps showing fragmentation.
//
// AddressMapPlottable draws the rectangles in a QCustomPlot (one plottable, however many buffers,
// so thousands of buffers cost one pass); FindBufferAt() is the pure hit test behind the tooltip.
#pragma once

#include <QColor>

#include <array>
#include <cstdint>
#include <vector>

#include "ui/session/live_memory_timeline.h"
#include "ui/widgets/common/qcustomplot_include.h"

namespace trainscope {

// The buffer drawn on top at (tick, offset), or -1. Open buffers end at `open_end_tick`.
int FindBufferAt(const std::vector<BufferLifetime>& buffers, double tick, double offset,
                 uint32_t open_end_tick);

class AddressMapPlottable : public QCPAbstractPlottable {
  Q_OBJECT

 public:
  AddressMapPlottable(QCPAxis* key_axis, QCPAxis* value_axis);

  // `unit`: bytes per value-axis unit (1024 for an axis in KiB).
  void setBuffers(std::vector<BufferLifetime> buffers, uint32_t open_end_tick, double unit);
  void setColors(const std::array<QColor, kMemoryCategoryCount>& colors, const QColor& outline);
  void setHighlighted(int index);
  const std::vector<BufferLifetime>& buffers() const { return buffers_; }
  uint32_t openEndTick() const { return open_end_tick_; }

  double selectTest(const QPointF& pos, bool only_selectable, QVariant* details) const override;
  QCPRange getKeyRange(bool& found_range, QCP::SignDomain domain) const override;
  QCPRange getValueRange(bool& found_range, QCP::SignDomain domain,
                         const QCPRange& key_range) const override;

 protected:
  void draw(QCPPainter* painter) override;
  void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

 private:
  std::vector<BufferLifetime> buffers_;
  uint32_t open_end_tick_ = 1;
  double unit_ = 1.0;
  std::array<QColor, kMemoryCategoryCount> colors_{};
  QColor outline_;
  int highlighted_ = -1;
};

}  // namespace trainscope
