// SPDX-License-Identifier: Apache-2.0
//
// Malformed models: each one is refused with a message naming the problem and its place, and
// none crashes (this suite also runs under the ASan+UBSan preset).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "engine/model/circle_subset_generated.h"
#include "engine/model/model.h"
#include "engine/model/model_builder.h"

namespace trainscope {
namespace {

namespace fb = trainscope::circle;

// A tiny one-op model (x -> FULLY_CONNECTED(w, b) -> y) written with the raw flatbuffers API, so
// that each test can break exactly one field the way a damaged or hostile file would.
struct RawModel {
  const char* identifier = "CIR0";
  std::vector<int32_t> x_shape{1, 4};
  std::vector<int32_t> w_shape{2, 4};
  size_t w_data_floats = 8;
  uint32_t w_buffer = 1;
  uint32_t opcode_index = 0;
  int8_t legacy_opcode = op::kFullyConnected;
  std::vector<int32_t> op_inputs{0, 1, 2};
  std::vector<int32_t> op_outputs{3};
  std::vector<int32_t> graph_inputs{0};
  std::vector<int32_t> graph_outputs{3};
  fb::BuiltinOptions options_type = fb::BuiltinOptions::FullyConnectedOptions;
  bool write_options_table = true;
  int8_t activation = 0;
  int8_t padding = 1;
  bool no_subgraphs = false;
  uint32_t metadata_buffer = 0;
  int8_t compression = 0;        // circle Tensor slot 10
  uint64_t external_offset = 0;  // Buffer.offset of the weights
  uint64_t external_size = 0;

  std::vector<uint8_t> Write() const {
    flatbuffers::FlatBufferBuilder b;
    auto tensor = [&](const char* name, const std::vector<int32_t>& shape, uint32_t buffer,
                      int8_t slot10) {
      auto shape_offset = b.CreateVector(shape);
      auto name_offset = b.CreateString(name);
      fb::TensorBuilder t(b);
      t.add_shape(shape_offset);
      t.add_buffer(buffer);
      t.add_name(name_offset);
      if (slot10 != 0) t.fbb_.AddElement<int8_t>(24, slot10, 0);
      return t.Finish();
    };
    std::vector<flatbuffers::Offset<fb::Tensor>> tensors{
        tensor("x", x_shape, 0, 0), tensor("w", w_shape, w_buffer, compression),
        tensor("b", {2}, 2, 0), tensor("y", {1, 2}, 0, 0)};
    flatbuffers::Offset<void> options = 0;
    if (write_options_table) {
      if (options_type == fb::BuiltinOptions::Pool2DOptions) {
        options = fb::CreatePool2DOptions(b, padding, 1, 1, 2, 2, activation).Union();
      } else if (options_type == fb::BuiltinOptions::Conv2DOptions) {
        options = fb::CreateConv2DOptions(b, padding, 1, 1, activation).Union();
      } else if (options_type != fb::BuiltinOptions::NONE) {
        options = fb::CreateFullyConnectedOptions(b, activation).Union();
      }
    }
    auto op = fb::CreateOperator(b, opcode_index, b.CreateVector(op_inputs),
                                 b.CreateVector(op_outputs), options_type, options);
    auto subgraph = fb::CreateSubGraph(b, b.CreateVector(tensors), b.CreateVector(graph_inputs),
                                       b.CreateVector(graph_outputs), b.CreateVector(&op, 1));
    std::vector<float> w(w_data_floats, 0.5f);
    std::vector<float> bias(2, 0.25f);
    auto bytes_of = [&](const std::vector<float>& v) {
      return b.CreateVector(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(float));
    };
    std::vector<flatbuffers::Offset<fb::Buffer>> buffers{
        fb::CreateBuffer(b),
        external_offset > 1 ? fb::CreateBuffer(b, 0, external_offset, external_size)
                            : fb::CreateBuffer(b, w.empty() ? 0 : bytes_of(w)),
        fb::CreateBuffer(b, bytes_of(bias))};
    auto code = fb::CreateOperatorCode(b, legacy_opcode, 0, 1, legacy_opcode);
    auto metadata = fb::CreateMetadata(b, b.CreateString("CIRCLE_TRAINING"), metadata_buffer);
    auto model = fb::CreateModel(
        b, 0, b.CreateVector(&code, 1),
        no_subgraphs ? b.CreateVector<flatbuffers::Offset<fb::SubGraph>>({})
                     : b.CreateVector(&subgraph, 1),
        0, b.CreateVector(buffers), 0, metadata_buffer != 0 ? b.CreateVector(&metadata, 1) : 0);
    b.Finish(model, identifier);
    return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  }
};

// Reads `bytes` and returns the error message ("" when the model was accepted).
std::string ErrorOf(const std::vector<uint8_t>& bytes) {
  Model model;
  Status status = Model::FromBytes(bytes, &model);
  return status.ok() ? std::string() : std::string(status.message());
}

#define EXPECT_REFUSED_WITH(bytes, fragment)                                                 \
  do {                                                                                       \
    const std::string message = ErrorOf(bytes);                                              \
    EXPECT_NE(message.find(fragment), std::string::npos)                                     \
        << "expected an error mentioning \"" << fragment << "\", got \"" << message << "\""; \
  } while (0)

TEST(MalformedModel, TheUnbrokenRawModelLoads) {
  EXPECT_EQ(ErrorOf(RawModel().Write()), "");
}

TEST(MalformedModel, EmptyFile) {
  EXPECT_REFUSED_WITH(std::vector<uint8_t>(), "0 bytes");
}

TEST(MalformedModel, FourByteFile) {
  EXPECT_REFUSED_WITH(std::vector<uint8_t>(4, 0), "at least 8 bytes");
}

TEST(MalformedModel, WrongIdentifier) {
  RawModel raw;
  raw.identifier = "ONNX";
  EXPECT_REFUSED_WITH(raw.Write(), "identifier at byte 4 is 'ONNX'");
}

TEST(MalformedModel, BinaryIdentifierIsShownEscaped) {
  std::vector<uint8_t> bytes = RawModel().Write();
  bytes[5] = 0x01;
  EXPECT_REFUSED_WITH(bytes, "\\x01");
}

TEST(MalformedModel, RootOffsetPastTheEnd) {
  std::vector<uint8_t> bytes = RawModel().Write();
  const uint32_t root = 0x7fffff00;
  std::memcpy(bytes.data(), &root, 4);
  EXPECT_REFUSED_WITH(bytes, "points past the end");
}

TEST(MalformedModel, EveryTruncationIsRefused) {
  const std::vector<uint8_t> bytes = RawModel().Write();
  for (size_t size = 0; size < bytes.size(); ++size) {
    const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(size));
    EXPECT_NE(ErrorOf(cut), "") << "truncated at " << size << " of " << bytes.size();
  }
}

TEST(MalformedModel, RandomBytesWithAValidIdentifierAreRefused) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint8_t> bytes(8 + rng() % 600);
    for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(rng());
    std::memcpy(bytes.data() + 4, trial % 2 ? "CIR0" : "TFL3", 4);
    EXPECT_NE(ErrorOf(bytes), "") << "trial " << trial;
  }
}

TEST(MalformedModel, FlippedBytesNeverCrash) {
  const std::vector<uint8_t> original = RawModel().Write();
  std::mt19937 rng(99);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes = original;
    for (int flips = 0; flips < 3; ++flips) {
      bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    Model model;
    (void)Model::FromBytes(bytes, &model);  // accepted or refused, but never a crash
  }
}

TEST(MalformedModel, NoSubgraphs) {
  RawModel raw;
  raw.no_subgraphs = true;
  EXPECT_REFUSED_WITH(raw.Write(), "no subgraphs");
}

TEST(MalformedModel, TensorBufferIndexOutOfRange) {
  RawModel raw;
  raw.w_buffer = 9;
  EXPECT_REFUSED_WITH(raw.Write(), "tensor 1 'w': buffer index 9 is out of range");
}

TEST(MalformedModel, OpcodeIndexOutOfRange) {
  RawModel raw;
  raw.opcode_index = 4;
  EXPECT_REFUSED_WITH(raw.Write(), "operator 0: opcode index 4 is out of range");
}

TEST(MalformedModel, OperatorInputOutOfRange) {
  RawModel raw;
  raw.op_inputs = {0, 17, 2};
  EXPECT_REFUSED_WITH(raw.Write(), "operator 0 (FULLY_CONNECTED): input 1 is tensor 17");
}

TEST(MalformedModel, OperatorInputBelowMinusOne) {
  RawModel raw;
  raw.op_inputs = {0, 1, -2};
  EXPECT_REFUSED_WITH(raw.Write(), "input 2 is tensor -2");
}

TEST(MalformedModel, AbsentOptionalInputIsAccepted) {
  RawModel raw;
  raw.op_inputs = {0, 1, -1};
  EXPECT_EQ(ErrorOf(raw.Write()), "");
}

TEST(MalformedModel, OperatorOutputMinusOne) {
  RawModel raw;
  raw.op_outputs = {-1};
  EXPECT_REFUSED_WITH(raw.Write(), "output 0 is tensor -1");
}

TEST(MalformedModel, GraphInputOutOfRange) {
  RawModel raw;
  raw.graph_inputs = {4};
  EXPECT_REFUSED_WITH(raw.Write(), "graph input 0 is tensor 4");
}

TEST(MalformedModel, GraphOutputOutOfRange) {
  RawModel raw;
  raw.graph_outputs = {3, 100};
  EXPECT_REFUSED_WITH(raw.Write(), "graph output 1 is tensor 100");
}

TEST(MalformedModel, MetadataBufferOutOfRange) {
  RawModel raw;
  raw.metadata_buffer = 12;
  EXPECT_REFUSED_WITH(raw.Write(), "metadata 0 'CIRCLE_TRAINING': buffer index 12");
}

TEST(MalformedModel, NegativeDimension) {
  RawModel raw;
  raw.x_shape = {1, -4};
  EXPECT_REFUSED_WITH(raw.Write(), "tensor 0 'x': dimension 1 of the shape is -4");
}

TEST(MalformedModel, OverflowingShape) {
  RawModel raw;
  raw.x_shape = {65536, 65536, 65536, 65536};
  EXPECT_REFUSED_WITH(raw.Write(), "element count overflows");
}

TEST(MalformedModel, ConstantDataShorterThanShape) {
  RawModel raw;
  raw.w_data_floats = 7;
  EXPECT_REFUSED_WITH(raw.Write(), "buffer 1 holds 28 bytes, but shape [2,4] of FLOAT32 needs 32");
}

TEST(MalformedModel, ConstantDataLongerThanShape) {
  RawModel raw;
  raw.w_data_floats = 9;
  EXPECT_REFUSED_WITH(raw.Write(), "holds 36 bytes");
}

TEST(MalformedModel, OptionsOfTheWrongType) {
  RawModel raw;
  raw.options_type = fb::BuiltinOptions::Pool2DOptions;
  EXPECT_REFUSED_WITH(raw.Write(),
                      "builtin options are Pool2DOptions (union type 5), expected "
                      "FullyConnectedOptions");
}

TEST(MalformedModel, OptionsTypeWithoutTable) {
  RawModel raw;
  raw.write_options_table = false;
  EXPECT_REFUSED_WITH(raw.Write(), "options table is missing");
}

TEST(MalformedModel, UndefinedFusedActivation) {
  RawModel raw;
  raw.activation = 42;
  EXPECT_REFUSED_WITH(raw.Write(), "fused activation 42 is not defined");
}

TEST(MalformedModel, UndefinedPadding) {
  RawModel raw;
  raw.legacy_opcode = op::kConv2D;
  raw.options_type = fb::BuiltinOptions::Conv2DOptions;
  raw.w_shape = {2, 1, 1, 4};
  raw.padding = 7;
  EXPECT_REFUSED_WITH(raw.Write(), "padding 7 is neither SAME nor VALID");
}

TEST(MalformedModel, OpcodeMinusOneNamesNoOperator) {
  RawModel raw;
  raw.legacy_opcode = -1;
  raw.options_type = fb::BuiltinOptions::NONE;
  EXPECT_REFUSED_WITH(raw.Write(), "code -1 does not name any operator");
}

TEST(MalformedModel, CompressedWeightsAreUnsupported) {
  RawModel raw;
  raw.compression = 1;
  EXPECT_REFUSED_WITH(raw.Write(), "weights are compressed");
}

TEST(MalformedModel, ExternalBufferOutsideTheFile) {
  RawModel raw;
  raw.external_offset = 1u << 20;
  raw.external_size = 32;
  EXPECT_REFUSED_WITH(raw.Write(), "buffer 1: external data at byte offset 1048576");
}

TEST(MalformedModel, ErrorsFromFilesNameTheFile) {
  Model model;
  Status status = ReadModelFile("/nonexistent/dir/model.circle", &model);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(std::string(status.message()).find("/nonexistent/dir/model.circle"), std::string::npos);
}

}  // namespace
}  // namespace trainscope
