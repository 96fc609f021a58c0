// SPDX-License-Identifier: Apache-2.0
#include "engine/train/training_metadata.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/train/model_metadata_writer.h"
#include "tests/common/fixtures.h"
#include "tests/engine/train/train_test_models.h"

namespace trainscope {
namespace {

using testing::SmallClassifier;

// A CTR0 flatbuffer laid out by hand from the slot table of circle-format.md §5.2, independent
// of the generated code:
//   0 root offset -> 36 | 4 "CTR0" | 8 ModelTraining vtable (11 slots) | 36 ModelTraining table
//   72 AdamOptions vtable | 84 AdamOptions | 104 CategoricalCrossentropyOptions vtable
//   112 CategoricalCrossentropyOptions | 120 trainable_ops [3, 4, 5]
class HandBuilt {
 public:
  HandBuilt() : bytes_(136, 0) {
    U32(0, 36);
    std::memcpy(&bytes_[4], "CTR0", 4);
    U16(8, 26);   // vtable bytes: 4 + 2 * 11 slots
    U16(10, 36);  // table bytes
    // Slot 0 version, 1 optimizer, 2 its union type, 3 its options, 4 lossfn, 5 union type,
    // 6 loss options, 7 epochs, 8 batch_size, 9 loss_reduction_type, 10 trainable_ops.
    const uint16_t field_offsets[11] = {4, 28, 29, 8, 30, 31, 12, 16, 20, 32, 24};
    for (int i = 0; i < 11; ++i) U16(12 + 2 * static_cast<size_t>(i), field_offsets[i]);
    U32(36, 36 - 8);    // soffset: table - vtable
    U32(40, 1);         // version
    U32(44, 84 - 44);   // -> AdamOptions
    U32(48, 112 - 48);  // -> CategoricalCrossentropyOptions
    U32(52, 5);         // epochs
    U32(56, 32);        // batch_size
    U32(60, 120 - 60);  // -> trainable_ops
    bytes_[64] = 1;     // optimizer ADAM
    bytes_[65] = 2;     // OptimizerOptions::AdamOptions
    bytes_[66] = 1;     // lossfn CATEGORICAL_CROSSENTROPY
    bytes_[67] = 2;     // LossFnOptions::CategoricalCrossentropyOptions
    bytes_[68] = 1;     // loss_reduction_type Sum
    U16(72, 12);        // AdamOptions vtable: 4 slots
    U16(74, 20);
    U16(76, 4);
    U16(78, 8);
    U16(80, 12);
    U16(82, 16);
    U32(84, 84 - 72);
    F32(88, 0.01f);   // learning_rate
    F32(92, 0.9f);    // beta_1
    F32(96, 0.999f);  // beta_2
    F32(100, 1e-7f);  // epsilon
    U16(104, 6);      // CategoricalCrossentropyOptions vtable: 1 slot
    U16(106, 8);
    U16(108, 4);
    U32(112, 112 - 104);
    bytes_[116] = 0;  // from_logits false
    U32(120, 3);
    U32(124, 3);
    U32(128, 4);
    U32(132, 5);
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  void U16(size_t at, uint16_t v) {
    bytes_[at] = static_cast<uint8_t>(v);
    bytes_[at + 1] = static_cast<uint8_t>(v >> 8);
  }
  void U32(size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes_[at + i] = static_cast<uint8_t>(v >> (8 * i));
  }
  void F32(size_t at, float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    U32(at, bits);
  }
  std::vector<uint8_t> bytes_;
};

TrainingMetadata AdamCce() {
  TrainingMetadata m;
  m.version = 1;
  m.optimizer = OptimizerKind::kAdam;
  m.learning_rate = 0.01f;
  m.beta1 = 0.9f;
  m.beta2 = 0.999f;
  m.epsilon = 1e-7f;
  m.loss = CircleLossFn::kCategoricalCrossentropy;
  m.epochs = 5;
  m.batch_size = 32;
  m.loss_reduction = LossReduction::kSum;
  m.has_trainable_ops = true;
  m.trainable_ops = {3, 4, 5};
  return m;
}

TEST(TrainingMetadataBuffer, HandBuiltCtr0BufferDecodes) {
  HandBuilt hand;
  TrainingMetadata m;
  Status status = DecodeTrainingMetadata(hand.bytes().data(), hand.bytes().size(), &m);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(m, AdamCce());
}

TEST(TrainingMetadataBuffer, EncodeThenDecodeGivesTheSameSettings) {
  std::vector<TrainingMetadata> cases;
  cases.push_back(AdamCce());
  TrainingMetadata sgd_mse;
  sgd_mse.learning_rate = 0.25f;
  sgd_mse.batch_size = 4;
  cases.push_back(sgd_mse);  // trainable_ops absent
  TrainingMetadata sparse = AdamCce();
  sparse.loss = CircleLossFn::kSparseCategoricalCrossentropy;
  sparse.from_logits = true;
  sparse.trainable_ops.clear();  // present but empty: train nothing
  cases.push_back(sparse);
  TrainingMetadata bare;
  bare.version = 0;
  bare.learning_rate = 0.0f;
  bare.has_optimizer_options = false;
  bare.has_loss_options = false;
  cases.push_back(bare);
  for (size_t i = 0; i < cases.size(); ++i) {
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(EncodeTrainingMetadata(cases[i], &bytes).ok());
    ASSERT_GE(bytes.size(), 8u);
    EXPECT_EQ(std::memcmp(&bytes[4], "CTR0", 4), 0);
    TrainingMetadata decoded;
    Status status = DecodeTrainingMetadata(bytes.data(), bytes.size(), &decoded);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(decoded, cases[i]) << "case " << i;
  }
}

TEST(TrainingMetadataBuffer, CorruptBuffersAreRefused) {
  struct Corruption {
    const char* what;
    size_t at;
    uint8_t value;
  };
  const Corruption corruptions[] = {
      {"identifier CTR1", 7, '1'},
      {"root offset past the end", 1, 0x10},
      {"vtable size past the table", 8, 0xff},
      {"optimizer 7", 64, 7},
      {"SGDOptions with ADAM", 65, 1},
      {"loss function 3", 66, 3},
      {"MSE options with categorical CE", 67, 3},
      {"loss reduction 2", 68, 2},
      {"negative batch size", 59, 0x80},
      {"negative trainable op", 131, 0x80},
      {"trainable_ops count past the end", 121, 1},
  };
  for (const Corruption& c : corruptions) {
    HandBuilt hand;
    hand.bytes()[c.at] = c.value;
    TrainingMetadata m;
    Status status = DecodeTrainingMetadata(hand.bytes().data(), hand.bytes().size(), &m);
    EXPECT_EQ(status.code(), StatusCode::kInvalidModel) << c.what;
    EXPECT_NE(std::string(status.message()).find("CIRCLE_TRAINING"), std::string::npos);
  }
  HandBuilt hand;
  for (size_t size = 0; size < hand.bytes().size(); ++size) {
    TrainingMetadata m;
    EXPECT_EQ(DecodeTrainingMetadata(hand.bytes().data(), size, &m).code(),
              StatusCode::kInvalidModel)
        << "truncated to " << size;
  }
}

TEST(TrainingMetadataBuffer, FlippingAnyByteNeverCrashes) {
  const size_t size = HandBuilt().bytes().size();
  for (size_t i = 0; i < size; ++i) {
    for (const uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      HandBuilt hand;
      hand.bytes()[i] = static_cast<uint8_t>(hand.bytes()[i] ^ mask);
      TrainingMetadata m;
      Status status = DecodeTrainingMetadata(hand.bytes().data(), size, &m);
      if (!status.ok()) {
        EXPECT_EQ(status.code(), StatusCode::kInvalidModel) << status.message();
      }
    }
  }
}

TEST(TrainingMetadataInModel, AnEmptyModelCannotTakeMetadata) {
  std::vector<uint8_t> bytes;
  EXPECT_EQ(WriteTrainingMetadata(Model(), TrainingMetadata(), &bytes).code(),
            StatusCode::kInvalidArgument);
}

TEST(TrainingMetadataInModel, ModelWithoutTheEntryReportsNotFound) {
  const Model model = SmallClassifier();
  TrainingMetadata m = AdamCce();
  bool found = true;
  ASSERT_TRUE(ReadTrainingMetadata(model, &m, &found).ok());
  EXPECT_FALSE(found);
  EXPECT_EQ(m, AdamCce()) << "untouched";
}

void ExpectSameModelContent(const Model& before, const Model& after) {
  ASSERT_EQ(before.graph().subgraphs.size(), after.graph().subgraphs.size());
  EXPECT_TRUE(before.graph().subgraphs == after.graph().subgraphs);
  EXPECT_EQ(before.graph().description, after.graph().description);
  EXPECT_EQ(before.graph().version, after.graph().version);
  EXPECT_EQ(before.graph().format, after.graph().format);
  for (size_t s = 0; s < before.graph().subgraphs.size(); ++s) {
    const auto& tensors = before.graph().subgraphs[s].tensors;
    for (size_t t = 0; t < tensors.size(); ++t) {
      const Tensor& a = tensors[t];
      const Tensor& b = after.graph().subgraphs[s].tensors[t];
      if (!a.constant) continue;
      EXPECT_EQ(b.data_offset % 16, a.data_offset % 16) << "alignment of tensor " << t;
      EXPECT_EQ(std::memcmp(before.ConstantData(a), after.ConstantData(b), a.bytes), 0)
          << "constant data of tensor " << t;
    }
  }
}

TEST(TrainingMetadataInModel, WrittenMetadataReadsBackAndTheModelIsOtherwiseUnchanged) {
  const std::vector<uint8_t> other = {1, 2, 3, 4, 5};
  const Model model = SmallClassifier(2, {{"other_tool", other}});
  TrainingMetadata written = AdamCce();
  written.trainable_ops = {1, 2};  // the classifier has 3 operators
  std::vector<uint8_t> bytes;
  Status status = WriteTrainingMetadata(model, written, &bytes);
  ASSERT_TRUE(status.ok()) << status.message();
  // The original file is carried verbatim behind the new root table.
  const size_t padded = (model.bytes().size() + 15) / 16 * 16;
  ASSERT_GE(bytes.size(), padded);
  EXPECT_EQ(
      std::memcmp(bytes.data() + bytes.size() - padded, model.bytes().data(), model.bytes().size()),
      0);
  Model updated;
  ASSERT_TRUE(Model::FromBytes(std::move(bytes), &updated).ok());
  TrainingMetadata read;
  bool found = false;
  status = ReadTrainingMetadata(updated, &read, &found);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_TRUE(found);
  EXPECT_EQ(read, written);
  ExpectSameModelContent(model, updated);
  const MetadataEntry* kept = updated.graph().FindMetadata("other_tool");
  ASSERT_NE(kept, nullptr);
  ASSERT_EQ(kept->size, other.size());
  EXPECT_EQ(std::memcmp(updated.MetadataData(*kept), other.data(), other.size()), 0);
}

TEST(TrainingMetadataInModel, WritingAgainReplacesTheEntry) {
  const Model model = SmallClassifier();
  std::vector<uint8_t> first_bytes, second_bytes;
  ASSERT_TRUE(WriteTrainingMetadata(model, AdamCce(), &first_bytes).ok());
  Model first;
  ASSERT_TRUE(Model::FromBytes(std::move(first_bytes), &first).ok());
  TrainingMetadata sgd;
  sgd.batch_size = 8;
  ASSERT_TRUE(WriteTrainingMetadata(first, sgd, &second_bytes).ok());
  Model second;
  ASSERT_TRUE(Model::FromBytes(std::move(second_bytes), &second).ok());
  size_t entries = 0;
  for (const MetadataEntry& e : second.graph().metadata) entries += e.name == "CIRCLE_TRAINING";
  EXPECT_EQ(entries, 1u);
  EXPECT_EQ(second.graph().buffer_count, first.graph().buffer_count)
      << "the old metadata buffer is reused, not left behind as an extra buffer";
  TrainingMetadata read;
  bool found = false;
  ASSERT_TRUE(ReadTrainingMetadata(second, &read, &found).ok());
  EXPECT_EQ(read, sgd);
  ExpectSameModelContent(model, second);
}

TEST(TrainingMetadataInModel, CorruptNestedBufferIsRefused) {
  HandBuilt hand;
  hand.bytes()[4] = 'X';
  const Model model = SmallClassifier(2, {{"CIRCLE_TRAINING", hand.bytes()}});
  TrainingMetadata m;
  bool found = true;
  Status status = ReadTrainingMetadata(model, &m, &found);
  EXPECT_EQ(status.code(), StatusCode::kInvalidModel);
  EXPECT_NE(std::string(status.message()).find("metadata buffer"), std::string::npos)
      << status.message();
  EXPECT_FALSE(found);
}

TEST(TrainingMetadataInModel, TrainableOperatorsOutsideTheModelAreRefused) {
  HandBuilt hand;  // lists operators 3, 4, 5; the small classifier has 3 operators
  const Model model = SmallClassifier(2, {{"CIRCLE_TRAINING", hand.bytes()}});
  TrainingMetadata m;
  bool found = false;
  Status status = ReadTrainingMetadata(model, &m, &found);
  EXPECT_EQ(status.code(), StatusCode::kInvalidModel);
  EXPECT_NE(std::string(status.message()).find("trainable_ops[0] is operator 3"), std::string::npos)
      << status.message();
}

TEST(TrainingMetadataMapping, AdamAndCategoricalCrossEntropyMapToTrainingOptions) {
  TrainingOptions options;
  uint32_t layers = 0;
  ASSERT_TRUE(ToTrainingOptions(AdamCce(), 6, &options, &layers).ok());
  EXPECT_EQ(options.optimizer, OptimizerKind::kAdam);
  EXPECT_EQ(options.learning_rate, 0.01f);
  EXPECT_EQ(options.beta1, 0.9f);
  EXPECT_EQ(options.beta2, 0.999f);
  EXPECT_EQ(options.epsilon, 1e-7f);
  EXPECT_EQ(options.loss, LossKind::kCrossEntropy);
  EXPECT_EQ(options.batch_size, 32u);
  EXPECT_EQ(options.epochs, 5u);
  EXPECT_EQ(layers, 3u);  // 6 operators - trainable_ops[0] = 3
}

TEST(TrainingMetadataMapping, TrainLayersCountFromTheLowestListedOperator) {
  TrainingMetadata m = AdamCce();
  TrainingOptions options;
  uint32_t layers = 99;
  m.trainable_ops = {5, 3, 4};  // unsorted: onert-micro would take 5 and train 1 layer
  ASSERT_TRUE(ToTrainingOptions(m, 6, &options, &layers).ok());
  EXPECT_EQ(layers, 3u);
  m.trainable_ops.clear();
  ASSERT_TRUE(ToTrainingOptions(m, 6, &options, &layers).ok());
  EXPECT_EQ(layers, 0u) << "an empty list trains nothing";
  m.has_trainable_ops = false;
  ASSERT_TRUE(ToTrainingOptions(m, 6, &options, &layers).ok());
  EXPECT_EQ(layers, 6u) << "an absent list trains everything";
  m.has_trainable_ops = true;
  m.trainable_ops = {6};
  EXPECT_EQ(ToTrainingOptions(m, 6, &options, &layers).code(), StatusCode::kInvalidArgument);
}

TEST(TrainingMetadataMapping, SparseCrossEntropyIsAcceptedAndFromLogitsIsNot) {
  TrainingMetadata m = AdamCce();
  m.loss = CircleLossFn::kSparseCategoricalCrossentropy;
  TrainingOptions options;
  uint32_t layers = 0;
  ASSERT_TRUE(ToTrainingOptions(m, 6, &options, &layers).ok());
  EXPECT_EQ(options.loss, LossKind::kSparseCrossEntropy);
  m.from_logits = true;
  EXPECT_EQ(ToTrainingOptions(m, 6, &options, &layers).code(), StatusCode::kUnsupported);
}

TEST(TrainingMetadataMapping, MissingValuesKeepTheCallersOptions) {
  TrainingMetadata m;
  m.has_optimizer_options = false;
  m.batch_size = 0;
  m.epochs = 0;
  TrainingOptions options;
  options.learning_rate = 0.5f;
  options.batch_size = 16;
  options.epochs = 9;
  uint32_t layers = 0;
  ASSERT_TRUE(ToTrainingOptions(m, 4, &options, &layers).ok());
  EXPECT_EQ(options.learning_rate, 0.5f);
  EXPECT_EQ(options.batch_size, 16u);
  EXPECT_EQ(options.epochs, 9u);
  EXPECT_EQ(options.loss, LossKind::kMse);
}

TEST(TrainingMetadataMapping, OptionsMapBackToTrailingTrainableOperators) {
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.loss = LossKind::kSparseCrossEntropy;
  options.batch_size = 8;
  TrainingMetadata m;
  ASSERT_TRUE(FromTrainingOptions(options, 6, 2, &m).ok());
  EXPECT_EQ(m.trainable_ops, (std::vector<int32_t>{4, 5}));
  EXPECT_EQ(m.loss, CircleLossFn::kSparseCategoricalCrossentropy);
  EXPECT_EQ(m.beta2, 0.9f);
  TrainingOptions back;
  uint32_t layers = 0;
  ASSERT_TRUE(ToTrainingOptions(m, 6, &back, &layers).ok());
  EXPECT_EQ(layers, 2u);
  EXPECT_EQ(back.batch_size, 8u);
  options.loss = LossKind::kMae;
  EXPECT_EQ(FromTrainingOptions(options, 6, 2, &m).code(), StatusCode::kUnsupported);
  options.loss = LossKind::kMse;
  EXPECT_EQ(FromTrainingOptions(options, 6, 7, &m).code(), StatusCode::kInvalidArgument);
}

class TrainingMetadataFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(TrainingMetadataFixture, RealModelKeepsEverythingWhenMetadataIsAdded) {
  TS_REQUIRE_FIXTURES();
  Model model;
  Status status = ReadModelFile(testing::ModelsDir() + "/" + GetParam(), &model);
  ASSERT_TRUE(status.ok()) << status.message();
  TrainingMetadata m;
  const size_t ops = model.graph().main().operators.size();
  ASSERT_TRUE(FromTrainingOptions(TrainingOptions{}, ops, static_cast<uint32_t>(ops), &m).ok());
  std::vector<uint8_t> bytes;
  status = WriteTrainingMetadata(model, m, &bytes);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(std::memcmp(bytes.data() + 4, model.bytes().data() + 4, 4), 0) << "identifier kept";
  Model updated;
  ASSERT_TRUE(Model::FromBytes(std::move(bytes), &updated).ok());
  ExpectSameModelContent(model, updated);
  EXPECT_EQ(updated.graph().metadata.size(), model.graph().metadata.size() + 1);
  TrainingMetadata read;
  bool found = false;
  ASSERT_TRUE(ReadTrainingMetadata(updated, &read, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(read, m);
}

INSTANTIATE_TEST_SUITE_P(Models, TrainingMetadataFixture,
                         ::testing::Values("onert-micro/simple_mnist/model.circle",
                                           "tflite/person_detect.tflite"));

TEST(TrainingMetadata, ANewerVersionIsRefusedNamingBoth) {
  TrainingMetadata newer;
  newer.version = 99;
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(EncodeTrainingMetadata(newer, &bytes).ok());
  TrainingMetadata decoded;
  const Status status = DecodeTrainingMetadata(bytes.data(), bytes.size(), &decoded);
  EXPECT_EQ(status.code(), StatusCode::kInvalidModel);
  EXPECT_NE(std::string(status.message()).find("version 99 is newer than version 1"),
            std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace trainscope
