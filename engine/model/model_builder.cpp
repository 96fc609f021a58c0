// SPDX-License-Identifier: Apache-2.0
#include "engine/model/model_builder.h"

#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "engine/model/circle_subset_generated.h"
#include "engine/model/model.h"

namespace trainscope {
namespace {

namespace fb = trainscope::circle;
using Builder = flatbuffers::FlatBufferBuilder;
using OptionsOffset = flatbuffers::Offset<void>;

int8_t Raw(Activation a) {
  return static_cast<int8_t>(a);
}
int8_t Raw(Padding p) {
  return static_cast<int8_t>(p);
}

// Writes the options table `opcode` reads; returns the union type (NONE for ops without one).
fb::BuiltinOptions WriteOptions(Builder& b, int32_t opcode, const OpOptions& o,
                                OptionsOffset* offset) {
  switch (opcode) {
    case op::kConv2D:
      *offset = fb::CreateConv2DOptions(b, Raw(o.padding), o.stride_w, o.stride_h,
                                        Raw(o.activation), o.dilation_w, o.dilation_h)
                    .Union();
      return fb::BuiltinOptions::Conv2DOptions;
    case op::kDepthwiseConv2D:
      *offset = fb::CreateDepthwiseConv2DOptions(b, Raw(o.padding), o.stride_w, o.stride_h,
                                                 o.depth_multiplier, Raw(o.activation),
                                                 o.dilation_w, o.dilation_h)
                    .Union();
      return fb::BuiltinOptions::DepthwiseConv2DOptions;
    case op::kMaxPool2D:
    case op::kAveragePool2D:
      *offset = fb::CreatePool2DOptions(b, Raw(o.padding), o.stride_w, o.stride_h, o.filter_w,
                                        o.filter_h, Raw(o.activation))
                    .Union();
      return fb::BuiltinOptions::Pool2DOptions;
    case op::kFullyConnected:
      *offset =
          fb::CreateFullyConnectedOptions(b, Raw(o.activation), o.weights_format, o.keep_num_dims)
              .Union();
      return fb::BuiltinOptions::FullyConnectedOptions;
    case op::kSoftmax:
      *offset = fb::CreateSoftmaxOptions(b, o.beta).Union();
      return fb::BuiltinOptions::SoftmaxOptions;
    case op::kConcatenation:
      *offset = fb::CreateConcatenationOptions(b, o.axis, Raw(o.activation)).Union();
      return fb::BuiltinOptions::ConcatenationOptions;
    case op::kAdd:
      *offset = fb::CreateAddOptions(b, Raw(o.activation)).Union();
      return fb::BuiltinOptions::AddOptions;
    case op::kSub:
      *offset = fb::CreateSubOptions(b, Raw(o.activation)).Union();
      return fb::BuiltinOptions::SubOptions;
    case op::kMul:
      *offset = fb::CreateMulOptions(b, Raw(o.activation)).Union();
      return fb::BuiltinOptions::MulOptions;
    case op::kReshape:
      *offset = fb::CreateReshapeOptions(b, o.new_shape.empty() ? 0 : b.CreateVector(o.new_shape))
                    .Union();
      return fb::BuiltinOptions::ReshapeOptions;
    case op::kPad:
      *offset = fb::CreatePadOptions(b).Union();
      return fb::BuiltinOptions::PadOptions;
    case op::kGather:
      *offset = fb::CreateGatherOptions(b, o.axis, o.batch_dims).Union();
      return fb::BuiltinOptions::GatherOptions;
    case op::kTranspose:
      *offset = fb::CreateTransposeOptions(b).Union();
      return fb::BuiltinOptions::TransposeOptions;
    case op::kMean:
      *offset = fb::CreateReducerOptions(b, o.keep_dims).Union();
      return fb::BuiltinOptions::ReducerOptions;
    case op::kSqueeze:
      *offset =
          fb::CreateSqueezeOptions(b, o.squeeze_dims.empty() ? 0 : b.CreateVector(o.squeeze_dims))
              .Union();
      return fb::BuiltinOptions::SqueezeOptions;
    case op::kStridedSlice:
      *offset = fb::CreateStridedSliceOptions(b, o.begin_mask, o.end_mask, o.ellipsis_mask,
                                              o.new_axis_mask, o.shrink_axis_mask, o.offset)
                    .Union();
      return fb::BuiltinOptions::StridedSliceOptions;
    case op::kExpandDims:
      *offset = fb::CreateExpandDimsOptions(b).Union();
      return fb::BuiltinOptions::ExpandDimsOptions;
    case op::kLeakyRelu:
      *offset = fb::CreateLeakyReluOptions(b, o.alpha).Union();
      return fb::BuiltinOptions::LeakyReluOptions;
    case op::kL2Normalization:
      *offset = fb::CreateL2NormOptions(b, Raw(o.activation)).Union();
      return fb::BuiltinOptions::L2NormOptions;
    case op::kDiv:
      *offset = fb::CreateDivOptions(b, Raw(o.activation)).Union();
      return fb::BuiltinOptions::DivOptions;
    case op::kSum:
    case op::kReduceMax:
    case op::kReduceMin:
    case op::kReduceProd:
      *offset = fb::CreateReducerOptions(b, o.keep_dims).Union();
      return fb::BuiltinOptions::ReducerOptions;
    case op::kSpaceToDepth:
      *offset = fb::CreateSpaceToDepthOptions(b, o.block_size).Union();
      return fb::BuiltinOptions::SpaceToDepthOptions;
    case op::kDepthToSpace:
      *offset = fb::CreateDepthToSpaceOptions(b, o.block_size).Union();
      return fb::BuiltinOptions::DepthToSpaceOptions;
    case op::kSplit:
      *offset = fb::CreateSplitOptions(b, o.num_splits).Union();
      return fb::BuiltinOptions::SplitOptions;
    case op::kSplitV:
      *offset = fb::CreateSplitVOptions(b, o.num_splits).Union();
      return fb::BuiltinOptions::SplitVOptions;
    case op::kPack:
      *offset = fb::CreatePackOptions(b, o.values_count, o.axis).Union();
      return fb::BuiltinOptions::PackOptions;
    case op::kUnpack:
      *offset = fb::CreateUnpackOptions(b, o.values_count, o.axis).Union();
      return fb::BuiltinOptions::UnpackOptions;
    case op::kCumsum:
      *offset = fb::CreateCumsumOptions(b, o.exclusive, o.reverse).Union();
      return fb::BuiltinOptions::CumsumOptions;
    case op::kMirrorPad:
      *offset = fb::CreateMirrorPadOptions(b, o.mirror_symmetric ? 1 : 0).Union();
      return fb::BuiltinOptions::MirrorPadOptions;
    case op::kResizeBilinear:
      *offset = fb::CreateResizeBilinearOptions(b, o.align_corners, o.half_pixel_centers).Union();
      return fb::BuiltinOptions::ResizeBilinearOptions;
    case op::kResizeNearestNeighbor:
      *offset =
          fb::CreateResizeNearestNeighborOptions(b, o.align_corners, o.half_pixel_centers).Union();
      return fb::BuiltinOptions::ResizeNearestNeighborOptions;
    case op::kTransposeConv:
      *offset = fb::CreateTransposeConvOptions(b, Raw(o.padding), o.stride_w, o.stride_h,
                                               Raw(o.activation))
                    .Union();
      return fb::BuiltinOptions::TransposeConvOptions;
    case op::kGelu:
      *offset = fb::CreateGeluOptions(b, o.approximate).Union();
      return fb::BuiltinOptions::GeluOptions;
    case op::kUnidirectionalSequenceLstm:
      *offset = fb::CreateUnidirectionalSequenceLSTMOptions(
                    b, Raw(o.activation), o.cell_clip, o.proj_clip, o.time_major,
                    o.asymmetric_quantize_inputs, o.diagonal_recurrent_tensors)
                    .Union();
      return fb::BuiltinOptions::UnidirectionalSequenceLSTMOptions;
    default:
      *offset = 0;
      return fb::BuiltinOptions::NONE;
  }
}

}  // namespace

uint32_t ModelBuilder::AddBuffer(std::vector<uint8_t> bytes) {
  buffers_.push_back(std::move(bytes));
  return static_cast<uint32_t>(buffers_.size() - 1);
}

int ModelBuilder::AddTensor(const std::string& name, std::vector<int32_t> shape, ElementType type) {
  tensors_.push_back({name, std::move(shape), type, 0});
  return static_cast<int>(tensors_.size() - 1);
}

int ModelBuilder::AddVariable(const std::string& name, std::vector<int32_t> shape) {
  tensors_.push_back({name, std::move(shape), ElementType::kFloat32, 0, true});
  return static_cast<int>(tensors_.size() - 1);
}

int ModelBuilder::AddConstantBytes(const std::string& name, std::vector<int32_t> shape,
                                   ElementType type, std::vector<uint8_t> bytes) {
  const uint32_t buffer = AddBuffer(std::move(bytes));
  tensors_.push_back({name, std::move(shape), type, buffer});
  return static_cast<int>(tensors_.size() - 1);
}

int ModelBuilder::AddConstant(const std::string& name, std::vector<int32_t> shape,
                              const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return AddConstantBytes(name, std::move(shape), ElementType::kFloat32, std::move(bytes));
}

int ModelBuilder::AddConstantInt32(const std::string& name, std::vector<int32_t> shape,
                                   const std::vector<int32_t>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(int32_t));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return AddConstantBytes(name, std::move(shape), ElementType::kInt32, std::move(bytes));
}

int ModelBuilder::AddConstantSharingBuffer(const std::string& name, int tensor) {
  const PendingTensor& source = tensors_[static_cast<size_t>(tensor)];
  tensors_.push_back({name, source.shape, source.type, source.buffer});
  return static_cast<int>(tensors_.size() - 1);
}

int ModelBuilder::AddOperator(int32_t opcode, std::vector<int32_t> inputs,
                              std::vector<int32_t> outputs, const OpOptions& options) {
  operators_.push_back({opcode, std::move(inputs), std::move(outputs), options, {}});
  return static_cast<int>(operators_.size() - 1);
}

int ModelBuilder::AddCustomOperator(const std::string& custom_code, std::vector<int32_t> inputs,
                                    std::vector<int32_t> outputs) {
  operators_.push_back({op::kCustom, std::move(inputs), std::move(outputs), {}, custom_code});
  return static_cast<int>(operators_.size() - 1);
}

void ModelBuilder::AddMetadata(const std::string& name, std::vector<uint8_t> bytes) {
  metadata_.emplace_back(name, AddBuffer(std::move(bytes)));
}

Status ModelBuilder::Finish(std::vector<uint8_t>* out) const {
  Builder b(1024);

  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
  std::map<std::pair<int32_t, std::string>, uint32_t> code_index;
  for (const PendingOperator& o : operators_) {
    const auto key = std::make_pair(o.opcode, o.custom_code);
    if (code_index.count(key) != 0) continue;
    code_index[key] = static_cast<uint32_t>(codes.size());
    // Filled the way circle writers do: both slots, legacy byte saturated at 127.
    const auto legacy = static_cast<int8_t>(o.opcode < 127 ? o.opcode : 127);
    codes.push_back(fb::CreateOperatorCode(
        b, legacy, o.custom_code.empty() ? 0 : b.CreateString(o.custom_code), 1, o.opcode));
  }

  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const PendingTensor& t : tensors_) {
    tensors.push_back(fb::CreateTensor(b, b.CreateVector(t.shape),
                                       ElementTypeToFile(t.type, format_), t.buffer,
                                       b.CreateString(t.name), 0, t.is_variable));
  }

  std::vector<flatbuffers::Offset<fb::Operator>> operators;
  for (const PendingOperator& o : operators_) {
    OptionsOffset options;
    const fb::BuiltinOptions type = WriteOptions(b, o.opcode, o.options, &options);
    operators.push_back(fb::CreateOperator(b, code_index[std::make_pair(o.opcode, o.custom_code)],
                                           b.CreateVector(o.inputs), b.CreateVector(o.outputs),
                                           type, options));
  }

  auto subgraph = fb::CreateSubGraph(b, b.CreateVector(tensors), b.CreateVector(inputs_),
                                     b.CreateVector(outputs_), b.CreateVector(operators),
                                     b.CreateString(subgraph_name_));

  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (const std::vector<uint8_t>& bytes : buffers_) {
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> data = 0;
    if (!bytes.empty()) {
      b.ForceVectorAlignment(bytes.size(), sizeof(uint8_t), 16);
      data = b.CreateVector(bytes);
    }
    buffers.push_back(fb::CreateBuffer(b, data));
  }

  std::vector<flatbuffers::Offset<fb::Metadata>> metadata;
  for (const auto& [name, buffer] : metadata_) {
    metadata.push_back(fb::CreateMetadata(b, b.CreateString(name), buffer));
  }

  const uint32_t version = format_ == ModelFormat::kTflite ? 3 : 0;
  auto model = fb::CreateModel(b, version, b.CreateVector(codes), b.CreateVector(&subgraph, 1),
                               b.CreateString(description_), b.CreateVector(buffers), 0,
                               metadata.empty() ? 0 : b.CreateVector(metadata));
  b.Finish(model, format_ == ModelFormat::kTflite ? "TFL3" : "CIR0");

  std::vector<uint8_t> bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  Graph check;
  Status status = ReadGraph(bytes.data(), bytes.size(), &check);
  if (!status.ok()) return status.Prepend("ModelBuilder wrote an invalid model");
  *out = std::move(bytes);
  return Status::Ok();
}

}  // namespace trainscope
