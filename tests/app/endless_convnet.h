// SPDX-License-Identifier: Apache-2.0
//
// The test ConvNet as the local source trains it in the app tests: sparse cross-entropy, SGD's
// defaults, six samples, and epochs enough to run until the test stops it.
#pragma once

#include "tests/engine/exec/test_models.h"
#include "ui/session/sources/local_event_source.h"

namespace trainscope::testing {

inline LocalSetup EndlessConvNetSetup() {
  LocalSetup setup;
  setup.options.loss = LossKind::kSparseCrossEntropy;
  setup.options.metric = MetricKind::kSparseCrossEntropyAccuracy;
  setup.options.epochs = 100000;  // runs until stopped
  setup.train = ConvNetData(6);
  return setup;
}

}  // namespace trainscope::testing
