// SPDX-License-Identifier: Apache-2.0
//
// The scene items and overlays GraphView is drawn with: an operator node (a rounded box with a
// title, a shape line and a detail line, marked when it is the current backward op or finished
// in this sample), an edge (a smooth route with an arrow head and an optional tensor label), and
// the legend that sits in the canvas corner. Items only paint what GraphView tells them.
#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QString>
#include <QWidget>

#include <vector>

#include "ui/widgets/graph/graph_layout.h"

namespace trainscope {

struct NodeLook {
  QString title;     // "#3  FULLY_CONNECTED"
  QString subtitle;  // output shape
  QString detail;    // rank, metric value or summary
  QColor fill;
  QColor text;
  QColor border;
  QColor accent;  // the current-op ring
  QColor done;    // the finished mark
  bool current = false;
  bool done_mark = false;
  bool warning = false;     // NaN/Inf seen in this op's gradients
  bool breakpoint = false;  // a breakpoint before this op's backward step: a red dot
  bool divergent = false;   // the first divergent op of a comparison: a dashed ring and "≠"
  QColor divergent_color;

  bool operator==(const NodeLook& other) const;
  bool operator!=(const NodeLook& other) const { return !(*this == other); }
};

class OpNodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 1 };
  OpNodeItem(int node, const QSizeF& size);

  int node() const { return node_; }
  const NodeLook& look() const { return look_; }
  void setLook(const NodeLook& look);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  int node_;
  QSizeF size_;
  NodeLook look_;
};

class EdgeItem : public QGraphicsPathItem {
 public:
  // `arrow_at_start`: the arrow points at the route's first point (gradients flow backwards).
  EdgeItem(const std::vector<LayoutPoint>& points, bool arrow_at_start);
  void setColor(const QColor& color);
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  QRectF boundingRect() const override;

 private:
  QPointF arrow_tip_;
  QPointF arrow_from_;
  QColor color_;
};

// A strip under the graph listing colour swatches, or a colour ramp with its range; the items
// wrap onto more lines when the strip is narrow.
class GraphLegend : public QWidget {
  Q_OBJECT

 public:
  struct Entry {
    QColor color;
    QString label;
    bool ring = false;  // drawn as an outline (current / done marks) instead of a fill
  };

  explicit GraphLegend(QWidget* parent);
  void setEntries(const QString& title, std::vector<Entry> entries);
  void setRamp(const QString& title, const QString& low, const QString& high,
               std::vector<Entry> extra);
  QString title() const { return title_; }
  QSize sizeHint() const override;
  bool hasHeightForWidth() const override;
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  static constexpr int kRampWidth = 110;
  std::vector<QRect> layoutItems(int width) const;
  bool sameEntries(const std::vector<Entry>& entries) const;

  QString title_;
  std::vector<Entry> entries_;
  bool ramp_ = false;
  QString low_;
  QString high_;
};

}  // namespace trainscope
