// SPDX-License-Identifier: Apache-2.0
//
// The run a firmware trains: the model, the training data and the options, compiled into flash.
// `trainscope-board-sim MODEL --input F --target F [training options] --firmware-source FILE`
// writes the one definition of kEmbeddedRun, resolving every option exactly as the simulator and
// `trainscope-cli train` do (model metadata, then onert-micro's defaults, then the command line),
// so a board and the host train the same run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/events.h"
#include "engine/core/training_options.h"

namespace trainscope::firmware {

struct EmbeddedOpRank {
  uint16_t op;
  TrainRank rank;
};

struct EmbeddedRun {
  const uint8_t* model;  // 16-byte aligned
  size_t model_bytes;
  const float* const* inputs;      // one array per model input, sample after sample
  const uint32_t* input_elements;  // floats per sample of each input
  uint32_t input_count;
  const float* targets;  // target_elements floats per sample
  uint32_t target_elements;
  uint32_t sample_count;
  TrainingOptions options;
  uint32_t num_train_layers;       // onert-micro num_of_train_layers (0: all)
  const EmbeddedOpRank* op_ranks;  // a train config; when present it overrides the above
  uint32_t op_rank_count;
  const char* description;  // "model.circle, 10 samples, adam, sparse-ce"
};

extern const EmbeddedRun kEmbeddedRun;

}  // namespace trainscope::firmware
