// SPDX-License-Identifier: Apache-2.0
//
// What a training session is set up with - optimizer knobs, loss, metric, batch, epochs and the
// raw float32 data files (onert-micro's driver convention: one file per graph input, samples back
// to back, no header; sparse labels are one float per sample) - and the checks that tell, per
// field, what is wrong before anything is loaded.
//
// Widget-free and shared: the training set-up dialog shows the issues next to its fields, and
// trainscope-cli / trainscope-board-sim (app/common) refuse the same option values and data file
// sizes with the same wording. Only file sizes are read here, never the contents.
//
//   TrainingSetupRequest setup;
//   setup.options.learning_rate = 0.01f;
//   setup.use_builtin_data = false;
//   setup.data.inputs = {QStringLiteral("x.bin")};
//   setup.data.target = QStringLiteral("y.bin");
//   for (const SetupIssue& issue : ValidateTrainingSetup(graph.main(), setup))
//     qWarning() << SetupFieldName(issue.field) << issue.message;
#pragma once

#include <QString>
#include <QStringList>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/training_options.h"
#include "engine/model/graph.h"

namespace trainscope {

struct TrainingDataFiles {
  QStringList inputs;  // one per graph input
  QString target;
  QStringList test_inputs;  // optional: all empty, or one per graph input plus a test target
  QString test_target;

  bool operator==(const TrainingDataFiles& other) const {
    return inputs == other.inputs && target == other.target && test_inputs == other.test_inputs &&
           test_target == other.test_target;
  }
  bool hasTestSet() const;
};

struct TrainingSetupRequest {
  TrainingOptions options;
  // true: the demo data (bundled demo) or random samples of the right shape, not `data`.
  bool use_builtin_data = true;
  uint32_t builtin_sample_count = 0;  // samples the built-in data has (0: unknown, not checked)
  bool builtin_has_test_set = false;  // the demo has one; random samples do not
  TrainingDataFiles data;
};

enum class SetupField {
  kInput,  // SetupIssue::index names the graph input
  kTarget,
  kTestInput,
  kTestTarget,
  kOptimizer,
  kLearningRate,
  kBeta1,
  kBeta2,
  kEpsilon,
  kLoss,
  kMetric,
  kBatchSize,
  kEpochs,
};

struct SetupIssue {
  SetupField field = SetupField::kLearningRate;
  int index = -1;   // the graph input for kInput / kTestInput, else -1
  QString message;  // a sentence naming the value, the file and the expected size
};

// "input", "target", "learning rate", "beta1", "batch size" ...
QString SetupFieldName(SetupField field);

// Options only: learning rate finite and > 0; for Adam betas in [0, 1) and epsilon finite and
// > 0; batch size and epochs >= 1.
std::vector<SetupIssue> ValidateTrainingOptions(const TrainingOptions& options);

// Empty when a file of `bytes` bytes holds whole samples of `floats_per_sample` float32, else the
// reason, e.g. "has 1000 bytes, not a whole number of samples of 256 float32 (1024 bytes each)".
QString SampleFileSizeProblem(int64_t bytes, size_t floats_per_sample);

// Everything: the options, then (unless use_builtin_data) every data file against the graph's
// input shapes and the target size the loss (training) or metric (test) needs, sample counts
// between files, the batch against the training sample count, and whether the metric can read
// the training targets when no test set is given.
std::vector<SetupIssue> ValidateTrainingSetup(const Subgraph& main,
                                              const TrainingSetupRequest& setup);

}  // namespace trainscope
