// SPDX-License-Identifier: Apache-2.0
//
// LayersPanel: choose which operators train, see what it costs before applying it. A table of
// the operators (LayersModel: trains checkbox, rank, warnings), a "last N layers" spin box, and a
// preview line with the heap peak, arena size and trained parameter count of the pending choice
// and their deltas against the applied one. The numbers come from an estimate callback the owner
// provides (the memory planner); without one, only the parameter count is shown.
//
// Apply emits trainabilityApplied(last_n, ranks) - the owner forwards it to the EventSource,
// which applies it at the next optimizer step - and Revert returns to the applied choice.
//
//   LayersPanel panel;
//   panel.setGraph(model.graph());
//   panel.setEstimator([&](uint32_t n, const TrainRankMap& ranks) { return planner.Estimate(n,
//   ranks); }); connect(&panel, &LayersPanel::trainabilityApplied, source,
//   &EventSource::setTrainability);
#pragma once

#include <QList>
#include <QMetaType>
#include <QWidget>

#include <cstdint>
#include <functional>
#include <map>

#include "engine/model/graph.h"
#include "ui/session/trainability.h"

class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

namespace trainscope {

using TrainRankMap = std::map<uint16_t, TrainRank>;

class LayersModel;

class LayersPanel : public QWidget {
  Q_OBJECT

 public:
  struct Estimate {
    uint64_t heap_peak_bytes = 0;
    uint64_t arena_bytes = 0;
    uint64_t trained_params = 0;
  };
  using Estimator = std::function<Estimate(uint32_t last_n, const TrainRankMap& ranks)>;

  explicit LayersPanel(QWidget* parent = nullptr);
  ~LayersPanel() override;
  // Docks start from this size; the content itself scales down much further.
  QSize sizeHint() const override { return QSize(480, 480); }

  void setGraph(const Graph& graph);
  void setEstimator(Estimator estimator);
  // The configuration the source runs with (e.g. read from a train-config file).
  void setAppliedTrainability(const TrainabilityConfig& config);
  const TrainabilityConfig& appliedTrainability() const;
  const TrainabilityConfig& pendingTrainability() const;
  void setOpWarning(int op, const QString& text);
  void clearOpWarnings();

  LayersModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QSpinBox* lastNSpinBox() const { return last_n_spin_; }
  QLabel* previewLabel() const { return preview_; }
  QPushButton* applyButton() const { return apply_button_; }
  QPushButton* revertButton() const { return revert_button_; }

 public Q_SLOTS:
  void apply();
  void revert();
  void selectOps(const QList<int>& ops);

 Q_SIGNALS:
  void trainabilityApplied(uint32_t last_n, const trainscope::TrainRankMap& ranks);
  void opsSelected(const QList<int>& ops);

 private:
  void updatePreview();
  Estimate estimate(const TrainabilityConfig& config) const;

  LayersModel* model_ = nullptr;
  QTableView* table_ = nullptr;
  QSpinBox* last_n_spin_ = nullptr;
  QLabel* preview_ = nullptr;
  QPushButton* apply_button_ = nullptr;
  QPushButton* revert_button_ = nullptr;
  Estimator estimator_;
  bool selecting_ = false;
};

}  // namespace trainscope

Q_DECLARE_METATYPE(trainscope::TrainRankMap)
