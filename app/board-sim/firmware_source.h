// SPDX-License-Identifier: Apache-2.0
//
// Writes a training run (model, data set, resolved options) as the C++ source that defines the
// firmware's kEmbeddedRun (app/firmware/common/embedded_run.h). Floats are written with nine
// significant digits, which gives back every float bit for bit; the file is written to a
// temporary name and renamed, so a failed write leaves no half source behind.
//
//   Status s = WriteFirmwareSource("run.cpp", "model.circle", model, setup, data);
#pragma once

#include <QString>

#include "engine/core/status.h"
#include "engine/exec/trainer.h"
#include "engine/model/model.h"
#include "ui/session/training_run.h"

namespace trainscope {

// The source text itself; `label` names the model in comments and the run's description.
std::string FirmwareSourceText(const QString& label, const Model& model, const TrainingSetup& setup,
                               const DataSet& data);

Status WriteFirmwareSource(const QString& path, const QString& label, const Model& model,
                           const TrainingSetup& setup, const DataSet& data);

}  // namespace trainscope
