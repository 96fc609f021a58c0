// SPDX-License-Identifier: Apache-2.0
//
// The training knobs, with onert-micro's numbering and defaults (OMConfig.h): a model trained
// with the same options here and on a board sees the same optimizer, loss and batch semantics.
#pragma once

#include <cstdint>

namespace trainscope {

enum class OptimizerKind : uint8_t { kSgd = 0, kAdam = 1 };

enum class LossKind : uint8_t {
  kBinaryCrossEntropy = 0,
  kCrossEntropy = 1,
  kMse = 2,
  kMae = 3,
  kSparseCrossEntropy = 4,
};

enum class MetricKind : uint8_t {
  kMse = 0,
  kMae = 1,
  kCrossEntropy = 2,
  kAccuracy = 3,
  kSparseCrossEntropyAccuracy = 4,
  kNone = 5,
};

// Whose arithmetic the backward pass and the update follow. TrainScope computes the correct
// gradients; kOnertMicro reproduces what onert-micro computes instead, where
// research/onert-micro-training.md describes it precisely (§7.3 CONV_2D's padding, strides and
// input gradient, §7.4 MAX_POOL_2D's assignment, §7.5 SOFTMAX without beta, §9 the LOWER half's
// update), so a user sees before flashing how a real board will train.
enum class BackwardMath : uint8_t { kCorrect = 0, kOnertMicro = 1 };

const char* OptimizerName(OptimizerKind kind);  // "sgd", "adam"
const char* LossName(LossKind kind);            // "mse", "ce", "sparse-ce", "mae", "bce"
const char* MetricName(MetricKind kind);        // "mse", "mae", "ce", "accuracy", ...

struct TrainingOptions {
  OptimizerKind optimizer = OptimizerKind::kSgd;
  LossKind loss = LossKind::kMse;
  MetricKind metric = MetricKind::kNone;
  float learning_rate = 0.001f;
  float beta1 = 0.9f;
  float beta2 = 0.9f;     // onert-micro's default for beta_squares (not Keras' 0.999)
  float epsilon = 1e-7f;  // added inside the square root, as onert-micro does
  uint32_t batch_size = 1;
  uint32_t epochs = 1;
  BackwardMath math = BackwardMath::kCorrect;
};

}  // namespace trainscope
