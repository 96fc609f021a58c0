// SPDX-License-Identifier: Apache-2.0
#include "engine/train/training_metadata.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "engine/train/circle_training_generated.h"
#include "engine/train/model_metadata_writer.h"

namespace trainscope {
namespace {

namespace ct = trainscope::circle_training;

constexpr char kIdentifier[] = "CTR0";
constexpr size_t kMinimumBytes = 8;  // root offset + identifier

Status CheckEnums(const TrainingMetadata& m, StatusCode code) {
  const auto optimizer = static_cast<int>(m.optimizer);
  const auto loss = static_cast<int>(m.loss);
  const auto reduction = static_cast<int>(m.loss_reduction);
  if (optimizer < 0 || optimizer > 1) {
    return Status::Error(code, "CIRCLE_TRAINING: optimizer %d is not SGD (0) or ADAM (1)",
                         optimizer);
  }
  if (loss < 0 || loss > 2) {
    return Status::Error(code,
                         "CIRCLE_TRAINING: loss function %d is not sparse categorical (0), "
                         "categorical cross-entropy (1) or mean squared error (2)",
                         loss);
  }
  if (reduction < 0 || reduction > 1) {
    return Status::Error(code,
                         "CIRCLE_TRAINING: loss reduction %d is not SumOverBatchSize (0) or Sum "
                         "(1)",
                         reduction);
  }
  if (m.epochs < 0 || m.batch_size < 0) {
    return Status::Error(code, "CIRCLE_TRAINING: epochs %d and batch size %d must not be negative",
                         static_cast<int>(m.epochs), static_cast<int>(m.batch_size));
  }
  for (size_t i = 0; i < m.trainable_ops.size(); ++i) {
    if (m.trainable_ops[i] < 0) {
      return Status::Error(code, "CIRCLE_TRAINING: trainable_ops[%zu] is %d", i,
                           static_cast<int>(m.trainable_ops[i]));
    }
  }
  return Status::Ok();
}

Status ReadOptimizerOptions(const ct::ModelTraining* root, TrainingMetadata* m) {
  const ct::OptimizerOptions type = root->optimizer_opt_type();
  m->has_optimizer_options = type != ct::OptimizerOptions::NONE;
  if (!m->has_optimizer_options) return Status::Ok();
  const bool is_adam = m->optimizer == OptimizerKind::kAdam;
  if (const ct::SGDOptions* sgd = root->optimizer_opt_as_SGDOptions(); sgd != nullptr && !is_adam) {
    m->learning_rate = sgd->learning_rate();
    return Status::Ok();
  }
  if (const ct::AdamOptions* adam = root->optimizer_opt_as_AdamOptions();
      adam != nullptr && is_adam) {
    m->learning_rate = adam->learning_rate();
    m->beta1 = adam->beta_1();
    m->beta2 = adam->beta_2();
    m->epsilon = adam->epsilon();
    return Status::Ok();
  }
  return Status::Error(StatusCode::kInvalidModel,
                       "CIRCLE_TRAINING: optimizer %s carries options of union type %u (1 = "
                       "SGDOptions, 2 = AdamOptions) or none where a table was expected",
                       OptimizerName(m->optimizer), static_cast<unsigned>(type));
}

Status ReadLossOptions(const ct::ModelTraining* root, TrainingMetadata* m) {
  const ct::LossFnOptions type = root->lossfn_opt_type();
  m->has_loss_options = type != ct::LossFnOptions::NONE;
  if (!m->has_loss_options) return Status::Ok();
  switch (m->loss) {
    case CircleLossFn::kSparseCategoricalCrossentropy:
      if (const auto* o = root->lossfn_opt_as_SparseCategoricalCrossentropyOptions()) {
        m->from_logits = o->from_logits();
        return Status::Ok();
      }
      break;
    case CircleLossFn::kCategoricalCrossentropy:
      if (const auto* o = root->lossfn_opt_as_CategoricalCrossentropyOptions()) {
        m->from_logits = o->from_logits();
        return Status::Ok();
      }
      break;
    case CircleLossFn::kMeanSquaredError:
      if (root->lossfn_opt_as_MeanSquaredErrorOptions() != nullptr) return Status::Ok();
      break;
  }
  return Status::Error(StatusCode::kInvalidModel,
                       "CIRCLE_TRAINING: loss function %d carries options of union type %u, which "
                       "belong to another loss (or to none)",
                       static_cast<int>(m->loss), static_cast<unsigned>(type));
}

}  // namespace

bool TrainingMetadata::operator==(const TrainingMetadata& o) const {
  return version == o.version && optimizer == o.optimizer &&
         has_optimizer_options == o.has_optimizer_options && learning_rate == o.learning_rate &&
         beta1 == o.beta1 && beta2 == o.beta2 && epsilon == o.epsilon && loss == o.loss &&
         has_loss_options == o.has_loss_options && from_logits == o.from_logits &&
         epochs == o.epochs && batch_size == o.batch_size && loss_reduction == o.loss_reduction &&
         has_trainable_ops == o.has_trainable_ops && trainable_ops == o.trainable_ops;
}

Status EncodeTrainingMetadata(const TrainingMetadata& m, std::vector<uint8_t>* out) {
  TS_RETURN_IF_ERROR(CheckEnums(m, StatusCode::kInvalidArgument));
  if (m.from_logits && m.loss == CircleLossFn::kMeanSquaredError) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "CIRCLE_TRAINING: from_logits applies to cross-entropy losses only");
  }
  flatbuffers::FlatBufferBuilder b(256);
  auto optimizer_type = ct::OptimizerOptions::NONE;
  flatbuffers::Offset<void> optimizer_options = 0;
  if (m.has_optimizer_options && m.optimizer == OptimizerKind::kAdam) {
    optimizer_type = ct::OptimizerOptions::AdamOptions;
    optimizer_options =
        ct::CreateAdamOptions(b, m.learning_rate, m.beta1, m.beta2, m.epsilon).Union();
  } else if (m.has_optimizer_options) {
    optimizer_type = ct::OptimizerOptions::SGDOptions;
    optimizer_options = ct::CreateSGDOptions(b, m.learning_rate).Union();
  }
  auto loss_type = ct::LossFnOptions::NONE;
  flatbuffers::Offset<void> loss_options = 0;
  if (m.has_loss_options) {
    switch (m.loss) {
      case CircleLossFn::kSparseCategoricalCrossentropy:
        loss_type = ct::LossFnOptions::SparseCategoricalCrossentropyOptions;
        loss_options = ct::CreateSparseCategoricalCrossentropyOptions(b, m.from_logits).Union();
        break;
      case CircleLossFn::kCategoricalCrossentropy:
        loss_type = ct::LossFnOptions::CategoricalCrossentropyOptions;
        loss_options = ct::CreateCategoricalCrossentropyOptions(b, m.from_logits).Union();
        break;
      case CircleLossFn::kMeanSquaredError:
        loss_type = ct::LossFnOptions::MeanSquaredErrorOptions;
        loss_options = ct::CreateMeanSquaredErrorOptions(b).Union();
        break;
    }
  }
  flatbuffers::Offset<flatbuffers::Vector<int32_t>> ops = 0;
  if (m.has_trainable_ops) ops = b.CreateVector(m.trainable_ops);
  auto root = ct::CreateModelTraining(
      b, m.version, static_cast<int8_t>(m.optimizer), optimizer_type, optimizer_options,
      static_cast<int8_t>(m.loss), loss_type, loss_options, m.epochs, m.batch_size,
      static_cast<int8_t>(m.loss_reduction), ops);
  b.Finish(root, kIdentifier);
  out->assign(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  return Status::Ok();
}

Status DecodeTrainingMetadata(const uint8_t* data, size_t size, TrainingMetadata* metadata) {
  if (data == nullptr || size < kMinimumBytes) {
    return Status::Error(StatusCode::kInvalidModel,
                         "CIRCLE_TRAINING: %zu bytes cannot hold a flatbuffer (at least %zu)", size,
                         kMinimumBytes);
  }
  if (std::memcmp(data + 4, kIdentifier, 4) != 0) {
    return Status::Error(StatusCode::kInvalidModel,
                         "CIRCLE_TRAINING: identifier at byte 4 is not 'CTR0' (an older CTR1 "
                         "layout or not training metadata)");
  }
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/16, /*max_tables=*/1024);
  if (!verifier.VerifyBuffer<ct::ModelTraining>(kIdentifier)) {
    return Status::Error(StatusCode::kInvalidModel,
                         "CIRCLE_TRAINING: flatbuffer verification of the %zu-byte buffer failed "
                         "(an offset points outside it or is misaligned)",
                         size);
  }
  const ct::ModelTraining* root = flatbuffers::GetRoot<ct::ModelTraining>(data);
  // The enums are checked as raw integers before they are cast and switched on.
  if (root->optimizer() < 0 || root->optimizer() > 1 || root->lossfn() < 0 || root->lossfn() > 2 ||
      root->loss_reduction_type() < 0 || root->loss_reduction_type() > 1) {
    return Status::Error(StatusCode::kInvalidModel,
                         "CIRCLE_TRAINING: optimizer %d, loss function %d or loss reduction %d "
                         "is not defined",
                         root->optimizer(), root->lossfn(), root->loss_reduction_type());
  }
  if (root->version() > kTrainingMetadataVersion) {
    return Status::Error(StatusCode::kInvalidModel,
                         "CIRCLE_TRAINING version %u is newer than version %u, the one this "
                         "reader knows",
                         static_cast<unsigned>(root->version()),
                         static_cast<unsigned>(kTrainingMetadataVersion));
  }
  TrainingMetadata m;
  m.version = root->version();
  m.optimizer = static_cast<OptimizerKind>(root->optimizer());
  m.loss = static_cast<CircleLossFn>(root->lossfn());
  m.epochs = root->epochs();
  m.batch_size = root->batch_size();
  m.loss_reduction = static_cast<LossReduction>(root->loss_reduction_type());
  m.learning_rate = 0.0f;  // the schema default when the file has no options table
  m.has_trainable_ops = root->trainable_ops() != nullptr;
  if (m.has_trainable_ops) {
    m.trainable_ops.assign(root->trainable_ops()->begin(), root->trainable_ops()->end());
  }
  TS_RETURN_IF_ERROR(CheckEnums(m, StatusCode::kInvalidModel));
  TS_RETURN_IF_ERROR(ReadOptimizerOptions(root, &m));
  TS_RETURN_IF_ERROR(ReadLossOptions(root, &m));
  *metadata = std::move(m);
  return Status::Ok();
}

Status ReadTrainingMetadata(const Model& model, TrainingMetadata* metadata, bool* found) {
  *found = false;
  const MetadataEntry* entry = model.graph().FindMetadata(kCircleTrainingMetadata);
  if (entry == nullptr) return Status::Ok();
  TrainingMetadata m;
  Status status = DecodeTrainingMetadata(model.MetadataData(*entry), entry->size, &m);
  if (!status.ok()) {
    return status.Prepend("metadata buffer " + std::to_string(entry->buffer));
  }
  const size_t operator_count =
      model.graph().subgraphs.empty() ? 0 : model.graph().main().operators.size();
  for (size_t i = 0; i < m.trainable_ops.size(); ++i) {
    if (static_cast<size_t>(m.trainable_ops[i]) >= operator_count) {
      return Status::Error(StatusCode::kInvalidModel,
                           "CIRCLE_TRAINING: trainable_ops[%zu] is operator %d; subgraph 0 has "
                           "%zu operators",
                           i, static_cast<int>(m.trainable_ops[i]), operator_count);
    }
  }
  *metadata = std::move(m);
  *found = true;
  return Status::Ok();
}

Status WriteTrainingMetadata(const Model& model, const TrainingMetadata& metadata,
                             std::vector<uint8_t>* model_bytes) {
  std::vector<uint8_t> nested;
  TS_RETURN_IF_ERROR(EncodeTrainingMetadata(metadata, &nested));
  return SetModelMetadata(model, kCircleTrainingMetadata, nested, model_bytes);
}

Status ToTrainingOptions(const TrainingMetadata& m, size_t operator_count, TrainingOptions* options,
                         uint32_t* train_layers) {
  TS_RETURN_IF_ERROR(CheckEnums(m, StatusCode::kInvalidArgument));
  if (m.from_logits) {
    return Status::Error(StatusCode::kUnsupported,
                         "CIRCLE_TRAINING: the loss is computed from logits (from_logits = true); "
                         "TrainScope's cross-entropy losses take probabilities (add a SOFTMAX)");
  }
  uint32_t layers = static_cast<uint32_t>(operator_count);
  if (m.has_trainable_ops) {
    layers = 0;
    if (!m.trainable_ops.empty()) {
      const int32_t lowest = *std::min_element(m.trainable_ops.begin(), m.trainable_ops.end());
      const int32_t highest = *std::max_element(m.trainable_ops.begin(), m.trainable_ops.end());
      if (static_cast<size_t>(highest) >= operator_count) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "CIRCLE_TRAINING: trainable operator %d does not exist (the model "
                             "has %zu)",
                             static_cast<int>(highest), operator_count);
      }
      layers = static_cast<uint32_t>(operator_count - static_cast<size_t>(lowest));
    }
  }
  TrainingOptions result = *options;
  result.optimizer = m.optimizer;
  if (m.has_optimizer_options) {
    result.learning_rate = m.learning_rate;
    if (m.optimizer == OptimizerKind::kAdam) {
      result.beta1 = m.beta1;
      result.beta2 = m.beta2;
      result.epsilon = m.epsilon;
    }
  }
  switch (m.loss) {
    case CircleLossFn::kSparseCategoricalCrossentropy:
      result.loss = LossKind::kSparseCrossEntropy;
      break;
    case CircleLossFn::kCategoricalCrossentropy:
      result.loss = LossKind::kCrossEntropy;
      break;
    case CircleLossFn::kMeanSquaredError:
      result.loss = LossKind::kMse;
      break;
  }
  if (m.batch_size > 0) result.batch_size = static_cast<uint32_t>(m.batch_size);
  if (m.epochs > 0) result.epochs = static_cast<uint32_t>(m.epochs);
  *options = result;
  *train_layers = layers;
  return Status::Ok();
}

Status FromTrainingOptions(const TrainingOptions& options, size_t operator_count,
                           uint32_t train_layers, TrainingMetadata* metadata) {
  TrainingMetadata m;
  switch (options.loss) {
    case LossKind::kCrossEntropy:
      m.loss = CircleLossFn::kCategoricalCrossentropy;
      break;
    case LossKind::kMse:
      m.loss = CircleLossFn::kMeanSquaredError;
      break;
    case LossKind::kSparseCrossEntropy:
      m.loss = CircleLossFn::kSparseCategoricalCrossentropy;
      break;
    default:
      return Status::Error(StatusCode::kUnsupported, "CIRCLE_TRAINING has no loss function for %s",
                           LossName(options.loss));
  }
  if (train_layers > operator_count) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "%u trained layers requested; the model has %zu operators",
                         static_cast<unsigned>(train_layers), operator_count);
  }
  constexpr auto kInt32Max = static_cast<uint32_t>(std::numeric_limits<int32_t>::max());
  if (options.batch_size > kInt32Max || options.epochs > kInt32Max) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "batch size %u or epochs %u do not fit the metadata's int32 fields",
                         static_cast<unsigned>(options.batch_size),
                         static_cast<unsigned>(options.epochs));
  }
  m.optimizer = options.optimizer;
  m.learning_rate = options.learning_rate;
  if (options.optimizer == OptimizerKind::kAdam) {
    m.beta1 = options.beta1;
    m.beta2 = options.beta2;
    m.epsilon = options.epsilon;
  }
  m.batch_size = static_cast<int32_t>(options.batch_size);
  m.epochs = static_cast<int32_t>(options.epochs);
  m.has_trainable_ops = true;
  for (size_t k = operator_count - train_layers; k < operator_count; ++k) {
    m.trainable_ops.push_back(static_cast<int32_t>(k));
  }
  *metadata = std::move(m);
  return Status::Ok();
}

}  // namespace trainscope
