// SPDX-License-Identifier: Apache-2.0
#include "ui/session/announced_model.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

#include "engine/model/opcodes.h"

namespace trainscope {

std::map<uint16_t, TrainRank> AnnouncedModel::trainedOps() const {
  std::map<uint16_t, TrainRank> trained;
  const size_t limit = std::min<size_t>(ops.size(), UINT16_MAX + size_t{1});
  for (size_t k = 0; k < limit; ++k) {
    if (ops[k].trainable) trained[static_cast<uint16_t>(k)] = ops[k].rank;
  }
  return trained;
}

bool AnnouncedModelBuilder::Add(const wire::ModelAnnounceMessage& announce) {
  const uint64_t end = uint64_t{announce.first_op} + announce.entry_count;
  if (end > announce.op_count || announce.entry_count > wire::kMaxOpsPerAnnounce ||
      announce.op_count > kMaxAnnouncedOps || announce.tensor_count > kMaxAnnouncedTensors) {
    return false;
  }
  announced_ = true;
  model_.optimizer = announce.optimizer;
  model_.batch_size = announce.batch_size;
  const bool restart = announce.first_op == 0 || announce.model_hash != model_.hash ||
                       announce.op_count != model_.op_count;
  if (restart) {
    // Names belong to the model; a board announcing another model sends them again.
    if (announce.model_hash != model_.hash) {
      model_.op_names.clear();
      model_.tensor_names.clear();
    }
    model_.hash = announce.model_hash;
    model_.op_count = announce.op_count;
    model_.ops.assign(announce.op_count, wire::OpSummary{});
    described_.assign(announce.op_count, false);
    described_count_ = 0;
    complete_ = announce.op_count == 0;
  }
  model_.tensor_count = announce.tensor_count;
  for (uint32_t i = 0; i < announce.entry_count; ++i) {
    const uint32_t k = announce.first_op + i;
    model_.ops[k] = announce.ops[i];
    if (!described_[k]) {
      described_[k] = true;
      ++described_count_;
    }
  }
  complete_ = described_count_ == model_.op_count;
  return true;
}

void AnnouncedModelBuilder::AddName(const wire::InternNameMessage& name) {
  const bool op = name.kind == wire::NameKind::kOperator;
  const uint32_t limit = announced_ ? (op ? model_.op_count : model_.tensor_count)
                                    : (op ? kMaxAnnouncedOps : kMaxAnnouncedTensors);
  if (name.id >= limit) return;
  auto& names = op ? model_.op_names : model_.tensor_names;
  names[name.id] = std::string(name.name.c_str(), name.name.size);
}

Graph BuildAnnouncedGraph(const AnnouncedModel& model) {
  Graph graph;
  graph.description = "announced by the board (op codes only; edges follow execution order)";
  Subgraph main;
  main.name = "announced";
  const size_t n = model.ops.size();
  // Tensor 0 feeds op 0; tensor k+1 is op k's output and op k+1's input.
  main.tensors.resize(n + 1);
  main.tensors[0].name = "input";
  for (size_t k = 0; k < n; ++k) {
    Tensor& out = main.tensors[k + 1];
    const auto name = model.op_names.find(static_cast<uint32_t>(k));
    out.name = name != model.op_names.end()
                   ? name->second
                   : std::string(OpcodeName(model.ops[k].opcode)) + " #" + std::to_string(k);
    Operator op;
    op.opcode = model.ops[k].opcode;
    op.inputs = {static_cast<int32_t>(k)};
    op.outputs = {static_cast<int32_t>(k + 1)};
    main.operators.push_back(std::move(op));
  }
  main.inputs = {0};
  main.outputs = {static_cast<int32_t>(n)};
  graph.subgraphs.push_back(std::move(main));
  return graph;
}

bool HashModelFile(const QString& path, uint64_t* hash) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return false;
  uint64_t h = wire::kFnv1a64Offset;
  while (!file.atEnd()) {
    const QByteArray chunk = file.read(1 << 16);
    if (chunk.isEmpty()) break;
    h = wire::ModelHash(reinterpret_cast<const uint8_t*>(chunk.constData()),
                        static_cast<size_t>(chunk.size()), h);
  }
  *hash = h;
  return true;
}

QString FindModelFileByHash(uint64_t hash, const QStringList& paths) {
  const auto matches = [hash](const QString& file) {
    uint64_t h = 0;
    return HashModelFile(file, &h) && h == hash;
  };
  for (const QString& path : paths) {
    const QFileInfo info(path);
    if (info.isDir()) {
      const QStringList files = QDir(path).entryList(
          {QStringLiteral("*.circle"), QStringLiteral("*.tflite")}, QDir::Files, QDir::Name);
      for (const QString& file : files) {
        const QString full = QDir(path).filePath(file);
        if (matches(full)) return full;
      }
    } else if (info.isFile() && matches(path)) {
      return path;
    }
  }
  return QString();
}

std::vector<wire::SetTrainabilityCommand> PlanTrainabilityCommands(
    const std::map<uint16_t, TrainRank>& current, uint32_t last_n,
    const std::map<uint16_t, TrainRank>& ranks) {
  std::vector<wire::SetTrainabilityCommand> commands;
  if (ranks.empty()) {
    wire::SetTrainabilityCommand command;
    command.mode = wire::TrainabilityMode::kLastLayers;
    command.rank = TrainRank::kAll;
    command.value = last_n;
    commands.push_back(command);
    return commands;
  }
  for (const auto& [op, rank] : ranks) {
    const auto now = current.find(op);
    if (now != current.end() && now->second == rank) continue;
    wire::SetTrainabilityCommand command;
    command.mode = wire::TrainabilityMode::kSetOp;
    command.rank = rank;
    command.value = op;
    commands.push_back(command);
  }
  for (const auto& [op, rank] : current) {
    if (ranks.count(op) != 0) continue;
    wire::SetTrainabilityCommand command;
    command.mode = wire::TrainabilityMode::kClearOp;
    command.rank = rank;
    command.value = op;
    commands.push_back(command);
  }
  return commands;
}

}  // namespace trainscope
