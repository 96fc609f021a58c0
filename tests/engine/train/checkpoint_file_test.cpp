// SPDX-License-Identifier: Apache-2.0
#include "engine/train/checkpoint_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/common/fixtures.h"
#include "tests/engine/train/train_test_models.h"

namespace trainscope {
namespace {

using testing::SmallClassifier;

void PutU16(std::vector<uint8_t>* out, uint16_t v) {
  out->push_back(static_cast<uint8_t>(v & 0xff));
  out->push_back(static_cast<uint8_t>(v >> 8));
}
void PutU32(std::vector<uint8_t>* out, uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out->push_back(static_cast<uint8_t>(v >> shift));
}
void PutFloats(std::vector<uint8_t>* out, const std::vector<float>& values) {
  for (float f : values) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    PutU32(out, bits);
  }
}
void PatchU32(std::vector<uint8_t>* bytes, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) (*bytes)[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

// The small classifier's weights: w1[i] = 0.125 (i + 1), w2[i] = -0.25 (i + 1), exact in float.
const std::vector<float> kW1 = {0.125f, 0.25f, 0.375f, 0.5f,  0.625f, 0.75f,
                                0.875f, 1.0f,  1.125f, 1.25f, 1.375f, 1.5f};
const std::vector<float> kB1 = {0.5f, -0.5f, 0.25f};
const std::vector<float> kW2 = {-0.25f, -0.5f, -0.75f, -1.0f, -1.25f, -1.5f};

std::vector<float> Scaled(const std::vector<float>& v, float s) {
  std::vector<float> out = v;
  for (float& x : out) x *= s;
  return out;
}

CheckpointData AdamData(const Model& model) {
  CheckpointData data;
  EXPECT_TRUE(CaptureCheckpoint(model, CheckpointConfig{OptimizerKind::kAdam, 0}, &data).ok());
  data.has_adam_state = true;
  for (CheckpointTensor& t : data.tensors) {
    t.adam_m = Scaled(t.weights, 0.01f);
    t.adam_v = Scaled(t.weights, 0.001f);
  }
  data.num_step = 12;
  data.num_epoch = 3;
  return data;
}

std::vector<uint8_t> WriteOrFail(const Model& model, const CheckpointConfig& config,
                                 const CheckpointData& data) {
  std::vector<uint8_t> bytes;
  Status status = WriteCheckpoint(model, config, data, &bytes);
  EXPECT_TRUE(status.ok()) << status.message();
  return bytes;
}

TEST(CheckpointTensors, WalkTheLastLayersBackwardsTakingConstantInputsOfFcAndConv) {
  const Model model = SmallClassifier();
  std::vector<int32_t> ids;
  ASSERT_TRUE(ListCheckpointTensors(model.graph().main(), 0, &ids).ok());
  // SOFTMAX (op 2) has none; FC op 1 gives w2 (4); FC op 0 gives w1 (1), b1 (2).
  EXPECT_EQ(ids, (std::vector<int32_t>{4, 1, 2}));
  ASSERT_TRUE(ListCheckpointTensors(model.graph().main(), 2, &ids).ok());
  EXPECT_EQ(ids, (std::vector<int32_t>{4}));
  ASSERT_TRUE(ListCheckpointTensors(model.graph().main(), 1, &ids).ok());
  EXPECT_TRUE(ids.empty());
}

TEST(CheckpointTensors, AWeightSharedByTwoOperatorsIsStoredOnce) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 2});
  const int w = b.AddConstant("w", {2, 2}, {1, 2, 3, 4});
  const int h = b.AddTensor("h", {1, 2});
  const int y = b.AddTensor("y", {1, 2});
  b.AddOperator(op::kFullyConnected, {x, w, -1}, {h});
  b.AddOperator(op::kFullyConnected, {h, w, -1}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(b.Finish(&bytes).ok());
  Model model;
  ASSERT_TRUE(Model::FromBytes(std::move(bytes), &model).ok());
  std::vector<int32_t> ids;
  ASSERT_TRUE(ListCheckpointTensors(model.graph().main(), 0, &ids).ok());
  EXPECT_EQ(ids, (std::vector<int32_t>{w}));
}

TEST(CheckpointWrite, SgdBytesEqualTheHandBuiltLayout) {
  const Model model = SmallClassifier();
  CheckpointData data;
  ASSERT_TRUE(CaptureCheckpoint(model, CheckpointConfig{}, &data).ok());
  data.num_step = 12;
  data.num_epoch = 3;
  // N = 7 tensors: header 20 + table 28 = 48; w2 (24 B) at 48, w1 (48 B) at 72, b1 (12 B) at
  // 120; footer at 132; 140 bytes in all.
  std::vector<uint8_t> expected;
  PutU16(&expected, 429);
  expected.push_back(1);
  expected.push_back(0);
  for (uint32_t v : {0u, 0u, 132u, 7u}) PutU32(&expected, v);
  for (uint32_t v : {0u, 72u, 120u, 0u, 48u, 0u, 0u}) PutU32(&expected, v);
  PutFloats(&expected, kW2);
  PutFloats(&expected, kW1);
  PutFloats(&expected, kB1);
  PutU32(&expected, 12);
  PutU32(&expected, 3);
  EXPECT_EQ(WriteOrFail(model, CheckpointConfig{}, data), expected);
}

TEST(CheckpointWrite, AdamBytesEqualTheHandBuiltLayout) {
  const Model model = SmallClassifier();
  const CheckpointData data = AdamData(model);
  // Weights as above up to 132; m table at 132 (m: w2 at 160, w1 at 184, b1 at 232), v table
  // at 244 (v: w2 at 272, w1 at 296, b1 at 344); footer at 356; 364 bytes
  // = 20 + 4N + S + 2 (4N + S) + 8 with N = 7, S = 84.
  std::vector<uint8_t> expected;
  PutU16(&expected, 429);
  expected.push_back(1);
  expected.push_back(0);
  for (uint32_t v : {132u, 244u, 356u, 7u}) PutU32(&expected, v);
  for (uint32_t v : {0u, 72u, 120u, 0u, 48u, 0u, 0u}) PutU32(&expected, v);
  PutFloats(&expected, kW2);
  PutFloats(&expected, kW1);
  PutFloats(&expected, kB1);
  for (uint32_t v : {0u, 184u, 232u, 0u, 160u, 0u, 0u}) PutU32(&expected, v);
  PutFloats(&expected, Scaled(kW2, 0.01f));
  PutFloats(&expected, Scaled(kW1, 0.01f));
  PutFloats(&expected, Scaled(kB1, 0.01f));
  for (uint32_t v : {0u, 296u, 344u, 0u, 272u, 0u, 0u}) PutU32(&expected, v);
  PutFloats(&expected, Scaled(kW2, 0.001f));
  PutFloats(&expected, Scaled(kW1, 0.001f));
  PutFloats(&expected, Scaled(kB1, 0.001f));
  PutU32(&expected, 12);
  PutU32(&expected, 3);
  ASSERT_EQ(expected.size(), 364u);
  EXPECT_EQ(WriteOrFail(model, CheckpointConfig{OptimizerKind::kAdam, 0}, data), expected);
}

TEST(CheckpointWrite, DataThatDoesNotMatchTheModelIsRefused) {
  const Model model = SmallClassifier();
  CheckpointData data;
  ASSERT_TRUE(CaptureCheckpoint(model, CheckpointConfig{}, &data).ok());
  std::vector<uint8_t> bytes;

  CheckpointData reordered = data;
  std::swap(reordered.tensors[0], reordered.tensors[1]);
  EXPECT_EQ(WriteCheckpoint(model, CheckpointConfig{}, reordered, &bytes).code(),
            StatusCode::kInvalidArgument);
  CheckpointData short_weights = data;
  short_weights.tensors[2].weights.pop_back();
  EXPECT_EQ(WriteCheckpoint(model, CheckpointConfig{}, short_weights, &bytes).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(WriteCheckpoint(model, CheckpointConfig{}, AdamData(model), &bytes).code(),
            StatusCode::kInvalidArgument)
      << "Adam state in an SGD checkpoint";
  EXPECT_TRUE(bytes.empty());
}

TEST(CheckpointWrite, AModelWithoutSubgraphsIsRefused) {
  const Model empty;
  CheckpointData data;
  std::vector<uint8_t> bytes(4, 0);
  EXPECT_EQ(CaptureCheckpoint(empty, CheckpointConfig{}, &data).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(WriteCheckpoint(empty, CheckpointConfig{}, data, &bytes).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadCheckpoint(empty, CheckpointConfig{}, bytes.data(), bytes.size(), &data).code(),
            StatusCode::kInvalidArgument);
}

TEST(CheckpointRead, SgdAndAdamFilesRoundTrip) {
  const Model model = SmallClassifier();
  for (OptimizerKind kind : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    const CheckpointConfig config{kind, 0};
    CheckpointData written;
    if (kind == OptimizerKind::kAdam) {
      written = AdamData(model);
    } else {
      ASSERT_TRUE(CaptureCheckpoint(model, config, &written).ok());
      written.num_step = 40;
      written.num_epoch = 2;
    }
    const std::vector<uint8_t> bytes = WriteOrFail(model, config, written);
    CheckpointData read;
    Status status = ReadCheckpoint(model, config, bytes.data(), bytes.size(), &read);
    ASSERT_TRUE(status.ok()) << status.message();
    ASSERT_EQ(read.tensors.size(), written.tensors.size());
    for (size_t i = 0; i < read.tensors.size(); ++i) {
      EXPECT_EQ(read.tensors[i].tensor, written.tensors[i].tensor);
      EXPECT_EQ(read.tensors[i].weights, written.tensors[i].weights);
      EXPECT_EQ(read.tensors[i].adam_m, written.tensors[i].adam_m);
      EXPECT_EQ(read.tensors[i].adam_v, written.tensors[i].adam_v);
    }
    EXPECT_EQ(read.has_adam_state, kind == OptimizerKind::kAdam);
    EXPECT_EQ(read.num_step, written.num_step);
    EXPECT_EQ(read.num_epoch, written.num_epoch);
    EXPECT_EQ(read.header.tensor_count, 7u);
  }
}

// A NaN or Inf weight or moment would train into NaN without a word: refused, naming where.
TEST(CheckpointRead, NonFiniteValuesAreRefusedNamingTheTensor) {
  const Model model = SmallClassifier();
  const CheckpointConfig adam{OptimizerKind::kAdam, 0};
  for (const float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    for (int section = 0; section < 3; ++section) {
      CheckpointData data = AdamData(model);
      std::vector<float>& values = section == 0   ? data.tensors[0].weights
                                   : section == 1 ? data.tensors[0].adam_m
                                                  : data.tensors[0].adam_v;
      values[1] = bad;
      const std::vector<uint8_t> bytes = WriteOrFail(model, adam, data);
      CheckpointData read;
      const Status status = ReadCheckpoint(model, adam, bytes.data(), bytes.size(), &read);
      EXPECT_EQ(status.code(), StatusCode::kInvalidFile);
      EXPECT_NE(std::string(status.message()).find(std::isnan(bad) ? "is NaN" : "is Inf"),
                std::string::npos)
          << status.message();
      EXPECT_NE(std::string(status.message()).find("value 1 of tensor"), std::string::npos)
          << status.message();
    }
  }
}

TEST(CheckpointRead, AdamCheckpointWithoutStateIsAccepted) {
  // onert-micro writes no m/v before the first step (m_offset = v_offset = 0).
  const Model model = SmallClassifier();
  const CheckpointConfig adam{OptimizerKind::kAdam, 0};
  CheckpointData data;
  ASSERT_TRUE(CaptureCheckpoint(model, adam, &data).ok());
  const std::vector<uint8_t> bytes = WriteOrFail(model, adam, data);
  CheckpointData read;
  ASSERT_TRUE(ReadCheckpoint(model, adam, bytes.data(), bytes.size(), &read).ok());
  EXPECT_FALSE(read.has_adam_state);
}

TEST(CheckpointRead, ApplyingReadWeightsRestoresTheModel) {
  Model model = SmallClassifier();
  const CheckpointConfig config;
  CheckpointData saved;
  ASSERT_TRUE(CaptureCheckpoint(model, config, &saved).ok());
  const std::vector<uint8_t> bytes = WriteOrFail(model, config, saved);
  CheckpointData scribbled = saved;
  for (CheckpointTensor& t : scribbled.tensors) t.weights = Scaled(t.weights, -3.0f);
  ASSERT_TRUE(ApplyCheckpointWeights(scribbled, &model).ok());
  CheckpointData read, now;
  ASSERT_TRUE(ReadCheckpoint(model, config, bytes.data(), bytes.size(), &read).ok());
  ASSERT_TRUE(ApplyCheckpointWeights(read, &model).ok());
  ASSERT_TRUE(CaptureCheckpoint(model, config, &now).ok());
  for (size_t i = 0; i < now.tensors.size(); ++i) {
    EXPECT_EQ(now.tensors[i].weights, saved.tensors[i].weights);
  }
}

class CorruptCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = SmallClassifier();
    sgd_ = WriteOrFail(model_, CheckpointConfig{}, SgdData());
    adam_ = WriteOrFail(model_, adam_config_, AdamData(model_));
  }
  CheckpointData SgdData() {
    CheckpointData data;
    EXPECT_TRUE(CaptureCheckpoint(model_, CheckpointConfig{}, &data).ok());
    return data;
  }
  // Reads and expects kInvalidFile whose message contains `needle`; `data` must stay as it was.
  void ExpectRefused(const std::vector<uint8_t>& bytes, const CheckpointConfig& config,
                     const std::string& needle) {
    CheckpointData data;
    data.num_step = 77;
    Status status = ReadCheckpoint(model_, config, bytes.data(), bytes.size(), &data);
    EXPECT_EQ(status.code(), StatusCode::kInvalidFile) << status.message();
    EXPECT_NE(std::string(status.message()).find(needle), std::string::npos)
        << "message: " << status.message() << "\nexpected to contain: " << needle;
    EXPECT_EQ(data.num_step, 77u);
  }

  Model model_;
  const CheckpointConfig adam_config_{OptimizerKind::kAdam, 0};
  std::vector<uint8_t> sgd_;
  std::vector<uint8_t> adam_;
};

TEST_F(CorruptCheckpoint, WrongMagicIsRefused) {
  std::vector<uint8_t> bytes = sgd_;
  bytes[0] = 0x1d;  // 29 + 256: the train-config magic's low byte
  ExpectRefused(bytes, CheckpointConfig{}, "magic at byte 0 is 285");
}

TEST_F(CorruptCheckpoint, WrongVersionIsRefused) {
  std::vector<uint8_t> bytes = sgd_;
  bytes[2] = 2;
  ExpectRefused(bytes, CheckpointConfig{}, "schema version at byte 2 is 2");
}

TEST_F(CorruptCheckpoint, TensorCountOtherThanTheModelsIsRefused) {
  std::vector<uint8_t> bytes = sgd_;
  PatchU32(&bytes, 16, 8);
  ExpectRefused(bytes, CheckpointConfig{}, "tensor count at byte 16 is 8");
  PatchU32(&bytes, 16, 0xffffffffu);
  ExpectRefused(bytes, CheckpointConfig{}, "tensor count at byte 16 is 4294967295");
}

TEST_F(CorruptCheckpoint, EveryTruncationIsRefused) {
  for (const std::vector<uint8_t>* file : {&sgd_, &adam_}) {
    const CheckpointConfig config = file == &adam_ ? adam_config_ : CheckpointConfig{};
    for (size_t size = 0; size < file->size(); ++size) {
      const std::vector<uint8_t> cut(file->begin(), file->begin() + static_cast<long>(size));
      CheckpointData data;
      EXPECT_EQ(ReadCheckpoint(model_, config, cut.data(), cut.size(), &data).code(),
                StatusCode::kInvalidFile)
          << "truncated to " << size << " of " << file->size() << " bytes";
    }
  }
  ExpectRefused(std::vector<uint8_t>(sgd_.begin(), sgd_.begin() + 10), CheckpointConfig{},
                "header alone needs 20");
  ExpectRefused(std::vector<uint8_t>(sgd_.begin(), sgd_.begin() + 40), CheckpointConfig{},
                "offset table");
  ExpectRefused(std::vector<uint8_t>(sgd_.begin(), sgd_.end() - 1), CheckpointConfig{},
                "other_offset at byte 12 is 132");
}

TEST_F(CorruptCheckpoint, TrailingBytesAreRefused) {
  std::vector<uint8_t> bytes = sgd_;
  bytes.push_back(0);
  ExpectRefused(bytes, CheckpointConfig{}, "footer must end");
}

TEST_F(CorruptCheckpoint, OffsetsOutsideTheirSectionAreRefused) {
  std::vector<uint8_t> bytes = sgd_;
  PatchU32(&bytes, 20 + 4 * 1, 1000);  // w1's weight offset past the end
  ExpectRefused(bytes, CheckpointConfig{}, "weight offset of tensor 1 'w1' (byte 24) is 1000");
  bytes = sgd_;
  PatchU32(&bytes, 20 + 4 * 2, 124);  // b1 would run 4 bytes into the footer
  ExpectRefused(bytes, CheckpointConfig{}, "do not fit in the weight section [48, 132)");
  bytes = sgd_;
  PatchU32(&bytes, 20 + 4 * 4, 0);  // w2 marked as not stored
  ExpectRefused(bytes, CheckpointConfig{}, "tensor 4 'w2' (byte 36) is 0");
  bytes = adam_;
  PatchU32(&bytes, 244 + 4 * 1, 5000);  // w1's v offset
  ExpectRefused(bytes, adam_config_, "Adam v offset of tensor 1 'w1'");
  bytes = adam_;
  PatchU32(&bytes, 12, 1000);
  ExpectRefused(bytes, adam_config_, "other_offset at byte 12 is 1000");
  bytes = adam_;
  PatchU32(&bytes, 4, 5000);  // m table past the end
  ExpectRefused(bytes, adam_config_, "weight section");
}

TEST_F(CorruptCheckpoint, AdamStateInAnSgdCheckpointIsRefused) {
  ExpectRefused(adam_, CheckpointConfig{}, "m_offset (byte 4) is 132 and v_offset (byte 8) is 244");
  std::vector<uint8_t> bytes = adam_;
  PatchU32(&bytes, 8, 0);
  ExpectRefused(bytes, adam_config_, "needs both or neither");
}

TEST_F(CorruptCheckpoint, ACheckpointOfAnotherModelIsRefused) {
  const Model other = SmallClassifier(/*w2_rows=*/3);  // same tensor count, larger w2
  CheckpointData data;
  Status status = ReadCheckpoint(other, CheckpointConfig{}, sgd_.data(), sgd_.size(), &data);
  EXPECT_EQ(status.code(), StatusCode::kInvalidFile);
  EXPECT_NE(
      std::string(status.message()).find("holds 84 bytes; the model's stored tensors need 96"),
      std::string::npos)
      << status.message();
  // Read with fewer trained layers than written: the weight section is too large as well.
  status = ReadCheckpoint(model_, CheckpointConfig{OptimizerKind::kSgd, 2}, sgd_.data(),
                          sgd_.size(), &data);
  EXPECT_EQ(status.code(), StatusCode::kInvalidFile);
}

TEST_F(CorruptCheckpoint, FlippingAnyByteNeverCrashes) {
  for (const std::vector<uint8_t>* file : {&sgd_, &adam_}) {
    const CheckpointConfig config = file == &adam_ ? adam_config_ : CheckpointConfig{};
    for (size_t i = 0; i < file->size(); ++i) {
      for (const uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
        std::vector<uint8_t> bytes = *file;
        bytes[i] = static_cast<uint8_t>(bytes[i] ^ mask);
        CheckpointData data;
        Status status = ReadCheckpoint(model_, config, bytes.data(), bytes.size(), &data);
        if (!status.ok()) {
          EXPECT_EQ(status.code(), StatusCode::kInvalidFile) << status.message();
        }
      }
    }
  }
}

TEST(CheckpointFixture, SimpleMnistRoundTripsWithAdamState) {
  TS_REQUIRE_FIXTURES();
  Model model;
  Status status =
      ReadModelFile(testing::ModelsDir() + "/onert-micro/simple_mnist/model.circle", &model);
  ASSERT_TRUE(status.ok()) << status.message();
  const Subgraph& main = model.graph().main();
  const CheckpointConfig config{OptimizerKind::kAdam, 0};
  CheckpointData data;
  ASSERT_TRUE(CaptureCheckpoint(model, config, &data).ok());
  // Every constant input of the CONV_2D and FULLY_CONNECTED operators, and nothing else.
  size_t expected_tensors = 0, stored_bytes = 0;
  std::vector<bool> counted(main.tensors.size(), false);
  for (const Operator& op : main.operators) {
    if (op.opcode != op::kConv2D && op.opcode != op::kFullyConnected) continue;
    for (int32_t id : op.inputs) {
      if (id < 0 || !main.tensors[id].constant || counted[id]) continue;
      counted[id] = true;
      ++expected_tensors;
      stored_bytes += main.tensors[id].element_count() * 4;
    }
  }
  ASSERT_GT(expected_tensors, 0u);
  ASSERT_EQ(data.tensors.size(), expected_tensors);
  data.has_adam_state = true;
  for (CheckpointTensor& t : data.tensors) {
    t.adam_m = Scaled(t.weights, 0.5f);
    t.adam_v = Scaled(t.weights, 0.25f);
  }
  data.num_step = 5;
  const std::vector<uint8_t> bytes = WriteOrFail(model, config, data);
  const size_t n = main.tensors.size();
  EXPECT_EQ(bytes.size(), 20 + 4 * n + stored_bytes + 2 * (4 * n + stored_bytes) + 8);
  CheckpointData read;
  ASSERT_TRUE(ReadCheckpoint(model, config, bytes.data(), bytes.size(), &read).ok());
  ASSERT_EQ(read.tensors.size(), data.tensors.size());
  for (size_t i = 0; i < read.tensors.size(); ++i) {
    EXPECT_EQ(read.tensors[i].weights, data.tensors[i].weights);
    EXPECT_EQ(read.tensors[i].adam_v, data.tensors[i].adam_v);
  }
  EXPECT_EQ(read.num_step, 5u);
}

}  // namespace
}  // namespace trainscope
