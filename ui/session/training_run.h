// SPDX-License-Identifier: Apache-2.0
//
// The training run every program loads the same way (trainscope-cli train, memory, report, fit,
// trainscope-board-sim and the app): the one set of defaults (the model's CIRCLE_TRAINING
// metadata, else onert-micro's OMConfig), and the raw float32 data files of onert-micro's driver
// convention (one file per graph input, samples back to back, no header, little-endian; sparse
// labels one float per sample). Command-line parsing on top of it is app/common/training_args.
//
//   TrainingSetup setup;
//   TS_RETURN_IF_ERROR(DefaultTrainingSetup(model, &setup));
//   DataSet train;
//   TS_RETURN_IF_ERROR(ReadDataSet(model.graph().main(), inputs, target,
//                                  TargetElementCount(setup.options.loss,
//                                  OutputElementCount(main)), QStringLiteral("training"), &train));
#pragma once

#include <QString>
#include <QStringList>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/exec/trainer.h"
#include "engine/model/model.h"
#include "engine/plan/trainability.h"

namespace trainscope {

struct TrainingSetup {
  TrainingOptions options;
  TrainabilityConfig trainability;
  bool from_metadata = false;  // the defaults came from the model's CIRCLE_TRAINING entry
};

// The metric a loss implies when none is chosen.
MetricKind DefaultMetric(LossKind loss);

// The model's CIRCLE_TRAINING metadata when it has one, else onert-micro's OMConfig; the metric
// follows the loss.
Status DefaultTrainingSetup(const Model& model, TrainingSetup* setup);

// Training needs at least one whole batch of samples.
Status CheckBatchFits(const DataSet& train, const TrainingOptions& options);

// The largest data file read (1 GiB): beyond it a file is refused before it is read.
inline constexpr size_t kMaxDataFileBytes = size_t{1} << 30;

// Reads a raw float32 file whose size must be a whole number of `elements`-float samples and
// whose values are finite; not a regular file (a FIFO, a device) or over kMaxDataFileBytes is
// refused before reading. `what` names the file's role in messages ("input 0 'image'").
Status ReadSamples(const QString& path, size_t elements, const QString& what,
                   std::vector<float>* values, uint32_t* samples);

// One file per graph input and a target file of `target_elements` floats per sample; every file
// must hold the same number of samples. `role` ("training", "test") names the set in messages.
Status ReadDataSet(const Subgraph& main, const QStringList& input_files, const QString& target_file,
                   size_t target_elements, const QString& role, DataSet* data);

// Floats per sample of the first graph output (what targets are shaped after).
size_t OutputElementCount(const Subgraph& main);

}  // namespace trainscope
