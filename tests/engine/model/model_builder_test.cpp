// SPDX-License-Identifier: Apache-2.0
//
// ModelBuilder writes models that read back exactly as they were described: every op type the
// builder supports, constant bytes, options, graph inputs/outputs, metadata, shared buffers.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "engine/model/model.h"
#include "engine/model/model_builder.h"

namespace trainscope {
namespace {

std::vector<float> Ramp(size_t count, float scale) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = scale * static_cast<float>(i) - 1.0f;
  return values;
}

struct ExpectedOp {
  int32_t opcode;
  OpOptions options;
};

class ModelBuilderRoundTrip : public ::testing::Test {
 protected:
  // A network touching every op the builder must write: conv, depthwise, both pools, reshape,
  // fully connected, the activations, add, mul and softmax.
  void BuildNetwork(ModelFormat format) {
    ModelBuilder b(format);
    const int x = b.AddTensor("x", {1, 8, 8, 1});
    const int conv_w = b.AddConstant("conv/w", {4, 3, 3, 1}, Ramp(36, 0.05f));
    const int conv_b = b.AddConstant("conv/b", {4}, Ramp(4, 0.5f));
    const int conv_y = b.AddTensor("conv/y", {1, 8, 8, 4});
    OpOptions conv;
    conv.padding = Padding::kSame;
    conv.stride_w = conv.stride_h = 1;
    conv.activation = Activation::kRelu;
    conv.dilation_w = 2;
    ops_.push_back({op::kConv2D, conv});
    b.AddOperator(op::kConv2D, {x, conv_w, conv_b}, {conv_y}, conv);

    const int dw_w = b.AddConstant("dw/w", {1, 3, 3, 4}, Ramp(36, 0.02f));
    const int dw_y = b.AddTensor("dw/y", {1, 6, 6, 4});
    OpOptions dw;
    dw.padding = Padding::kValid;
    dw.stride_w = dw.stride_h = 1;
    dw.depth_multiplier = 1;
    dw.activation = Activation::kRelu6;
    ops_.push_back({op::kDepthwiseConv2D, dw});
    b.AddOperator(op::kDepthwiseConv2D, {conv_y, dw_w, -1}, {dw_y}, dw);

    const int max_y = b.AddTensor("max/y", {1, 3, 3, 4});
    OpOptions pool;
    pool.padding = Padding::kValid;
    pool.stride_w = pool.stride_h = pool.filter_w = pool.filter_h = 2;
    ops_.push_back({op::kMaxPool2D, pool});
    b.AddOperator(op::kMaxPool2D, {dw_y}, {max_y}, pool);

    const int avg_y = b.AddTensor("avg/y", {1, 3, 3, 4});
    OpOptions avg = pool;
    avg.padding = Padding::kSame;
    avg.stride_w = avg.stride_h = 1;
    avg.filter_w = avg.filter_h = 3;
    ops_.push_back({op::kAveragePool2D, avg});
    b.AddOperator(op::kAveragePool2D, {max_y}, {avg_y}, avg);

    const int shape = b.AddConstantInt32("shape", {2}, {1, 36});
    const int flat = b.AddTensor("flat", {1, 36});
    OpOptions reshape;
    reshape.new_shape = {1, 36};
    ops_.push_back({op::kReshape, reshape});
    b.AddOperator(op::kReshape, {avg_y, shape}, {flat}, reshape);

    const int fc_w = b.AddConstant("fc/w", {3, 36}, Ramp(108, 0.01f));
    const int fc_b = b.AddConstant("fc/b", {3}, {0.1f, -0.2f, 0.3f});
    const int fc_y = b.AddTensor("fc/y", {1, 3});
    OpOptions fc;
    fc.activation = Activation::kTanh;
    ops_.push_back({op::kFullyConnected, fc});
    b.AddOperator(op::kFullyConnected, {flat, fc_w, fc_b}, {fc_y}, fc);

    int previous = fc_y;
    for (int32_t activation : {op::kRelu, op::kLogistic, op::kTanh}) {
      const int y = b.AddTensor(std::string(OpcodeName(activation)) + "/y", {1, 3});
      ops_.push_back({activation, OpOptions()});
      b.AddOperator(activation, {previous}, {y});
      previous = y;
    }
    const int bias = b.AddConstant("bias", {3}, {1.0f, 2.0f, 3.0f});
    const int shared = b.AddConstantSharingBuffer("bias_again", bias);
    const int add_y = b.AddTensor("add/y", {1, 3});
    OpOptions add;
    add.activation = Activation::kRelu;
    ops_.push_back({op::kAdd, add});
    b.AddOperator(op::kAdd, {previous, bias}, {add_y}, add);
    const int mul_y = b.AddTensor("mul/y", {1, 3});
    ops_.push_back({op::kMul, OpOptions()});
    b.AddOperator(op::kMul, {add_y, shared}, {mul_y});
    const int probabilities = b.AddTensor("probabilities", {1, 3});
    OpOptions softmax;
    softmax.beta = 0.5f;
    ops_.push_back({op::kSoftmax, softmax});
    b.AddOperator(op::kSoftmax, {mul_y}, {probabilities}, softmax);

    b.SetInputs({x});
    b.SetOutputs({probabilities});
    b.AddMetadata("CIRCLE_TRAINING", {'C', 'T', 'R', '0', 1, 2, 3});
    ASSERT_TRUE(b.Finish(&bytes_).ok());
    input_ = x;
    output_ = probabilities;
    fc_weights_ = fc_w;
    bias_ = bias;
    shared_ = shared;
  }

  std::vector<ExpectedOp> ops_;
  std::vector<uint8_t> bytes_;
  int input_ = -1, output_ = -1, fc_weights_ = -1, bias_ = -1, shared_ = -1;
};

TEST_F(ModelBuilderRoundTrip, CircleModelReadsBackAsDescribed) {
  BuildNetwork(ModelFormat::kCircle);
  Model model;
  Status status = Model::FromBytes(bytes_, &model);
  ASSERT_TRUE(status.ok()) << status.message();
  const Graph& graph = model.graph();
  EXPECT_EQ(graph.format, ModelFormat::kCircle);
  EXPECT_EQ(std::memcmp(model.bytes().data() + 4, "CIR0", 4), 0);
  const Subgraph& main = graph.main();
  ASSERT_EQ(main.operators.size(), ops_.size());
  for (size_t k = 0; k < ops_.size(); ++k) {
    SCOPED_TRACE(OpcodeName(ops_[k].opcode));
    EXPECT_EQ(main.operators[k].opcode, ops_[k].opcode);
    EXPECT_EQ(main.operators[k].options, ops_[k].options);
  }
  EXPECT_EQ(main.inputs, std::vector<int32_t>{input_});
  EXPECT_EQ(main.outputs, std::vector<int32_t>{output_});
  const Tensor& weights = main.tensors[fc_weights_];
  EXPECT_EQ(weights.name, "fc/w");
  EXPECT_EQ(weights.shape, (std::vector<int32_t>{3, 36}));
  ASSERT_TRUE(weights.constant);
  EXPECT_EQ(weights.data_offset % 16, 0u) << "constant data must stay 16-byte aligned";
  std::vector<float> stored(108);
  std::memcpy(stored.data(), model.ConstantData(weights), weights.bytes);
  EXPECT_EQ(stored, Ramp(108, 0.01f));
  EXPECT_TRUE(main.tensors[shared_].shared_buffer);
  EXPECT_TRUE(main.tensors[bias_].shared_buffer);
  EXPECT_FALSE(weights.shared_buffer);
  EXPECT_FALSE(main.tensors[input_].constant);
  const MetadataEntry* metadata = graph.FindMetadata(kCircleTrainingMetadata);
  ASSERT_NE(metadata, nullptr);
  EXPECT_EQ(metadata->size, 7u);
  EXPECT_EQ(std::memcmp(model.MetadataData(*metadata), "CTR0", 4), 0);
}

TEST_F(ModelBuilderRoundTrip, ReadingTwiceGivesEqualGraphs) {
  BuildNetwork(ModelFormat::kCircle);
  Graph first, second;
  ASSERT_TRUE(ReadGraph(bytes_.data(), bytes_.size(), &first).ok());
  ASSERT_TRUE(ReadGraph(bytes_.data(), bytes_.size(), &second).ok());
  EXPECT_TRUE(first.main() == second.main());
}

TEST_F(ModelBuilderRoundTrip, TfliteFlavourCarriesItsIdentifierAndVersion) {
  BuildNetwork(ModelFormat::kTflite);
  Model model;
  ASSERT_TRUE(Model::FromBytes(bytes_, &model).ok());
  EXPECT_EQ(model.graph().format, ModelFormat::kTflite);
  EXPECT_EQ(model.graph().version, 3u);
  EXPECT_EQ(std::memcmp(model.bytes().data() + 4, "TFL3", 4), 0);
}

TEST(ModelBuilder, OpcodesAbove127UseTheExtendedSlot) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 4});
  const int y = b.AddTensor("y", {1, 4});
  b.AddOperator(150 /* GELU */, {x}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(b.Finish(&bytes).ok());
  Graph graph;
  ASSERT_TRUE(ReadGraph(bytes.data(), bytes.size(), &graph).ok());
  EXPECT_EQ(graph.main().operators[0].opcode, 150);
  EXPECT_STREQ(OpcodeName(graph.main().operators[0].opcode), "GELU");
}

TEST(ModelBuilder, RefusesToWriteAnOutOfRangeTensorIndex) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 4});
  b.AddOperator(op::kRelu, {x}, {7});
  b.SetInputs({x});
  std::vector<uint8_t> bytes;
  Status status = b.Finish(&bytes);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("output 0 is tensor 7"), std::string::npos)
      << status.message();
  EXPECT_TRUE(bytes.empty());
}

TEST(Opcodes, DecodingCoversOldCircleNewCircleAndTflite) {
  EXPECT_EQ(DecodeOpcode(3, 0), op::kConv2D);          // old circle / old tflite: legacy byte only
  EXPECT_EQ(DecodeOpcode(3, 3), op::kConv2D);          // both slots filled
  EXPECT_EQ(DecodeOpcode(127, 150), 150);              // extended code
  EXPECT_EQ(DecodeOpcode(-5, -5), op::kGru);           // new circle, circle-only op
  EXPECT_EQ(DecodeOpcode(-2, 0), op::kInstanceNorm);   // circle 0.0: unsigned 254 read as -2
  EXPECT_EQ(DecodeOpcode(0, 9), op::kFullyConnected);  // tflite writer that leaves slot 0 empty
  EXPECT_STREQ(OpcodeName(op::kBcqGather), "BCQ_GATHER");
  EXPECT_STREQ(OpcodeName(op::kRunModel), "RUN_MODEL");
  EXPECT_EQ(OpcodeName(-1), nullptr);
  EXPECT_EQ(OpcodeName(5000), nullptr);
}

TEST(Opcodes, Uint4IsNumberedPerFormat) {
  EXPECT_EQ(ElementTypeFromFile(-1, ModelFormat::kCircle), ElementType::kUInt4);
  EXPECT_EQ(ElementTypeFromFile(20, ModelFormat::kTflite), ElementType::kUInt4);
  EXPECT_EQ(ElementTypeFromFile(-1, ModelFormat::kTflite), ElementType::kOther);
  EXPECT_EQ(ElementTypeToFile(ElementType::kUInt4, ModelFormat::kCircle), -1);
  EXPECT_EQ(ElementTypeToFile(ElementType::kUInt4, ModelFormat::kTflite), 20);
}

// Opcodes come from files and frames: every int32 value names an operator or nothing, including
// INT32_MIN, whose negation would overflow (UBSan checks this in the sanitizer build).
TEST(OpcodeName, EveryValueNamesAnOperatorOrNothing) {
  EXPECT_STREQ(OpcodeName(op::kFullyConnected), "FULLY_CONNECTED");
  EXPECT_STREQ(OpcodeName(op::kGru), "GRU");
  for (int32_t opcode : {INT32_MIN, INT32_MIN + 1, -1000000, 1000000, INT32_MAX}) {
    EXPECT_EQ(OpcodeName(opcode), nullptr) << opcode;
  }
}

// Every options table of the forward-only operators survives writing and reading, and a custom
// operator keeps its custom code. The shapes need not run: only the file is checked.
TEST(ModelBuilderOptions, ForwardOnlyOperatorOptionsReadBack) {
  std::vector<ExpectedOp> ops;
  OpOptions o;
  o.activation = Activation::kRelu6;
  ops.push_back({op::kDiv, o});
  ops.push_back({op::kL2Normalization, o});
  o = OpOptions();
  o.block_size = 3;
  ops.push_back({op::kSpaceToDepth, o});
  ops.push_back({op::kDepthToSpace, o});
  o = OpOptions();
  o.num_splits = 4;
  ops.push_back({op::kSplit, o});
  ops.push_back({op::kSplitV, o});
  o = OpOptions();
  o.values_count = 5;
  o.axis = -2;
  ops.push_back({op::kPack, o});
  ops.push_back({op::kUnpack, o});
  o = OpOptions();
  o.exclusive = true;
  o.reverse = true;
  ops.push_back({op::kCumsum, o});
  o = OpOptions();
  o.approximate = true;
  ops.push_back({op::kGelu, o});
  o = OpOptions();
  o.mirror_symmetric = true;
  ops.push_back({op::kMirrorPad, o});
  o = OpOptions();
  o.half_pixel_centers = true;
  ops.push_back({op::kResizeBilinear, o});
  o = OpOptions();
  o.align_corners = true;
  ops.push_back({op::kResizeNearestNeighbor, o});
  o = OpOptions();
  o.padding = Padding::kValid;
  o.stride_w = 2;
  o.stride_h = 3;
  o.activation = Activation::kRelu;
  ops.push_back({op::kTransposeConv, o});
  o = OpOptions();
  o.keep_dims = true;
  ops.push_back({op::kReduceMax, o});
  o = OpOptions();
  o.activation = Activation::kTanh;
  o.cell_clip = 3.5f;
  o.proj_clip = 0.25f;
  o.time_major = true;
  o.asymmetric_quantize_inputs = true;
  o.diagonal_recurrent_tensors = true;
  ops.push_back({op::kUnidirectionalSequenceLstm, o});

  ModelBuilder b;
  const int x = b.AddTensor("x", {2});
  int previous = x;
  for (size_t k = 0; k < ops.size(); ++k) {
    const int y = b.AddTensor("y" + std::to_string(k), {2});
    b.AddOperator(ops[k].opcode, {previous}, {y}, ops[k].options);
    previous = y;
  }
  const int custom = b.AddTensor("custom", {2});
  b.AddCustomOperator("BroadcastTo", {previous}, {custom});
  b.SetInputs({x});
  b.SetOutputs({custom});
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(b.Finish(&bytes).ok());
  Model model;
  const Status status = Model::FromBytes(bytes, &model);
  ASSERT_TRUE(status.ok()) << status.message();
  const Subgraph& main = model.graph().main();
  ASSERT_EQ(main.operators.size(), ops.size() + 1);
  for (size_t k = 0; k < ops.size(); ++k) {
    SCOPED_TRACE(OpcodeName(ops[k].opcode));
    EXPECT_EQ(main.operators[k].opcode, ops[k].opcode);
    EXPECT_EQ(main.operators[k].options_type, ExpectedOptionsType(ops[k].opcode));
    EXPECT_EQ(main.operators[k].options, ops[k].options);
  }
  EXPECT_EQ(main.operators.back().opcode, op::kCustom);
  EXPECT_EQ(main.operators.back().custom_code, "BroadcastTo");
}

// The state of a converted recurrent op: a variable tensor without bytes.
TEST(ModelBuilderTensors, AVariableReadsBackAsAVariableWithoutBytes) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 2});
  const int state = b.AddVariable("state", {1, 2});
  const int y = b.AddTensor("y", {1, 2});
  b.AddOperator(op::kAdd, {x, state}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(b.Finish(&bytes).ok());
  Model model;
  ASSERT_TRUE(Model::FromBytes(bytes, &model).ok());
  const Tensor& read = model.graph().main().tensors[static_cast<size_t>(state)];
  EXPECT_TRUE(read.is_variable);
  EXPECT_FALSE(read.constant);
  EXPECT_EQ(read.bytes, 8u);
  EXPECT_FALSE(model.graph().main().tensors[static_cast<size_t>(x)].is_variable);
}

}  // namespace
}  // namespace trainscope
