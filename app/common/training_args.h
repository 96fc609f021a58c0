// SPDX-License-Identifier: Apache-2.0
//
// The training options every executable that trains takes the same way (trainscope-cli train,
// trainscope-board-sim): --optimizer --lr --beta1 --beta2 --epsilon --loss --metric --batch
// --epochs --train-layers --train-config, and the raw float32 data files they train on.
//
// Defaults come from the model's CIRCLE_TRAINING metadata when it has one, then from
// onert-micro's OMConfig; options given on the command line win.
//
//   QCommandLineParser parser;
//   AddTrainingOptions(&parser);
//   ... parser.parse(arguments) ...
//   TrainingSetup setup;
//   Status s = ParseTrainingSetup(parser, model, &setup);
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <cstddef>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/exec/trainer.h"
#include "engine/model/model.h"
#include "engine/plan/trainability.h"

namespace trainscope::cli {

struct TrainingSetup {
  TrainingOptions options;
  TrainabilityConfig trainability;
};

// The metric a loss implies when --metric is not given.
MetricKind DefaultMetric(LossKind loss);

// Adds the optimizer, loss, metric, batch/epoch and trainability options (not the data files).
void AddTrainingOptions(QCommandLineParser* parser);

// Reads the options added above, on top of the model's CIRCLE_TRAINING metadata.
Status ParseTrainingSetup(const QCommandLineParser& parser, const Model& model,
                          TrainingSetup* setup);

// Reads one raw float32 file per graph input and a target file of `target_elements` floats per
// sample; every file must hold the same number of samples. `role` ("training", "test") names
// the data set in messages.
Status ReadDataSet(const Subgraph& main, const QStringList& input_files, const QString& target_file,
                   size_t target_elements, const QString& role, DataSet* data);

// Floats per sample of the first graph output (what targets are shaped after).
size_t OutputElementCount(const Subgraph& main);

}  // namespace trainscope::cli
