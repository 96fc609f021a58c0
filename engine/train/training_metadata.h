// SPDX-License-Identifier: Apache-2.0
//
// CIRCLE_TRAINING metadata: the training settings a circle file can carry (a nested flatbuffer
// with identifier CTR0, schema engine/train/circle_training.fbs), read into TrainingMetadata,
// written back into a model, and mapped to TrainingOptions the way onert-micro's nnfw API does.
//
//   TrainingMetadata info;
//   bool found = false;
//   TS_RETURN_IF_ERROR(ReadTrainingMetadata(model, &info, &found));
//   TrainingOptions options;  // onert-micro defaults for whatever the metadata leaves out
//   uint32_t train_layers = 0;
//   if (found) TS_RETURN_IF_ERROR(ToTrainingOptions(info, ops, &options, &train_layers));
//
// Mapping (ToTrainingOptions), and where we deliberately differ from onert-micro:
//  - optimizer + its options table -> optimizer, learning_rate, beta1, beta2, epsilon. A missing
//    options table keeps the caller's values (onert-micro dereferences it unchecked).
//  - CATEGORICAL_CROSSENTROPY -> CROSS_ENTROPY, MEAN_SQUARED_ERROR -> MSE,
//    SPARSE_CATEGORICAL_CROSSENTROPY -> SPARSE_CROSS_ENTROPY (onert-micro refuses it as "not
//    supported yet"; we have the loss). from_logits = true is refused with kUnsupported: both
//    runtimes ignore it, which would train a logits output with a probability loss.
//  - batch_size, epochs: copied when > 0; 0 (the schema default) keeps the caller's value.
//  - loss_reduction_type is reported but not applied: batch semantics are onert-micro's (sum of
//    per-sample gradients, SGD divides by the batch size), which neither runtime changes.
//  - trainable_ops absent -> every operator trains. Present -> train_layers = operator count -
//    min(trainable_ops), the trailing operators from the lowest listed one (onert-micro takes
//    trainable_ops[0] and assumes it is the lowest). An EMPTY list trains nothing
//    (circle_plus_gen's "-1"); onert-micro reads past the end of such a list.
//    `train_layers` is the real count (0 = none); onert-micro's num_of_train_layers uses 0 for
//    "all", so a board given this count must get the operator count instead of 0.
//  Indices outside [0, operator count) are refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/model/model.h"

namespace trainscope {

// LossFn of the CTR0 schema (not LossKind: the numbering differs).
enum class CircleLossFn : int8_t {
  kSparseCategoricalCrossentropy = 0,
  kCategoricalCrossentropy = 1,
  kMeanSquaredError = 2,
};
enum class LossReduction : int8_t { kSumOverBatchSize = 0, kSum = 1 };

// The version this engine writes (onert's exporter and ONE's python builder write 1).
inline constexpr uint32_t kTrainingMetadataVersion = 1;

struct TrainingMetadata {
  uint32_t version = kTrainingMetadataVersion;
  OptimizerKind optimizer = OptimizerKind::kSgd;
  bool has_optimizer_options = true;  // false: no options table in the file
  float learning_rate = 0.001f;
  float beta1 = 0.0f;  // Adam only; the schema defaults are 0, so they are always written
  float beta2 = 0.0f;
  float epsilon = 0.0f;
  CircleLossFn loss = CircleLossFn::kMeanSquaredError;
  bool has_loss_options = true;
  bool from_logits = false;  // cross-entropy losses only
  int32_t epochs = 0;
  int32_t batch_size = 0;
  LossReduction loss_reduction = LossReduction::kSumOverBatchSize;
  bool has_trainable_ops = false;  // false: the field is absent (train everything)
  std::vector<int32_t> trainable_ops;

  bool operator==(const TrainingMetadata& other) const;
  bool operator!=(const TrainingMetadata& other) const { return !(*this == other); }
};

// The nested buffer alone. Decode verifies the flatbuffer and identifier CTR0, every enum value,
// that option tables match the optimizer and loss, and that counts and indices are non-negative;
// failures are kInvalidModel.
Status EncodeTrainingMetadata(const TrainingMetadata& metadata, std::vector<uint8_t>* out);
Status DecodeTrainingMetadata(const uint8_t* data, size_t size, TrainingMetadata* metadata);

// Reads the CIRCLE_TRAINING entry of a model (the first one when several exist); *found = false
// and `metadata` untouched when there is none. trainable_ops must name operators of subgraph 0.
Status ReadTrainingMetadata(const Model& model, TrainingMetadata* metadata, bool* found);
// Model bytes with the CIRCLE_TRAINING entry set or replaced (see model_metadata_writer.h).
Status WriteTrainingMetadata(const Model& model, const TrainingMetadata& metadata,
                             std::vector<uint8_t>* model_bytes);

// See the mapping above. `options` is updated in place; `train_layers` receives the number of
// trailing operators that train.
Status ToTrainingOptions(const TrainingMetadata& metadata, size_t operator_count,
                         TrainingOptions* options, uint32_t* train_layers);
// The reverse: trainable_ops = the last `train_layers` operators. MAE and BCE have no CTR0 loss
// and fail with kUnsupported.
Status FromTrainingOptions(const TrainingOptions& options, size_t operator_count,
                           uint32_t train_layers, TrainingMetadata* metadata);

}  // namespace trainscope
