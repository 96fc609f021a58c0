// SPDX-License-Identifier: Apache-2.0
//
// LossView: loss per sample (top) and the metric per epoch (bottom). The loss is drawn from the
// store's decimated series: the mean of each bucket as the line and its min/max as a shaded
// envelope, so a spike survives any zoom level; NaN/Inf samples are red marks at the top with
// their count in the legend. "Follow" keeps the newest samples in view; dragging or zooming the
// plot turns it off until it is ticked again.
//
//   LossView view;
//   view.setStore(store);
#pragma once

#include <QWidget>

#include <memory>

#include "ui/session/session_store.h"

class QCheckBox;
class QCustomPlot;
class QCPAxisRect;
class QCPGraph;
class QSpinBox;

namespace trainscope {

class SnapshotFollower;

class LossView : public QWidget {
  Q_OBJECT

 public:
  explicit LossView(QWidget* parent = nullptr);
  ~LossView() override;
  // Docks start from this size; the content itself scales down much further.
  QSize sizeHint() const override { return QSize(440, 360); }

  void setStore(std::shared_ptr<SessionStore> store);
  void setFollow(bool follow);
  bool follow() const;
  void setLogScale(bool log);

  QCustomPlot* plot() const { return plot_; }
  QCPGraph* meanGraph() const { return mean_; }
  QCPGraph* minGraph() const { return min_; }
  QCPGraph* maxGraph() const { return max_; }
  QCPGraph* nonFiniteGraph() const { return non_finite_; }
  QCPGraph* metricGraph(int index) const { return metric_graphs_.at(static_cast<size_t>(index)); }
  // How often the plots were rebuilt: only when the loss or a metric changed, or on refresh().
  uint64_t rebuildCount() const { return rebuilds_; }

 public Q_SLOTS:
  void refresh();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void onSnapshot(const SessionSnapshot& snapshot);
  void rebuild(const SessionSnapshot& snapshot);
  void applyTheme();
  void scrollToNewest(double last_x);

  QCustomPlot* plot_ = nullptr;
  QCPAxisRect* metric_rect_ = nullptr;
  QCPGraph* mean_ = nullptr;
  QCPGraph* min_ = nullptr;
  QCPGraph* max_ = nullptr;
  QCPGraph* non_finite_ = nullptr;
  std::vector<QCPGraph*> metric_graphs_;
  QCheckBox* follow_check_ = nullptr;
  QCheckBox* log_check_ = nullptr;
  QSpinBox* window_spin_ = nullptr;
  SnapshotFollower* follower_ = nullptr;
  // What the plots show now; the store replaces a series instead of changing it while a
  // snapshot (and so this view) holds it, so the same pointer means the same data.
  std::shared_ptr<const DecimatedSeries> shown_loss_;
  std::vector<std::shared_ptr<const DecimatedSeries>> shown_metrics_;
  uint64_t rebuilds_ = 0;
};

}  // namespace trainscope
