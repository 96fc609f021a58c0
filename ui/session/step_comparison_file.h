// SPDX-License-Identifier: Apache-2.0
//
// StepComparisonFile: the report `trainscope-cli diff ... --json FILE [--values]` writes (one
// optimizer step of a board beside the reference engine, docs/cli.md "diff"), read back as an
// immutable comparison the app shows. Nothing in the file is trusted: every field is checked for
// its type and range, a shape's product must equal the number of values, the counts must agree
// with the values, and sizes are capped; an error names the field and where it is
// ("ops[1].tensors[2].board_values: 7 values, the shape [2×4] has 8"). CheckFitsModel() then
// holds the operators and tensors against the model the app shows.
//
// The figures are the file's. Whether a tensor diverges is decided again for the thresholds the
// user sets, by the rule CompareStep uses (Diverges, serial/compare/step_comparison.h), and the
// first divergent operator is the one of the first divergent tensor in the order the step reached
// them (each sample's backward ops in turn, then the update), as `diff` names it.
//
// QtCore only.
//
//   StepComparisonPtr file;
//   if (Status s = LoadStepComparison(path, &file); !s.ok()) Show(s.message());
//   const ComparisonVerdict verdict = EvaluateComparison(*file, thresholds);
//   if (verdict.first_divergent_op >= 0) graph->setDivergentOp(verdict.first_divergent_op);
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/status.h"
#include "engine/model/graph.h"
#include "serial/compare/step_comparison.h"

namespace trainscope {

// Sizes a file may have; beyond them it is refused rather than read.
inline constexpr qint64 kMaxComparisonFileBytes = qint64{512} << 20;
inline constexpr size_t kMaxComparisonTensors = 100000;
inline constexpr uint64_t kMaxComparisonTensorValues = uint64_t{1} << 26;
inline constexpr uint64_t kMaxComparisonTotalValues = uint64_t{1} << 27;

struct ComparedTensor {
  // Where it was read and what the file says of it; `pair.divergent` is the file's verdict.
  TensorComparison pair;
  QString name;
  bool has_values = false;  // written with --values
  std::vector<float> board_values;
  std::vector<float> reference_values;

  bool bothHeld() const { return pair.board_held && pair.reference_held; }
  uint64_t valueCount() const;  // the product of the shape (0 unless both held)
};

struct ComparedOp {
  uint32_t op = 0;
  QString opcode;
  uint32_t backward_step = 0;
  std::vector<size_t> tensors;  // indices into StepComparisonFile::tensors
  // What onert-micro is known to compute differently at this op (empty in older reports).
  QStringList known_onert_differences;
};

struct ComparisonTransfer {
  uint64_t requests = 0;
  uint64_t not_held = 0;
  uint64_t values = 0;
  uint64_t chunks = 0;
  uint64_t payload_bytes = 0;
  uint64_t wire_bytes = 0;
  double seconds = 0.0;
};

struct StepComparisonFile {
  QString board;
  QString endpoint;
  QString model;  // the .circle the comparison was made with (an absolute path)
  uint64_t step = 0;
  DivergenceThresholds thresholds;  // what `diff` was run with
  // Every tensor in report order: each op's (ops in backward order), then the update's.
  std::vector<ComparedTensor> tensors;
  std::vector<ComparedOp> ops;
  size_t update_begin = 0;  // tensors[update_begin..] were read after the update
  uint64_t compared = 0;
  uint64_t held_on_one_side = 0;
  ComparisonTransfer transfer;
  int64_t file_first_divergent_op = -1;  // as the file names it; -1: none
  // What onert-micro is known to compute differently at file_first_divergent_op.
  QStringList known_onert_differences;
  bool known_differences_per_op = false;  // the ops carry their own lists (newer reports)
  // Indices into `tensors` in the order the step reached them.
  std::vector<size_t> step_order;

  bool hasValues() const;
};
using StepComparisonPtr = std::shared_ptr<const StepComparisonFile>;

// A comparison under one set of thresholds.
struct ComparisonVerdict {
  DivergenceThresholds thresholds;
  std::vector<bool> divergent;     // by tensor
  std::vector<bool> op_divergent;  // by ComparedOp
  int64_t first_divergent_tensor = -1;
  int64_t first_divergent_op = -1;  // operator index
  size_t divergent_tensors = 0;
  int64_t largest = -1;  // the tensor with the largest relative L2 error, -1 when none compared
};

// Which figures of a difference are beyond the thresholds, each decided by Diverges() with that
// threshold alone (what a view marks cell by cell).
struct FiguresBeyond {
  bool relative_l2 = false;
  bool max_abs = false;
  bool max_ulp = false;
  bool cosine = false;
  bool nonfinite = false;  // NaN/Inf on one side only: always beyond
};
FiguresBeyond FiguresBeyondThresholds(const TensorDifference& difference,
                                      const DivergenceThresholds& thresholds);

ComparisonVerdict EvaluateComparison(const StepComparisonFile& file,
                                     const DivergenceThresholds& thresholds);

// `json` is the file's text; an error's message names the field.
Status ParseStepComparison(const QByteArray& json, StepComparisonPtr* out);
// Reads and parses `path`; an error's message starts with the file's name.
Status LoadStepComparison(const QString& path, StepComparisonPtr* out);
// Every op and tensor of `file` exists in `subgraph`, with the file's opcode, backward step and
// tensor name.
Status CheckFitsModel(const StepComparisonFile& file, const Subgraph& subgraph);

}  // namespace trainscope
