// SPDX-License-Identifier: Apache-2.0
//
// GraphView: the model's operators as a layered graph that follows the training stream. Nodes
// show op index, type and output shape; edges show tensor shapes. The order toggle lays the graph
// out forward (op 0 at the top) or backward (the last op, backward step 0, at the top). The op
// whose backward step ran last is ringed, ops finished in this sample carry a band, and the fill
// shows trainability (rank, frozen, outside the backward range) or, as an overlay, a metric
// (gradient norm, bytes allocated by the op, update ratio) with a legend. A frozen prefix can
// collapse into one summary node. Wheel zooms, dragging pans, Ctrl+F finds by name or type.
//
// The view copies the Graph; it reads the stream from the SessionStore through a SnapshotFollower
// (repaints only when the store changed) and never talks to a source.
//
//   GraphView view;
//   view.setGraph(model.graph());
//   view.setStore(store);
//   connect(&view, &GraphView::selectionChanged, panel, &LayersPanel::selectOps);
#pragma once

#include <QGraphicsView>
#include <QList>
#include <QWidget>

#include <memory>
#include <set>
#include <vector>

#include "engine/model/graph.h"
#include "ui/session/session_store.h"
#include "ui/session/trainability.h"
#include "ui/widgets/graph/graph_items.h"
#include "ui/widgets/graph/graph_layout.h"

class QAction;
class QCheckBox;
class QComboBox;
class QGraphicsScene;
class QLineEdit;
class QToolButton;

namespace trainscope {

class SnapshotFollower;

class GraphCanvas : public QGraphicsView {
  Q_OBJECT

 public:
  explicit GraphCanvas(QWidget* parent);
  void zoomBy(double factor);
  double zoom() const { return transform().m11(); }

 protected:
  void wheelEvent(QWheelEvent* event) override;
};

class GraphView : public QWidget {
  Q_OBJECT

 public:
  enum class Overlay { kTrainability = 0, kGradientNorm, kBytesHeld, kUpdateRatio };
  Q_ENUM(Overlay)

  explicit GraphView(QWidget* parent = nullptr);
  ~GraphView() override;
  // Docks start from this size; the content itself scales down much further.
  QSize sizeHint() const override { return QSize(520, 760); }

  void setGraph(const Graph& graph);
  void setStore(std::shared_ptr<SessionStore> store);
  // The trainability the source runs with (colours, backward range, frozen prefix).
  void setTrainability(const TrainabilityConfig& config);
  const TrainabilityConfig& trainability() const { return config_; }
  // Ops with a breakpoint before their backward step carry a red dot.
  void setBreakpointOps(const std::set<uint32_t>& ops);
  // The first divergent op of a comparison (-1: none) carries a dashed ring and a "≠" badge.
  void setDivergentOp(int op);
  int divergentOp() const { return divergent_op_; }
  // Scrolls the canvas so `op`'s node is in view.
  void ensureOpVisible(int op);

  void setOrder(LayoutOrder order);
  LayoutOrder order() const { return order_; }
  void setOverlay(Overlay overlay);
  Overlay overlay() const { return overlay_; }
  void setCollapseFrozenPrefix(bool collapse);
  bool collapseFrozenPrefix() const { return collapse_; }

  // Selects every op whose type, output tensor name or "#index" contains `text`; returns how many.
  int find(const QString& text);
  QList<int> selectedOps() const;
  // External selection (e.g. from the layers panel); does not echo selectionChanged().
  void setSelectedOps(const QList<int>& ops);
  QAction* findAction() const { return find_action_; }

  // What is drawn, for tests and tooltips.
  int currentOp() const { return current_op_; }
  const std::vector<int>& doneOps() const { return done_ops_; }
  int nodeCount() const { return static_cast<int>(nodes_.size()); }
  int nodeOfOp(int op) const;
  const NodeLook* lookOfOp(int op) const;
  // The tooltip of the node showing `op` (empty when there is none).
  QString toolTipOfOp(int op) const;
  const GraphLayout& layout() const { return layout_; }
  GraphCanvas* canvas() const { return canvas_; }
  GraphLegend* legend() const { return legend_; }

 public Q_SLOTS:
  void fitToView();
  void refresh();  // pulls the latest snapshot now

 Q_SIGNALS:
  void selectionChanged(const QList<int>& ops);

 protected:
  void changeEvent(QEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void rebuildScene();
  void updateLooks();
  void updateLegend();
  void onSceneSelectionChanged();
  std::vector<int> opsOfNode(int node) const;
  double metricOfOp(const SessionSnapshot* snapshot, int op) const;
  NodeLook lookOfNode(int node, const SessionSnapshot* snapshot, double low, double high) const;
  // What hovering a node tells: its tensors (name, shape, type, bytes, role), its trainability
  // and rank, and its place in the backward loop.
  QString toolTipOfNode(int node) const;

  Graph graph_;
  TrainabilityConfig config_;
  std::vector<OpTrainability> resolved_;
  LayoutOrder order_ = LayoutOrder::kBackward;
  Overlay overlay_ = Overlay::kTrainability;
  bool collapse_ = true;
  size_t collapsed_prefix_ = 0;
  std::vector<int> node_of_op_;
  GraphLayout layout_;
  std::vector<OpNodeItem*> nodes_;
  std::vector<double> bytes_of_op_;  // allocated in the op's steps, latest train step
  int current_op_ = -1;
  std::vector<int> done_ops_;
  std::set<uint32_t> breakpoint_ops_;
  int divergent_op_ = -1;
  bool suppress_selection_signal_ = false;
  bool fit_pending_ = true;

  QGraphicsScene* scene_ = nullptr;
  GraphCanvas* canvas_ = nullptr;
  GraphLegend* legend_ = nullptr;
  QToolButton* forward_button_ = nullptr;
  QToolButton* backward_button_ = nullptr;
  QComboBox* overlay_combo_ = nullptr;
  QCheckBox* collapse_check_ = nullptr;
  QLineEdit* find_edit_ = nullptr;
  QAction* find_action_ = nullptr;
  SnapshotFollower* follower_ = nullptr;
};

}  // namespace trainscope
