// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/graph/graph_items.h"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>

#include <cmath>

#include "ui/widgets/common/theme.h"

namespace trainscope {
namespace {

constexpr double kRadius = 7.0;
constexpr double kArrowSize = 7.0;
const QColor kBreakpointRed(220, 40, 40);

QPainterPath SmoothRoute(const std::vector<LayoutPoint>& points) {
  QPainterPath path;
  if (points.empty()) return path;
  path.moveTo(points[0].x, points[0].y);
  for (size_t i = 1; i < points.size(); ++i) {
    const QPointF a(points[i - 1].x, points[i - 1].y);
    const QPointF b(points[i].x, points[i].y);
    const double bend = (b.y() - a.y()) / 2.0;
    path.cubicTo(QPointF(a.x(), a.y() + bend), QPointF(b.x(), b.y() - bend), b);
  }
  return path;
}

}  // namespace

bool NodeLook::operator==(const NodeLook& other) const {
  return title == other.title && subtitle == other.subtitle && detail == other.detail &&
         fill == other.fill && text == other.text && border == other.border &&
         accent == other.accent && done == other.done && current == other.current &&
         done_mark == other.done_mark && warning == other.warning &&
         breakpoint == other.breakpoint && divergent == other.divergent &&
         divergent_color == other.divergent_color;
}

OpNodeItem::OpNodeItem(int node, const QSizeF& size) : node_(node), size_(size) {
  setFlag(ItemIsSelectable);
  setAcceptHoverEvents(true);
  setCacheMode(DeviceCoordinateCache);
}

void OpNodeItem::setLook(const NodeLook& look) {
  if (look == look_) return;
  look_ = look;
  update();
}

QRectF OpNodeItem::boundingRect() const {
  // Room for the current-op ring outside the box.
  return QRectF(-size_.width() / 2 - 5, -size_.height() / 2 - 5, size_.width() + 10,
                size_.height() + 10);
}

void OpNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  const QRectF box(-size_.width() / 2, -size_.height() / 2, size_.width(), size_.height());
  const bool selected = option->state & QStyle::State_Selected;

  if (look_.current) {
    painter->setPen(QPen(look_.accent, 3.5));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(box.adjusted(-3.5, -3.5, 3.5, 3.5), kRadius + 3, kRadius + 3);
  }
  if (look_.divergent) {
    QPen ring(look_.divergent_color, 2.5, Qt::DashLine);
    painter->setPen(ring);
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(box.adjusted(-4.5, -4.5, 4.5, 4.5), kRadius + 4, kRadius + 4);
  }
  QPen border(selected ? option->palette.color(QPalette::Highlight) : look_.border,
              selected ? 2.5 : 1.0);
  painter->setPen(border);
  painter->setBrush(look_.fill);
  painter->drawRoundedRect(box, kRadius, kRadius);

  if (look_.done_mark) {
    // A band on the left edge: "backward done for this sample".
    QPainterPath band;
    band.addRoundedRect(QRectF(box.left(), box.top(), 7, box.height()), 3, 3);
    painter->fillPath(band, look_.done);
  }

  const QFont base = painter->font();
  QFont title_font = base;
  title_font.setBold(true);
  painter->setPen(look_.text);
  const double badges = (look_.warning ? 1 : 0) + (look_.divergent ? 1 : 0);
  const QRectF text_box = box.adjusted(12, 4, -8 - 20 * badges, -4);
  const double line = text_box.height() / 3.0;
  painter->setFont(title_font);
  painter->drawText(QRectF(text_box.left(), text_box.top(), text_box.width(), line),
                    Qt::AlignLeft | Qt::AlignVCenter, look_.title);
  painter->setFont(base);
  painter->drawText(QRectF(text_box.left(), text_box.top() + line, text_box.width(), line),
                    Qt::AlignLeft | Qt::AlignVCenter, look_.subtitle);
  QColor detail_color = look_.text;
  detail_color.setAlphaF(0.75f);
  painter->setPen(detail_color);
  painter->drawText(QRectF(text_box.left(), text_box.top() + 2 * line, text_box.width(), line),
                    Qt::AlignLeft | Qt::AlignVCenter, look_.detail);

  if (look_.breakpoint) {
    // Sits on the left edge like a debugger's gutter dot, clear of the title.
    painter->setPen(QPen(look_.border, 1.0));
    painter->setBrush(kBreakpointRed);
    painter->drawEllipse(QPointF(box.left(), 0.0), 4.5, 4.5);
  }
  if (look_.divergent) {
    // "Board and reference differ here", beside the NaN badge when both apply.
    const QRectF badge(box.right() - (look_.warning ? 40 : 20), box.top() + 4, 16, 16);
    painter->setPen(Qt::NoPen);
    painter->setBrush(look_.divergent_color);
    painter->drawEllipse(badge);
    painter->setPen(Qt::white);
    painter->setFont(title_font);
    painter->drawText(badge, Qt::AlignCenter, QStringLiteral("≠"));
    painter->setFont(base);
  }
  if (look_.warning) {
    const QRectF badge(box.right() - 20, box.top() + 4, 16, 16);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(210, 30, 30));
    painter->drawEllipse(badge);
    painter->setPen(Qt::white);
    painter->setFont(title_font);
    painter->drawText(badge, Qt::AlignCenter, QStringLiteral("!"));
    painter->setFont(base);
  }
}

EdgeItem::EdgeItem(const std::vector<LayoutPoint>& points, bool arrow_at_start) {
  setPath(SmoothRoute(points));
  setZValue(-1);
  if (points.size() >= 2) {
    const LayoutPoint& tip = arrow_at_start ? points.front() : points.back();
    const LayoutPoint& from = arrow_at_start ? points[1] : points[points.size() - 2];
    arrow_tip_ = QPointF(tip.x, tip.y);
    // Curves leave and enter vertically, so the head points along the vertical.
    arrow_from_ = QPointF(tip.x, tip.y + (from.y > tip.y ? 1.0 : -1.0));
  }
}

void EdgeItem::setColor(const QColor& color) {
  color_ = color;
  setPen(QPen(color, 1.3));
  update();
}

QRectF EdgeItem::boundingRect() const {
  return QGraphicsPathItem::boundingRect().adjusted(-kArrowSize, -kArrowSize, kArrowSize,
                                                    kArrowSize);
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) {
  painter->setRenderHint(QPainter::Antialiasing);
  QGraphicsPathItem::paint(painter, option, widget);
  if (arrow_tip_ == arrow_from_) return;
  const double direction = arrow_from_.y() > arrow_tip_.y() ? 1.0 : -1.0;
  QPolygonF head;
  head << arrow_tip_
       << QPointF(arrow_tip_.x() - kArrowSize / 2, arrow_tip_.y() + direction * kArrowSize)
       << QPointF(arrow_tip_.x() + kArrowSize / 2, arrow_tip_.y() + direction * kArrowSize);
  painter->setPen(Qt::NoPen);
  painter->setBrush(color_);
  painter->drawPolygon(head);
}

GraphLegend::GraphLegend(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

// The view sets its legend on every snapshot; an unchanged legend must not cost a relayout.
bool GraphLegend::sameEntries(const std::vector<Entry>& entries) const {
  if (entries.size() != entries_.size()) return false;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& a = entries[i];
    const Entry& b = entries_[i];
    if (a.color != b.color || a.label != b.label || a.ring != b.ring) return false;
  }
  return true;
}

void GraphLegend::setEntries(const QString& title, std::vector<Entry> entries) {
  if (!ramp_ && title == title_ && sameEntries(entries)) return;
  title_ = title;
  entries_ = std::move(entries);
  ramp_ = false;
  updateGeometry();
  update();
}

void GraphLegend::setRamp(const QString& title, const QString& low, const QString& high,
                          std::vector<Entry> extra) {
  if (ramp_ && title == title_ && low == low_ && high == high_ && sameEntries(extra)) return;
  title_ = title;
  low_ = low;
  high_ = high;
  entries_ = std::move(extra);
  ramp_ = true;
  updateGeometry();
  update();
}

// Items flow left to right and wrap: the title, the ramp (if any), then the swatches.
std::vector<QRect> GraphLegend::layoutItems(int width) const {
  const QFontMetrics metrics(font());
  const int line = metrics.height() + 6;
  const int available = std::max(width - 8, 120);
  std::vector<QRect> items;
  int x = 6;
  int y = 3;
  auto place = [&](int item_width) {
    if (x > 6 && x + item_width > available) {
      x = 6;
      y += line;
    }
    items.push_back(QRect(x, y, item_width, line));
    x += item_width + 14;
  };
  QFont bold = font();
  bold.setBold(true);
  place(QFontMetrics(bold).horizontalAdvance(title_));
  if (ramp_) {
    place(metrics.horizontalAdvance(low_) + metrics.horizontalAdvance(high_) + kRampWidth + 12);
  }
  for (const Entry& entry : entries_) place(metrics.horizontalAdvance(entry.label) + 26);
  return items;
}

QSize GraphLegend::sizeHint() const {
  const std::vector<QRect> items = layoutItems(std::max(width(), 300));
  return QSize(300, items.empty() ? 0 : items.back().bottom() + 4);
}

bool GraphLegend::hasHeightForWidth() const {
  return true;
}

int GraphLegend::heightForWidth(int width) const {
  const std::vector<QRect> items = layoutItems(width);
  return items.empty() ? 0 : items.back().bottom() + 4;
}

void GraphLegend::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (heightForWidth(width()) != height()) updateGeometry();
}

void GraphLegend::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  const std::vector<QRect> items = layoutItems(width());
  if (items.empty()) return;
  const QFontMetrics metrics(font());
  QFont bold = font();
  bold.setBold(true);
  size_t next = 0;
  painter.setFont(bold);
  painter.setPen(theme.text);
  painter.drawText(items[next++], Qt::AlignLeft | Qt::AlignVCenter, title_);
  painter.setFont(font());
  if (ramp_ && next < items.size()) {
    const QRect area = items[next++];
    int x = area.left();
    painter.setPen(theme.text);
    const int low_width = metrics.horizontalAdvance(low_);
    painter.drawText(QRect(x, area.top(), low_width, area.height()), Qt::AlignVCenter, low_);
    x += low_width + 6;
    const QRect bar(x, area.top() + 4, kRampWidth, area.height() - 8);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 8; ++i) gradient.setColorAt(i / 8.0, RampColor(i / 8.0));
    painter.setPen(Qt::NoPen);
    painter.setBrush(gradient);
    painter.drawRect(bar);
    painter.setPen(theme.text);
    painter.drawText(QRect(bar.right() + 6, area.top(), area.right() - bar.right(), area.height()),
                     Qt::AlignVCenter, high_);
  }
  for (const Entry& entry : entries_) {
    if (next >= items.size()) break;
    const QRect area = items[next++];
    const QRect swatch(area.left(), area.top() + 4, 18, area.height() - 8);
    if (entry.ring) {
      painter.setPen(QPen(entry.color, 2.5));
      painter.setBrush(Qt::NoBrush);
    } else {
      painter.setPen(QPen(theme.border, 0.8));
      painter.setBrush(entry.color);
    }
    painter.drawRoundedRect(swatch, 3, 3);
    painter.setPen(theme.text);
    painter.drawText(area.adjusted(24, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, entry.label);
  }
}

}  // namespace trainscope
