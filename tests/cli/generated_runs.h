// SPDX-License-Identifier: Apache-2.0
//
// Small models and their data, generated for the end-to-end tests of diff and the emulated
// board: written once into the test's temporary directory with ModelBuilder, trained with MSE
// and SGD. DenseHead and Conv build the usual pieces; SamePaddedConvRun is the conv model with
// SAME padding the comparison must agree on.
//
//   const GeneratedRun g = Generate("softmax", {1, 4}, [](ModelBuilder* b, int x) { ... });
//   ASSERT_TRUE(g.ok);
//   BoardSimProcess sim(g.run, {"--tcp", "0"});
#pragma once

#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/model/model_builder.h"
#include "tests/cli/board_sim_process.h"

namespace trainscope::testing {

// `count` deterministic values in [-scale, scale).
std::vector<float> Values(size_t count, float scale, uint32_t seed);

// Adds RESHAPE to [1, N] and FULLY_CONNECTED N -> 2 after `features`; returns the output.
int DenseHead(ModelBuilder* b, int features);

// CONV_2D of `filters` size x size filters with a bias; returns its output.
int Conv(ModelBuilder* b, int x, int filters, int size, Padding padding, int stride,
         const char* name);

struct GeneratedRun {
  SimRun run;
  bool ok = false;  // everything was written
};

// x of `input_shape` -> body -> the output `body` returns; four samples, two targets each.
GeneratedRun Generate(const QString& name, const std::vector<int32_t>& input_shape,
                      const std::function<int(ModelBuilder*, int)>& body,
                      const QStringList& extra_training = {});

// x [1, 5, 5, 1] -> CONV_2D 3x3 SAME, 2 filters -> RESHAPE -> FULLY_CONNECTED.
GeneratedRun SamePaddedConvRun(const QString& name);

}  // namespace trainscope::testing
