// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/memory/address_map.h"

#include <algorithm>

namespace trainscope {
namespace {
double EndTick(const BufferLifetime& buffer, uint32_t open_end_tick) {
  return buffer.free_tick == kOpenLifetime ? open_end_tick : buffer.free_tick;
}
}  // namespace

int FindBufferAt(const std::vector<BufferLifetime>& buffers, double tick, double offset,
                 uint32_t open_end_tick) {
  // Later buffers are drawn on top, so they win.
  for (size_t i = buffers.size(); i-- > 0;) {
    const BufferLifetime& buffer = buffers[i];
    const double begin = buffer.alloc_tick;
    // A buffer freed in the tick it was allocated still gets a sliver of one tick.
    const double end = std::max(EndTick(buffer, open_end_tick), begin + 1.0);
    const double low = static_cast<double>(buffer.offset);
    const double high = low + static_cast<double>(buffer.bytes);
    if (tick >= begin && tick < end && offset >= low && offset < high) return static_cast<int>(i);
  }
  return -1;
}

AddressMapPlottable::AddressMapPlottable(QCPAxis* key_axis, QCPAxis* value_axis)
    : QCPAbstractPlottable(key_axis, value_axis) {
  setAntialiased(false);
}

void AddressMapPlottable::setBuffers(std::vector<BufferLifetime> buffers, uint32_t open_end_tick,
                                     double unit) {
  buffers_ = std::move(buffers);
  open_end_tick_ = open_end_tick;
  unit_ = unit > 0 ? unit : 1.0;
  if (highlighted_ >= static_cast<int>(buffers_.size())) highlighted_ = -1;
}

void AddressMapPlottable::setColors(const std::array<QColor, kMemoryCategoryCount>& colors,
                                    const QColor& outline) {
  colors_ = colors;
  outline_ = outline;
}

void AddressMapPlottable::setHighlighted(int index) {
  highlighted_ = index;
}

double AddressMapPlottable::selectTest(const QPointF&, bool, QVariant*) const {
  return -1.0;
}

QCPRange AddressMapPlottable::getKeyRange(bool& found_range, QCP::SignDomain) const {
  found_range = !buffers_.empty();
  return QCPRange(0.0, open_end_tick_);
}

QCPRange AddressMapPlottable::getValueRange(bool& found_range, QCP::SignDomain,
                                            const QCPRange&) const {
  double top = 0.0;
  for (const BufferLifetime& buffer : buffers_) {
    top = std::max(top, static_cast<double>(buffer.offset + buffer.bytes));
  }
  found_range = !buffers_.empty();
  return QCPRange(0.0, top / unit_);
}

void AddressMapPlottable::draw(QCPPainter* painter) {
  QCPAxis* key = keyAxis();
  QCPAxis* value = valueAxis();
  if (!key || !value) return;
  const QCPRange visible = key->range();
  for (size_t i = 0; i < buffers_.size(); ++i) {
    const BufferLifetime& buffer = buffers_[i];
    const double begin = buffer.alloc_tick;
    const double end = std::max(EndTick(buffer, open_end_tick_), begin + 1.0);
    if (end < visible.lower || begin > visible.upper) continue;
    const double low = static_cast<double>(buffer.offset) / unit_;
    const double high = static_cast<double>(buffer.offset + buffer.bytes) / unit_;
    const QRectF rect = QRectF(QPointF(key->coordToPixel(begin), value->coordToPixel(high)),
                               QPointF(key->coordToPixel(end), value->coordToPixel(low)))
                            .normalized();
    QColor fill = colors_[static_cast<size_t>(buffer.category) % colors_.size()];
    if (buffer.free_tick == kOpenLifetime) fill.setAlpha(170);  // still live at the end
    painter->setBrush(fill);
    const bool highlighted = static_cast<int>(i) == highlighted_;
    painter->setPen(QPen(highlighted ? outline_ : fill.darker(130), highlighted ? 2.0 : 0.0));
    painter->drawRect(rect);
  }
}

void AddressMapPlottable::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const {
  painter->setBrush(colors_[1]);
  painter->setPen(Qt::NoPen);
  painter->drawRect(rect);
}

}  // namespace trainscope
