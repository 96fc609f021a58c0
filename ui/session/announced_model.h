// SPDX-License-Identifier: Apache-2.0
//
// What a board says about the model it trains (MODEL_ANNOUNCE, INTERN_NAME), gathered into one
// value, and what the desktop does with it: find the matching .circle file by its FNV-1a 64 hash,
// draw a graph from the announced op list when no file matches, and turn a desired trainability
// into the SET_TRAINABILITY commands that get the board there.
//
// Plain values; nothing here keeps references. No Qt in the header except for QString paths.
//
//   AnnouncedModelBuilder builder;
//   builder.Add(announce);                 // once per MODEL_ANNOUNCE frame
//   if (builder.complete()) Show(BuildAnnouncedGraph(builder.model()));
#pragma once

#include <QString>
#include <QStringList>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/events.h"
#include "engine/model/graph.h"
#include "serial/protocol/messages.h"

namespace trainscope {

// What a board or a trace may claim, bounded before anything is allocated: a corrupted count
// must not make the desktop reserve gigabytes.
inline constexpr uint32_t kMaxAnnouncedOps = 1u << 16;
inline constexpr uint32_t kMaxAnnouncedTensors = 1u << 20;

struct AnnouncedModel {
  uint64_t hash = 0;
  uint32_t op_count = 0;
  uint32_t tensor_count = 0;
  uint8_t optimizer = wire::kOptimizerUnknown;   // the board trainer's OptimizerKind
  uint32_t batch_size = 0;                       // 0: unknown
  std::vector<wire::OpSummary> ops;              // by op index; op_count entries
  std::map<uint32_t, std::string> op_names;      // INTERN_NAME kind operator
  std::map<uint32_t, std::string> tensor_names;  // INTERN_NAME kind tensor

  // The trained set as the board reported it: op index -> rank of every trainable op.
  std::map<uint16_t, TrainRank> trainedOps() const;
};

// Collects a model announced in one or several frames (first_op grows). A frame with
// first_op == 0 or another hash/op count starts over; complete() once every op was described.
class AnnouncedModelBuilder {
 public:
  // False when the frame contradicts itself (first_op + entries past op_count) or claims more
  // than kMaxAnnouncedOps operators or kMaxAnnouncedTensors tensors; it is ignored.
  bool Add(const wire::ModelAnnounceMessage& announce);
  // Names of ids beyond the announced counts (or the caps, before any announcement) are ignored.
  void AddName(const wire::InternNameMessage& name);
  bool complete() const { return complete_; }
  bool announced() const { return announced_; }
  const AnnouncedModel& model() const { return model_; }

 private:
  AnnouncedModel model_;
  std::vector<bool> described_;
  uint32_t described_count_ = 0;
  bool complete_ = false;
  bool announced_ = false;
};

// A graph that GraphView can draw when the model file is not at hand: one operator per announced
// op with its opcode, linked in execution order (the announcement carries no data flow), tensors
// named after the board's INTERN_NAMEs where known. Shapes are unknown (empty).
Graph BuildAnnouncedGraph(const AnnouncedModel& model);

// FNV-1a 64 of a file's bytes, as MODEL_ANNOUNCE and trace headers carry it. False when the file
// cannot be read.
bool HashModelFile(const QString& path, uint64_t* hash);

// The first of `paths` whose bytes hash to `hash`. Directories are searched (not recursively)
// for .circle and .tflite files. Empty when none matches.
QString FindModelFileByHash(uint64_t hash, const QStringList& paths);

// The SET_TRAINABILITY commands (command ids left 0) that turn the board's trained set `current`
// into the desired one, in an order the board accepts (ops are added before others are cleared,
// so a trained op always remains). With `ranks` empty, `last_n` becomes LAST_LAYERS (0 = all).
std::vector<wire::SetTrainabilityCommand> PlanTrainabilityCommands(
    const std::map<uint16_t, TrainRank>& current, uint32_t last_n,
    const std::map<uint16_t, TrainRank>& ranks);

}  // namespace trainscope
