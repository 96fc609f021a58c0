// SPDX-License-Identifier: Apache-2.0
//
// The training options every executable that trains takes the same way (trainscope-cli train,
// trainscope-board-sim): --optimizer --lr --beta1 --beta2 --epsilon --loss --metric --batch
// --epochs --train-layers --train-config --onert-math --kernels, and the raw float32 data files
// they train on; plus the smaller set the memory planners share (trainscope-cli memory / report).
//
// Defaults come from the model's CIRCLE_TRAINING metadata when it has one, then from
// onert-micro's OMConfig; options given on the command line win.
//
//   QCommandLineParser parser;
//   AddTrainingDataOptions(&parser);   // MODEL --input --target
//   AddTrainingOptions(&parser);
//   ... parser.parse(arguments), CheckTrainingArguments(parser, "train") ...
//   Model model; TrainingSetup setup; DataSet train;
//   Status s = LoadTrainingRun(parser, &model, &setup, &train);
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <cstddef>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/exec/trainer.h"
#include "engine/kernels/dense_loops.h"
#include "engine/memory/memory_report.h"
#include "engine/model/model.h"
#include "engine/plan/trainability.h"
#include "ui/session/training_run.h"

namespace trainscope::cli {

// The run itself (defaults, data files) is ui/session/training_run, shared with the app.
using ::trainscope::CheckBatchFits;
using ::trainscope::DefaultMetric;
using ::trainscope::DefaultTrainingSetup;
using ::trainscope::OutputElementCount;
using ::trainscope::ReadDataSet;
using ::trainscope::ReadSamples;
using ::trainscope::TrainingSetup;

// Adds the optimizer, loss, metric, batch/epoch and trainability options (not the data files).
void AddTrainingOptions(QCommandLineParser* parser);

// Epochs taken from a model's metadata without --epochs; more is refused with a message.
inline constexpr uint32_t kMaxMetadataEpochs = 1000000;

// Reads the options added above, on top of DefaultTrainingSetup(). --kernels is process-wide: it
// selects the kernel path (UseKernelPath) here, before anything trains.
Status ParseTrainingSetup(const QCommandLineParser& parser, const Model& model,
                          TrainingSetup* setup);
// "fastest", "avx512", "avx2" or "reference"; a path this CPU lacks is refused.
Status ParseKernelPath(const QString& text, KernelPath* path);

// MODEL plus --input/--target: the training data every trainer reads. Programs add their own
// options (test data, link options) after this and before AddTrainingOptions as they need.
void AddTrainingDataOptions(QCommandLineParser* parser);

// The usage checks every trainer makes before reading anything: exactly one MODEL, and both
// --input and --target. `program` starts the messages ("train", "trainscope-board-sim").
Status CheckTrainingArguments(const QCommandLineParser& parser, const QString& program);

// Reads MODEL, the training setup (metadata, then options) and the training data set, whose
// targets are shaped after the loss.
Status LoadTrainingRun(const QCommandLineParser& parser, Model* model, TrainingSetup* setup,
                       DataSet* train);
// The same with the model's path given apart (a command whose first argument is something else).
Status LoadTrainingRun(const QCommandLineParser& parser, const QString& model_path, Model* model,
                       TrainingSetup* setup, DataSet* train);

// MODEL, --train-layers/--train-config, --optimizer, --inference and --batch: what the memory
// planners (memory, report) take to plan one train step or inference.
void AddStepPlanOptions(QCommandLineParser* parser);

// What one planned train step (or inference) is made of; `model` owns the graph the rest indexes.
struct StepPlan {
  Model model;
  TrainabilityConfig trainability;
  MemoryReportOptions options;
};

// Rejects --inference with --train-layers/--train-config (no backward pass to select for), then
// reads MODEL and the other options added by AddStepPlanOptions.
Status LoadStepPlan(const QCommandLineParser& parser, StepPlan* plan);

}  // namespace trainscope::cli
