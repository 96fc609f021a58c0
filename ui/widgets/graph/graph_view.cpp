// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/graph/graph_view.h"

#include <QAction>
#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "ui/widgets/common/format.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/common/theme.h"

namespace trainscope {
namespace {
constexpr int kMaxEdgeLabels = 400;  // beyond this the labels only add clutter
constexpr double kMinNodeWidth = 150.0;
constexpr double kMaxNodeWidth = 320.0;
}  // namespace

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent) {
  setDragMode(QGraphicsView::ScrollHandDrag);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
}

void GraphCanvas::zoomBy(double factor) {
  const double next = zoom() * factor;
  if (next < 0.05 || next > 8.0) return;
  scale(factor, factor);
}

void GraphCanvas::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0.0) return;
  zoomBy(std::pow(1.15, steps));
  event->accept();
}

GraphView::GraphView(QWidget* parent) : QWidget(parent) {
  auto* toolbar = new QHBoxLayout;
  toolbar->setContentsMargins(4, 4, 4, 0);
  forward_button_ = new QToolButton(this);
  forward_button_->setText(tr("Forward"));
  forward_button_->setToolTip(tr("Operator 0 at the top, in execution order"));
  backward_button_ = new QToolButton(this);
  backward_button_->setText(tr("Backward"));
  backward_button_->setToolTip(
      tr("The last operator at the top: the order runBackward visits them (backward step i)"));
  for (QToolButton* button : {forward_button_, backward_button_}) {
    button->setCheckable(true);
    button->setAutoRaise(true);
  }
  auto* order_group = new QButtonGroup(this);
  order_group->setExclusive(true);
  order_group->addButton(forward_button_);
  order_group->addButton(backward_button_);
  backward_button_->setChecked(true);
  connect(forward_button_, &QToolButton::toggled, this, [this](bool on) {
    if (on) setOrder(LayoutOrder::kForward);
  });
  connect(backward_button_, &QToolButton::toggled, this, [this](bool on) {
    if (on) setOrder(LayoutOrder::kBackward);
  });

  overlay_combo_ = new QComboBox(this);
  overlay_combo_->addItem(tr("Trainability"));
  overlay_combo_->addItem(tr("Gradient norm"));
  overlay_combo_->addItem(tr("Bytes held"));
  overlay_combo_->addItem(tr("Update ratio"));
  overlay_combo_->setToolTip(tr("What the node colour shows"));
  connect(overlay_combo_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int index) { setOverlay(static_cast<Overlay>(index)); });

  collapse_check_ = new QCheckBox(tr("Collapse frozen"), this);
  collapse_check_->setChecked(collapse_);
  collapse_check_->setToolTip(tr("Show the operators before the backward range as one node"));
  connect(collapse_check_, &QCheckBox::toggled, this, &GraphView::setCollapseFrozenPrefix);

  auto* fit_button = new QToolButton(this);
  fit_button->setText(tr("Fit"));
  fit_button->setAutoRaise(true);
  fit_button->setToolTip(tr("Show the whole graph"));
  connect(fit_button, &QToolButton::clicked, this, &GraphView::fitToView);

  find_edit_ = new QLineEdit(this);
  find_edit_->setPlaceholderText(tr("Find op…"));
  find_edit_->setToolTip(tr("Select operators by type, output tensor name or #index (Ctrl+F)"));
  find_edit_->setClearButtonEnabled(true);
  find_edit_->setMinimumWidth(110);
  find_edit_->setMaximumWidth(200);
  connect(find_edit_, &QLineEdit::returnPressed, this, [this] { find(find_edit_->text()); });

  find_action_ = new QAction(tr("Find Operator…"), this);
  find_action_->setShortcut(QKeySequence::Find);
  connect(find_action_, &QAction::triggered, this, [this] {
    find_edit_->setFocus(Qt::ShortcutFocusReason);
    find_edit_->selectAll();
  });
  addAction(find_action_);

  toolbar->addWidget(forward_button_);
  toolbar->addWidget(backward_button_);
  toolbar->addSpacing(8);
  toolbar->addWidget(overlay_combo_);
  toolbar->addWidget(collapse_check_);
  toolbar->addStretch(1);
  toolbar->addWidget(find_edit_);
  toolbar->addWidget(fit_button);

  scene_ = new QGraphicsScene(this);
  canvas_ = new GraphCanvas(this);
  canvas_->setScene(scene_);
  connect(scene_, &QGraphicsScene::selectionChanged, this, &GraphView::onSceneSelectionChanged);
  legend_ = new GraphLegend(this);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(toolbar);
  layout->addWidget(canvas_, 1);
  layout->addWidget(legend_);

  follower_ = new SnapshotFollower(this);
  follower_->setCallback([this](const auto&) { updateLooks(); });
  updateLegend();
}

GraphView::~GraphView() {
  // The scene dies with this widget and announces the lost selection on its way out.
  disconnect(scene_, nullptr, this, nullptr);
  nodes_.clear();
}

void GraphView::setGraph(const Graph& graph) {
  graph_ = graph;
  resolved_ = graph_.subgraphs.empty() ? std::vector<OpTrainability>()
                                       : ResolveTrainability(graph_.main(), config_);
  fit_pending_ = true;
  rebuildScene();
}

void GraphView::setStore(std::shared_ptr<SessionStore> store) {
  follower_->setStore(std::move(store));
}

void GraphView::setTrainability(const TrainabilityConfig& config) {
  config_ = config;
  if (graph_.subgraphs.empty()) return;
  resolved_ = ResolveTrainability(graph_.main(), config_);
  rebuildScene();
}

void GraphView::setBreakpointOps(const std::set<uint32_t>& ops) {
  if (ops == breakpoint_ops_) return;
  breakpoint_ops_ = ops;
  updateLooks();
}

void GraphView::setDivergentOp(int op) {
  if (op == divergent_op_) return;
  divergent_op_ = op;
  updateLooks();
}

void GraphView::ensureOpVisible(int op) {
  const int node = nodeOfOp(op);
  if (node >= 0 && static_cast<size_t>(node) < nodes_.size()) {
    canvas_->ensureVisible(nodes_[static_cast<size_t>(node)], 40, 40);
  }
}

void GraphView::setOrder(LayoutOrder order) {
  if (order == order_) return;
  order_ = order;
  QSignalBlocker block_forward(forward_button_);
  QSignalBlocker block_backward(backward_button_);
  forward_button_->setChecked(order == LayoutOrder::kForward);
  backward_button_->setChecked(order == LayoutOrder::kBackward);
  fit_pending_ = true;
  rebuildScene();
}

void GraphView::setOverlay(Overlay overlay) {
  overlay_ = overlay;
  QSignalBlocker block(overlay_combo_);
  overlay_combo_->setCurrentIndex(static_cast<int>(overlay));
  updateLooks();
}

void GraphView::setCollapseFrozenPrefix(bool collapse) {
  if (collapse == collapse_) return;
  collapse_ = collapse;
  QSignalBlocker block(collapse_check_);
  collapse_check_->setChecked(collapse);
  rebuildScene();
}

int GraphView::nodeOfOp(int op) const {
  if (op < 0 || static_cast<size_t>(op) >= node_of_op_.size()) return -1;
  return node_of_op_[static_cast<size_t>(op)];
}

const NodeLook* GraphView::lookOfOp(int op) const {
  const int node = nodeOfOp(op);
  if (node < 0 || static_cast<size_t>(node) >= nodes_.size()) return nullptr;
  return &nodes_[static_cast<size_t>(node)]->look();
}

QString GraphView::toolTipOfOp(int op) const {
  const int node = nodeOfOp(op);
  return node >= 0 && static_cast<size_t>(node) < nodes_.size() ? nodes_[node]->toolTip()
                                                                : QString();
}

std::vector<int> GraphView::opsOfNode(int node) const {
  std::vector<int> ops;
  for (size_t op = 0; op < node_of_op_.size(); ++op) {
    if (node_of_op_[op] == node) ops.push_back(static_cast<int>(op));
  }
  return ops;
}

void GraphView::rebuildScene() {
  const QList<int> selection = selectedOps();
  // Forget the items before the scene deletes them: clearing may announce a selection change.
  suppress_selection_signal_ = true;
  nodes_.clear();
  scene_->clear();
  suppress_selection_signal_ = false;
  node_of_op_.clear();
  layout_ = GraphLayout();
  if (graph_.subgraphs.empty()) {
    updateLegend();
    return;
  }
  const Subgraph& subgraph = graph_.main();
  const size_t n = subgraph.operators.size();
  size_t frozen_prefix = 0;
  while (frozen_prefix < n && frozen_prefix < resolved_.size() &&
         !resolved_[frozen_prefix].in_backward_range) {
    ++frozen_prefix;
  }
  collapsed_prefix_ = collapse_ && frozen_prefix >= 2 ? frozen_prefix : 0;

  LayoutInput input = LayoutInputFromSubgraph(subgraph, collapsed_prefix_, &node_of_op_);
  nodes_.reserve(input.node_count);
  // Size every node for its longest line at the widget's font.
  QFont bold = font();
  bold.setBold(true);
  const QFontMetricsF bold_metrics(bold);
  const QFontMetricsF metrics(font());
  input.widths.assign(input.node_count, kMinNodeWidth);
  std::vector<NodeLook> looks(input.node_count);
  for (size_t node = 0; node < input.node_count; ++node) {
    looks[node] = lookOfNode(static_cast<int>(node), nullptr, 0.0, 0.0);
    const double text = std::max({bold_metrics.horizontalAdvance(looks[node].title),
                                  metrics.horizontalAdvance(looks[node].subtitle),
                                  metrics.horizontalAdvance(looks[node].detail) + 40.0});
    // Room for the padding, the done band and the NaN badge.
    input.widths[node] = std::clamp(text + 48.0, kMinNodeWidth, kMaxNodeWidth);
  }
  LayoutOptions options;
  options.order = order_;
  options.node_height = std::max(54.0, 3.0 * metrics.height() + 12.0);
  layout_ = ComputeLayout(input, options);

  const ViewTheme theme = ViewTheme::fromPalette(palette());
  for (size_t node = 0; node < layout_.nodes.size(); ++node) {
    const NodePlacement& place = layout_.nodes[node];
    auto* item = new OpNodeItem(static_cast<int>(node), QSizeF(place.width, place.height));
    item->setPos(place.x, place.y);
    item->setLook(looks[node]);
    item->setToolTip(toolTipOfNode(static_cast<int>(node)));
    scene_->addItem(item);
    nodes_.push_back(item);
  }
  const bool label_edges = layout_.edges.size() <= kMaxEdgeLabels;
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
  for (const EdgeRoute& route : layout_.edges) {
    if (route.points.size() < 2) continue;
    auto* edge = new EdgeItem(route.points, order_ == LayoutOrder::kBackward);
    edge->setColor(theme.border);
    scene_->addItem(edge);
    if (!label_edges || route.tensor < 0 ||
        static_cast<size_t>(route.tensor) >= subgraph.tensors.size()) {
      continue;
    }
    const Tensor& tensor = subgraph.tensors[static_cast<size_t>(route.tensor)];
    auto* label = new QGraphicsSimpleTextItem(FormatShape(tensor.shape));
    label->setFont(small);
    label->setBrush(theme.muted_text);
    label->setToolTip(QString::fromStdString(tensor.name));
    const LayoutPoint& a = route.points[0];
    const LayoutPoint& b = route.points[1];
    label->setPos((a.x + b.x) / 2.0 + 6.0, (a.y + b.y) / 2.0 - label->boundingRect().height() / 2);
    scene_->addItem(label);
  }
  scene_->setSceneRect(QRectF(-40, -40, layout_.width + 80, layout_.height + 80));
  setSelectedOps(selection);
  updateLooks();
  if (fit_pending_ && isVisible()) fitToView();
}

void GraphView::fitToView() {
  if (scene_->items().isEmpty()) return;
  canvas_->fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
  // A small graph is not blown up past a comfortable reading size.
  if (canvas_->zoom() > 1.25) {
    const double factor = 1.25 / canvas_->zoom();
    canvas_->scale(factor, factor);
  }
  // Large graphs start readable at the top (the start of the chosen order), not as a speck.
  if (canvas_->zoom() < 0.45) {
    const double factor = 0.45 / canvas_->zoom();
    canvas_->scale(factor, factor);
    canvas_->centerOn(scene_->sceneRect().center().x(), 0);
  }
  fit_pending_ = false;
}

void GraphView::refresh() {
  follower_->refresh();
}

void GraphView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (fit_pending_) fitToView();
}

void GraphView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
    if (!graph_.subgraphs.empty()) rebuildScene();
    updateLegend();
  }
}

int GraphView::find(const QString& text) {
  const QString needle = text.trimmed();
  QList<int> matches;
  if (!needle.isEmpty() && !graph_.subgraphs.empty()) {
    const Subgraph& subgraph = graph_.main();
    for (size_t k = 0; k < subgraph.operators.size(); ++k) {
      const Operator& op = subgraph.operators[k];
      const char* name = OpcodeName(op.opcode);
      bool hit = QStringLiteral("#%1").arg(k) == needle ||
                 (name && QLatin1String(name).contains(needle, Qt::CaseInsensitive));
      for (int32_t output : op.outputs) {
        if (hit || output < 0 || static_cast<size_t>(output) >= subgraph.tensors.size()) continue;
        hit = QString::fromStdString(subgraph.tensors[static_cast<size_t>(output)].name)
                  .contains(needle, Qt::CaseInsensitive);
      }
      if (hit) matches.push_back(static_cast<int>(k));
    }
  }
  setSelectedOps(matches);
  onSceneSelectionChanged();  // a search is the user's own selection: announce it
  if (!matches.isEmpty()) {
    const int node = nodeOfOp(matches.front());
    if (node >= 0) canvas_->centerOn(nodes_[static_cast<size_t>(node)]);
  }
  return static_cast<int>(matches.size());
}

QList<int> GraphView::selectedOps() const {
  QList<int> ops;
  for (const OpNodeItem* item : nodes_) {
    if (!item->isSelected()) continue;
    for (int op : opsOfNode(item->node())) ops.push_back(op);
  }
  std::sort(ops.begin(), ops.end());
  return ops;
}

void GraphView::setSelectedOps(const QList<int>& ops) {
  suppress_selection_signal_ = true;
  std::vector<bool> wanted(nodes_.size(), false);
  for (int op : ops) {
    const int node = nodeOfOp(op);
    if (node >= 0 && static_cast<size_t>(node) < wanted.size())
      wanted[static_cast<size_t>(node)] = true;
  }
  for (size_t node = 0; node < nodes_.size(); ++node) nodes_[node]->setSelected(wanted[node]);
  suppress_selection_signal_ = false;
}

void GraphView::onSceneSelectionChanged() {
  if (suppress_selection_signal_) return;
  Q_EMIT selectionChanged(selectedOps());
}

}  // namespace trainscope
