// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/layers/layers_model.h"

#include <QApplication>
#include <QFont>
#include <QStyle>

#include "ui/widgets/common/format.h"

namespace trainscope {

LayersModel::LayersModel(QObject* parent) : QAbstractTableModel(parent) {}

// Like checkIndex(), but quiet: views and testers legitimately ask about invalid indices.
bool LayersModel::isOurs(const QModelIndex& index) const {
  return index.isValid() && index.model() == this && !index.parent().isValid() &&
         index.row() < rowCount() && index.column() < kColumnCount;
}

void LayersModel::setGraph(const Graph& graph) {
  beginResetModel();
  graph_ = graph;
  pending_ = TrainabilityConfig();
  applied_ = TrainabilityConfig();
  warnings_.clear();
  params_.clear();
  if (!graph_.subgraphs.empty()) {
    for (size_t k = 0; k < graph_.main().operators.size(); ++k) {
      params_.push_back(OperatorParameterCount(graph_.main(), k));
    }
  }
  resolve();
  endResetModel();
}

void LayersModel::setPending(const TrainabilityConfig& config) {
  pending_ = config;
  resolve();
  if (rowCount() > 0) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1));
  Q_EMIT pendingChanged();
}

void LayersModel::setApplied(const TrainabilityConfig& config) {
  applied_ = config;
  resolve();
  if (rowCount() > 0) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1));
}

void LayersModel::setLastN(uint32_t last_n) {
  TrainabilityConfig config;
  config.num_train_layers = last_n;
  setPending(config);
}

void LayersModel::setWarning(int op, const QString& text) {
  if (op < 0 || op >= rowCount()) return;
  if (text.isEmpty()) {
    warnings_.erase(op);
  } else {
    warnings_[op] = text;
  }
  Q_EMIT dataChanged(index(op, 0), index(op, kColumnCount - 1));
}

void LayersModel::clearWarnings() {
  warnings_.clear();
  if (rowCount() > 0) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1));
}

void LayersModel::resolve() {
  if (graph_.subgraphs.empty()) {
    resolved_.clear();
    applied_resolved_.clear();
    return;
  }
  resolved_ = ResolveTrainability(graph_.main(), pending_);
  applied_resolved_ = ResolveTrainability(graph_.main(), applied_);
}

bool LayersModel::hasWeights(int op) const {
  return op >= 0 && static_cast<size_t>(op) < params_.size() &&
         params_[static_cast<size_t>(op)] > 0 &&
         HasOnertTrainableWeights(graph_.main().operators[static_cast<size_t>(op)].opcode);
}

bool LayersModel::differsFromApplied(int op) const {
  const auto k = static_cast<size_t>(op);
  if (k >= resolved_.size() || k >= applied_resolved_.size()) return false;
  const OpTrainability& a = resolved_[k];
  const OpTrainability& b = applied_resolved_[k];
  return a.in_backward_range != b.in_backward_range || a.trainable != b.trainable ||
         (a.trainable && a.rank != b.rank);
}

std::map<uint16_t, TrainRank> LayersModel::pendingAsRanks() const {
  if (!pending_.op_ranks.empty()) return pending_.op_ranks;
  std::map<uint16_t, TrainRank> ranks;
  for (size_t k = 0; k < resolved_.size(); ++k) {
    if (resolved_[k].trainable && hasWeights(static_cast<int>(k))) {
      ranks[static_cast<uint16_t>(k)] = resolved_[k].rank;
    }
  }
  return ranks;
}

void LayersModel::makeRanksExplicit() {
  if (pending_.op_ranks.empty()) pending_.op_ranks = pendingAsRanks();
}

int LayersModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(resolved_.size());
}

int LayersModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant LayersModel::data(const QModelIndex& index, int role) const {
  if (!isOurs(index)) {
    return QVariant();
  }
  const int op = index.row();
  const OpTrainability& train = resolved_[static_cast<size_t>(op)];
  const Operator& oper = graph_.main().operators[static_cast<size_t>(op)];
  const bool weights = hasWeights(op);
  const bool trains = train.trainable && weights;
  if (role == kOpIndexRole) return op;
  if (role == Qt::FontRole && differsFromApplied(op)) {
    QFont font;
    font.setBold(true);
    return font;
  }
  if (role == Qt::ForegroundRole && !train.in_backward_range) {
    return QApplication::palette().brush(QPalette::Disabled, QPalette::Text);
  }
  switch (index.column()) {
    case kIndex:
      if (role == Qt::DisplayRole) return op;
      if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
      break;
    case kType:
      if (role == Qt::DisplayRole) {
        const char* name = OpcodeName(oper.opcode);
        return name ? QString::fromLatin1(name) : QStringLiteral("OP %1").arg(oper.opcode);
      }
      break;
    case kParams:
      if (role == Qt::DisplayRole)
        return weights || params_[static_cast<size_t>(op)] > 0
                   ? FormatCount(params_[static_cast<size_t>(op)])
                   : QString();
      if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
      break;
    case kBackward:
      if (role == Qt::DisplayRole) {
        if (!train.in_backward_range) return QStringLiteral("—");
        return train.is_last_layer ? tr("%1 (last)").arg(train.backward_step)
                                   : QString::number(train.backward_step);
      }
      if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
      if (role == Qt::ToolTipRole) {
        if (!train.in_backward_range) return tr("Outside the backward range");
        return train.is_last_layer
                   ? tr("Backward step %1, the first op of the range: it computes no input "
                        "gradient")
                         .arg(train.backward_step)
                   : tr("Backward step %1 of runBackward").arg(train.backward_step);
      }
      break;
    case kTrains:
      if (role == Qt::CheckStateRole && weights)
        return static_cast<int>(trains ? Qt::Checked : Qt::Unchecked);
      if (role == Qt::ToolTipRole && !weights) return tr("No weights to train");
      break;
    case kRank:
      if (role == Qt::DisplayRole && trains) return QString::fromLatin1(TrainRankName(train.rank));
      if ((role == Qt::EditRole || role == kRankRole) && weights)
        return static_cast<int>(train.rank);
      break;
    case kWarning: {
      auto it = warnings_.find(op);
      if (it == warnings_.end()) break;
      if (role == Qt::DecorationRole) {
        return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
      }
      if (role == Qt::ToolTipRole) return it->second;
      break;
    }
    default:
      break;
  }
  return QVariant();
}

bool LayersModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!isOurs(index)) {
    return false;
  }
  const int op = index.row();
  if (!hasWeights(op)) return false;
  const auto key = static_cast<uint16_t>(op);
  if (index.column() == kTrains && role == Qt::CheckStateRole) {
    const bool checked = value.toInt() == Qt::Checked;
    makeRanksExplicit();
    if (checked) {
      pending_.op_ranks.emplace(key, TrainRank::kAll);
    } else {
      if (pending_.op_ranks.size() == 1 && pending_.op_ranks.count(key)) return false;
      pending_.op_ranks.erase(key);
    }
  } else if (index.column() == kRank && (role == Qt::EditRole || role == kRankRole)) {
    bool ok = false;
    const int rank = value.toInt(&ok);
    if (!ok || rank < 0 || rank >= kTrainRankCount) return false;
    makeRanksExplicit();
    pending_.op_ranks[key] = static_cast<TrainRank>(rank);
  } else {
    return false;
  }
  setPending(pending_);
  return true;
}

Qt::ItemFlags LayersModel::flags(const QModelIndex& index) const {
  if (!isOurs(index)) {
    return Qt::NoItemFlags;
  }
  Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  const int op = index.row();
  if (!hasWeights(op)) return flags;
  if (index.column() == kTrains) flags |= Qt::ItemIsUserCheckable;
  if (index.column() == kRank) flags |= Qt::ItemIsEditable;
  return flags;
}

QVariant LayersModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QVariant();
  switch (section) {
    case kIndex:
      return QStringLiteral("#");
    case kType:
      return tr("Type");
    case kParams:
      return tr("Params");
    case kBackward:
      return tr("Bwd step");
    case kTrains:
      return tr("Trains");
    case kRank:
      return tr("Rank");
    case kWarning:
      return QString();
    default:
      return QVariant();
  }
}

}  // namespace trainscope
