// SPDX-License-Identifier: Apache-2.0
//
// GradientsView: which layers learn. "Per layer" shows, for the latest optimizer step, the L2
// norm and max |g| of every trained tensor (log scale) with red NaN/Inf markers counted in the
// legend, and below it the update ratio ||dW||/||W|| per tensor. "Heatmap" is the tensors x
// optimizer-steps matrix (log colour scale; older columns cover several steps, labelled by range).
// "Histogram" is the log-magnitude histogram of the selected tensor.
//
// Reads the SessionStore through a SnapshotFollower; the Graph (copied) only names the tensors.
//
//   GradientsView view;
//   view.setGraph(model.graph());
//   view.setStore(store);
//   view.selectOps({3});  // histogram of op 3's first tensor
#pragma once

#include <QList>
#include <QWidget>

#include <memory>

#include "engine/model/graph.h"
#include "ui/session/session_store.h"

class QComboBox;
class QCustomPlot;
class QCPAxisRect;
class QCPBars;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QCPItemStraightLine;
class QLabel;
class QTabWidget;

namespace trainscope {

class SnapshotFollower;

class GradientsView : public QWidget {
  Q_OBJECT

 public:
  enum class HeatmapValue { kL2 = 0, kMaxAbs, kUpdateRatio };

  explicit GradientsView(QWidget* parent = nullptr);
  ~GradientsView() override;
  // Docks start from this size; the content itself scales down much further.
  QSize sizeHint() const override { return QSize(560, 420); }

  void setGraph(const Graph& graph);
  void setStore(std::shared_ptr<SessionStore> store);
  void setHeatmapValue(HeatmapValue value);
  // The histogram follows the first tensor of the first op given (e.g. the graph selection).
  void selectOps(const QList<int>& ops);
  void selectTensor(int32_t tensor);
  int32_t selectedTensor() const { return selected_tensor_; }

  QTabWidget* tabs() const { return tabs_; }
  QCPBars* l2Bars() const { return l2_bars_; }
  QCPBars* maxBars() const { return max_bars_; }
  QCPBars* ratioBars() const { return ratio_bars_; }
  QCPGraph* nonFiniteMarkers() const { return non_finite_; }
  QCPColorMap* heatmap() const { return heatmap_; }
  QCPBars* histogramBars() const { return histogram_; }
  // How often the plots were rebuilt: only when gradients arrived, or on refresh().
  uint64_t rebuildCount() const { return rebuilds_; }

 public Q_SLOTS:
  void refresh();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void onSnapshot(const SessionSnapshot& snapshot);
  void rebuild(const SessionSnapshot& snapshot);
  void rebuildLayers(const SessionSnapshot& snapshot);
  void rebuildHeatmap(const SessionSnapshot& snapshot);
  void rebuildHistogram(const SessionSnapshot& snapshot);
  void applyTheme();
  QString tensorLabel(int32_t tensor, uint32_t op) const;

  Graph graph_;
  int32_t selected_tensor_ = -1;
  HeatmapValue heatmap_value_ = HeatmapValue::kL2;

  QTabWidget* tabs_ = nullptr;
  QCustomPlot* layers_plot_ = nullptr;
  QCPAxisRect* ratio_rect_ = nullptr;
  QCPBars* l2_bars_ = nullptr;
  QCPBars* max_bars_ = nullptr;
  QCPBars* ratio_bars_ = nullptr;
  QCPGraph* non_finite_ = nullptr;
  QCPItemStraightLine* ratio_guide_ = nullptr;
  QCustomPlot* heatmap_plot_ = nullptr;
  QCPColorMap* heatmap_ = nullptr;
  QCPColorScale* color_scale_ = nullptr;
  QCPGraph* heatmap_nan_ = nullptr;
  QComboBox* heatmap_combo_ = nullptr;
  QCustomPlot* histogram_plot_ = nullptr;
  QCPBars* histogram_ = nullptr;
  QComboBox* tensor_combo_ = nullptr;
  QLabel* histogram_title_ = nullptr;
  SnapshotFollower* follower_ = nullptr;
  // The matrix shown now. Every gradient and update-ratio event replaces it in the store while a
  // snapshot (and so this view) holds it, so the same pointer means no new gradient data.
  std::shared_ptr<const GradientMatrix> shown_gradients_;
  uint64_t rebuilds_ = 0;
};

}  // namespace trainscope
