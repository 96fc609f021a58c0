// SPDX-License-Identifier: Apache-2.0
//
// TensorPanel: one tensor of the selected operator as the source holds it at this point of the
// step - its value (weights, bias or activation), its gradient, or Adam's moments - with count,
// min, max, mean, RMS, zeros and NaN/Inf counts, a histogram of the finite values and every value
// in a table (the last dimension as columns; NaN and Inf in red).
//
// The panel asks (EventSource::requestTensorValues) when the choice changes, when the source
// pauses, on Refresh, and twice a second while "Live" is on; it shows what comes back, the
// source's reason included when it cannot read the tensor. An answer to an older request is
// dropped.
//
//   panel->setGraph(graph);
//   panel->setSource(source);
//   connect(graph_view, &GraphView::selectionChanged, panel, &TensorPanel::selectOps);
#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <QPointer>
#include <QWidget>

#include "engine/model/graph.h"
#include "ui/session/sources/event_source.h"
#include "ui/session/tensor_values.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QTableView;
class QTimer;

namespace trainscope {

// The values of one answer as a table; NaN and Inf cells are red.
class TensorTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  explicit TensorTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setValues(TensorValuesPtr values);
  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  TensorValuesPtr values_;
  TensorGrid grid_;
};

class TensorPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kHistogramBins = 40;
  static constexpr int kLiveRefreshMs = 500;

  explicit TensorPanel(QWidget* parent = nullptr);

  void setGraph(const Graph& graph);
  void setSource(EventSource* source);

  // What the panel asks for now (tensor -1 when no op with a float tensor is selected).
  TensorRequest request() const;
  // The answer shown, null before the first.
  const TensorValuesPtr& shown() const { return shown_; }
  QString summaryText() const;
  QString whereText() const;
  TensorTableModel* tableModel() const { return table_model_; }
  // The tensors of the selected op the chooser lists, in order.
  QList<int32_t> choices() const;
  // Chooses a listed tensor and aspect (what the combo boxes do).
  void choose(int32_t tensor, TensorAspect aspect);

 public Q_SLOTS:
  // The first op of `ops` is shown; empty keeps the current one.
  void selectOps(const QList<int>& ops);
  void refresh();
  void showValues(trainscope::TensorValuesPtr values);

 private:
  void fillTensorChoices();
  void showSummary(const TensorValues& values);
  void plotHistogram(const TensorSummary& summary);

  Graph graph_;
  int op_ = -1;
  QPointer<EventSource> source_;
  TensorValuesPtr shown_;
  QComboBox* tensor_combo_ = nullptr;
  QComboBox* aspect_combo_ = nullptr;
  QCheckBox* live_check_ = nullptr;
  QLabel* where_label_ = nullptr;
  QLabel* summary_label_ = nullptr;
  QCustomPlot* histogram_ = nullptr;
  QTableView* table_ = nullptr;
  TensorTableModel* table_model_ = nullptr;
  QTimer* live_timer_ = nullptr;
};

}  // namespace trainscope
