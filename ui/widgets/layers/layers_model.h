// SPDX-License-Identifier: Apache-2.0
//
// LayersModel: one row per operator with its trainability as an editable table: index, type,
// parameter count, backward step, a "trains" checkbox, the rank (ALL, ONLY_BIAS, UP_1_2_PART,
// LOWER_1_2_PART) and a warning icon whose tooltip text the owner supplies per op.
//
// It edits a pending TrainabilityConfig with onert-micro's rules (ResolveTrainability): while the
// rank map is empty, "last N" decides; the first checkbox or rank edit turns the current
// selection into an explicit rank map, and changing N clears the map again. An explicit map
// cannot become empty (that would silently mean "last N" again), so the last trained op refuses
// to be unchecked. Rows whose state differs from the applied configuration are shown in bold.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <map>
#include <vector>

#include "engine/model/graph.h"
#include "ui/session/trainability.h"

namespace trainscope {

class LayersModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kIndex = 0, kType, kParams, kBackward, kTrains, kRank, kWarning, kColumnCount };
  enum Role { kOpIndexRole = Qt::UserRole + 1, kRankRole };

  explicit LayersModel(QObject* parent = nullptr);

  void setGraph(const Graph& graph);
  void setPending(const TrainabilityConfig& config);
  const TrainabilityConfig& pending() const { return pending_; }
  void setApplied(const TrainabilityConfig& config);
  const TrainabilityConfig& applied() const { return applied_; }
  void setLastN(uint32_t last_n);
  // The pending choice as an explicit rank map: its own map, or - for "last N" - the ops with
  // weights that train, at rank ALL (what a train-config file needs).
  std::map<uint16_t, TrainRank> pendingAsRanks() const;
  void setWarning(int op, const QString& text);  // empty text clears it
  void clearWarnings();
  const std::vector<OpTrainability>& resolved() const { return resolved_; }
  const Graph& graph() const { return graph_; }

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 Q_SIGNALS:
  void pendingChanged();

 private:
  bool isOurs(const QModelIndex& index) const;
  bool hasWeights(int op) const;
  // Turns "last N" into an explicit rank map (the ops with weights that currently train).
  void makeRanksExplicit();
  void resolve();
  bool differsFromApplied(int op) const;

  Graph graph_;
  TrainabilityConfig pending_;
  TrainabilityConfig applied_;
  std::vector<OpTrainability> resolved_;
  std::vector<OpTrainability> applied_resolved_;
  std::vector<size_t> params_;
  std::map<int, QString> warnings_;
};

}  // namespace trainscope
