// SPDX-License-Identifier: Apache-2.0
#include "engine/core/training_options.h"

namespace trainscope {

const char* OptimizerName(OptimizerKind kind) {
  return kind == OptimizerKind::kAdam ? "adam" : "sgd";
}

const char* LossName(LossKind kind) {
  switch (kind) {
    case LossKind::kBinaryCrossEntropy:
      return "bce";
    case LossKind::kCrossEntropy:
      return "ce";
    case LossKind::kMse:
      return "mse";
    case LossKind::kMae:
      return "mae";
    case LossKind::kSparseCrossEntropy:
      return "sparse-ce";
  }
  return "unknown";
}

const char* MetricName(MetricKind kind) {
  switch (kind) {
    case MetricKind::kMse:
      return "mse";
    case MetricKind::kMae:
      return "mae";
    case MetricKind::kCrossEntropy:
      return "ce";
    case MetricKind::kAccuracy:
      return "accuracy";
    case MetricKind::kSparseCrossEntropyAccuracy:
      return "sparse-accuracy";
    case MetricKind::kNone:
      return "none";
  }
  return "unknown";
}

}  // namespace trainscope
