// SPDX-License-Identifier: Apache-2.0
//
// Verification and decoding of circle/TFLite model bytes into a Graph. The flatbuffers verifier
// proves that every offset stays inside the file; the checks here prove that the model makes
// sense (indices in range, sizes consistent) so that no later stage has to re-check.
#include <cstring>
#include <limits>
#include <map>

#include "engine/model/circle_subset_generated.h"
#include "engine/model/model.h"

namespace trainscope {
namespace {

namespace fb = trainscope::circle;

constexpr flatbuffers::voffset_t kSlotModelExternalBufferGroups = 20;  // TFLite 3d only
constexpr flatbuffers::voffset_t kSlotModelExternalBuffers = 22;       // TFLite 3d only
constexpr flatbuffers::voffset_t kSlotTensorSlot10 = 24;  // circle: compression, TFLite: external

// Generated tables derive privately from flatbuffers::Table; slots that the schema does not
// declare are read through the table view.
const flatbuffers::Table* AsTable(const void* generated) {
  return reinterpret_cast<const flatbuffers::Table*>(generated);
}

std::string TensorLabel(size_t subgraph, size_t index, const fb::Tensor* tensor) {
  std::string label = "subgraph " + std::to_string(subgraph) + ", tensor " + std::to_string(index);
  if (tensor != nullptr && tensor->name() != nullptr) {
    label += " '" + tensor->name()->str() + "'";
  }
  return label;
}

std::string OperatorLabel(size_t subgraph, size_t index, int32_t opcode) {
  const char* name = OpcodeName(opcode);
  return "subgraph " + std::to_string(subgraph) + ", operator " + std::to_string(index) + " (" +
         (name != nullptr ? name : "opcode " + std::to_string(opcode)) + ")";
}

struct BufferSpan {
  size_t offset = 0;
  size_t size = 0;
};

Status ReadBuffers(const fb::Model* model, const uint8_t* base, size_t file_size,
                   std::vector<BufferSpan>* spans) {
  const auto* buffers = model->buffers();
  if (buffers == nullptr) return Status::Ok();
  spans->resize(buffers->size());
  for (flatbuffers::uoffset_t i = 0; i < buffers->size(); ++i) {
    const fb::Buffer* buffer = buffers->Get(i);
    BufferSpan& span = (*spans)[i];
    if (buffer == nullptr) continue;
    if (buffer->offset() > 1) {
      const uint64_t offset = buffer->offset();
      const uint64_t size = buffer->size();
      if (offset > file_size || size > file_size - offset) {
        return Status::Error(StatusCode::kInvalidModel,
                             "buffer %u: external data at byte offset %llu with size %llu lies "
                             "outside the %zu-byte file",
                             static_cast<unsigned>(i), static_cast<unsigned long long>(offset),
                             static_cast<unsigned long long>(size), file_size);
      }
      span.offset = static_cast<size_t>(offset);
      span.size = static_cast<size_t>(size);
    } else if (buffer->data() != nullptr) {
      span.offset = static_cast<size_t>(buffer->data()->data() - base);
      span.size = buffer->data()->size();
    }
  }
  return Status::Ok();
}

Status ReadOpcodes(const fb::Model* model, std::vector<int32_t>* opcodes,
                   std::vector<std::string>* custom_codes, std::vector<int32_t>* versions) {
  const auto* codes = model->operator_codes();
  if (codes == nullptr) return Status::Ok();
  for (flatbuffers::uoffset_t i = 0; i < codes->size(); ++i) {
    const fb::OperatorCode* code = codes->Get(i);
    const int32_t opcode = DecodeOpcode(code->deprecated_builtin_code(), code->builtin_code());
    if (opcode == -1) {
      return Status::Error(StatusCode::kInvalidModel,
                           "operator code %u: code -1 does not name any operator",
                           static_cast<unsigned>(i));
    }
    opcodes->push_back(opcode);
    custom_codes->push_back(code->custom_code() != nullptr ? code->custom_code()->str() : "");
    versions->push_back(code->version());
  }
  return Status::Ok();
}

Status ComputeTensorBytes(const std::string& label, const std::vector<int32_t>& shape,
                          ElementType type, size_t* bytes) {
  constexpr uint64_t kMaxBytes = uint64_t{1} << 40;
  uint64_t elements = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return Status::Error(StatusCode::kInvalidModel, "%s: dimension %zu of the shape is %d",
                           label.c_str(), d, static_cast<int>(shape[d]));
    }
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(shape[d]), &elements) ||
        elements > kMaxBytes) {
      return Status::Error(StatusCode::kInvalidModel,
                           "%s: the shape's element count overflows (dimension %zu)", label.c_str(),
                           d);
    }
  }
  const uint64_t bits = ElementBits(type);
  *bytes = static_cast<size_t>((elements * bits + 7) / 8);
  return Status::Ok();
}

Status ReadActivation(int8_t raw, const std::string& label, Activation* out) {
  if (raw < 0 || raw > static_cast<int8_t>(Activation::kSignBit)) {
    return Status::Error(StatusCode::kInvalidModel, "%s: fused activation %d is not defined",
                         label.c_str(), raw);
  }
  *out = static_cast<Activation>(raw);
  return Status::Ok();
}

Status ReadPadding(int8_t raw, const std::string& label, Padding* out) {
  if (raw != 0 && raw != 1) {
    return Status::Error(StatusCode::kInvalidModel, "%s: padding %d is neither SAME nor VALID",
                         label.c_str(), raw);
  }
  *out = static_cast<Padding>(raw);
  return Status::Ok();
}

std::vector<int32_t> ToVector(const flatbuffers::Vector<int32_t>* values) {
  return values != nullptr ? std::vector<int32_t>(values->begin(), values->end())
                           : std::vector<int32_t>();
}

Status ReadOptions(const fb::Operator* op, const std::string& label, OpOptions* options) {
  OpOptions& o = *options;
  switch (op->builtin_options_type()) {
    case fb::BuiltinOptions::Conv2DOptions: {
      const auto* t = op->builtin_options_as_Conv2DOptions();
      TS_RETURN_IF_ERROR(ReadPadding(t->padding(), label, &o.padding));
      TS_RETURN_IF_ERROR(ReadActivation(t->fused_activation_function(), label, &o.activation));
      o.stride_w = t->stride_w();
      o.stride_h = t->stride_h();
      o.dilation_w = t->dilation_w_factor();
      o.dilation_h = t->dilation_h_factor();
      break;
    }
    case fb::BuiltinOptions::DepthwiseConv2DOptions: {
      const auto* t = op->builtin_options_as_DepthwiseConv2DOptions();
      TS_RETURN_IF_ERROR(ReadPadding(t->padding(), label, &o.padding));
      TS_RETURN_IF_ERROR(ReadActivation(t->fused_activation_function(), label, &o.activation));
      o.stride_w = t->stride_w();
      o.stride_h = t->stride_h();
      o.depth_multiplier = t->depth_multiplier();
      o.dilation_w = t->dilation_w_factor();
      o.dilation_h = t->dilation_h_factor();
      break;
    }
    case fb::BuiltinOptions::Pool2DOptions: {
      const auto* t = op->builtin_options_as_Pool2DOptions();
      TS_RETURN_IF_ERROR(ReadPadding(t->padding(), label, &o.padding));
      TS_RETURN_IF_ERROR(ReadActivation(t->fused_activation_function(), label, &o.activation));
      o.stride_w = t->stride_w();
      o.stride_h = t->stride_h();
      o.filter_w = t->filter_width();
      o.filter_h = t->filter_height();
      break;
    }
    case fb::BuiltinOptions::FullyConnectedOptions: {
      const auto* t = op->builtin_options_as_FullyConnectedOptions();
      TS_RETURN_IF_ERROR(ReadActivation(t->fused_activation_function(), label, &o.activation));
      o.weights_format = t->weights_format();
      o.keep_num_dims = t->keep_num_dims();
      break;
    }
    case fb::BuiltinOptions::SoftmaxOptions:
      o.beta = op->builtin_options_as_SoftmaxOptions()->beta();
      break;
    case fb::BuiltinOptions::ConcatenationOptions: {
      const auto* t = op->builtin_options_as_ConcatenationOptions();
      TS_RETURN_IF_ERROR(ReadActivation(t->fused_activation_function(), label, &o.activation));
      o.axis = t->axis();
      break;
    }
    case fb::BuiltinOptions::AddOptions:
      TS_RETURN_IF_ERROR(ReadActivation(
          op->builtin_options_as_AddOptions()->fused_activation_function(), label, &o.activation));
      break;
    case fb::BuiltinOptions::SubOptions:
      TS_RETURN_IF_ERROR(ReadActivation(
          op->builtin_options_as_SubOptions()->fused_activation_function(), label, &o.activation));
      break;
    case fb::BuiltinOptions::MulOptions:
      TS_RETURN_IF_ERROR(ReadActivation(
          op->builtin_options_as_MulOptions()->fused_activation_function(), label, &o.activation));
      break;
    case fb::BuiltinOptions::ReshapeOptions:
      o.new_shape = ToVector(op->builtin_options_as_ReshapeOptions()->new_shape());
      break;
    case fb::BuiltinOptions::GatherOptions: {
      const auto* t = op->builtin_options_as_GatherOptions();
      o.axis = t->axis();
      o.batch_dims = t->batch_dims();
      break;
    }
    case fb::BuiltinOptions::ReducerOptions:
      o.keep_dims = op->builtin_options_as_ReducerOptions()->keep_dims();
      break;
    case fb::BuiltinOptions::SqueezeOptions:
      o.squeeze_dims = ToVector(op->builtin_options_as_SqueezeOptions()->squeeze_dims());
      break;
    case fb::BuiltinOptions::StridedSliceOptions: {
      const auto* t = op->builtin_options_as_StridedSliceOptions();
      o.begin_mask = t->begin_mask();
      o.end_mask = t->end_mask();
      o.ellipsis_mask = t->ellipsis_mask();
      o.new_axis_mask = t->new_axis_mask();
      o.shrink_axis_mask = t->shrink_axis_mask();
      o.offset = t->offset();
      break;
    }
    case fb::BuiltinOptions::LeakyReluOptions:
      o.alpha = op->builtin_options_as_LeakyReluOptions()->alpha();
      break;
    case fb::BuiltinOptions::L2NormOptions:
      TS_RETURN_IF_ERROR(
          ReadActivation(op->builtin_options_as_L2NormOptions()->fused_activation_function(), label,
                         &o.activation));
      break;
    case fb::BuiltinOptions::DivOptions:
      TS_RETURN_IF_ERROR(ReadActivation(
          op->builtin_options_as_DivOptions()->fused_activation_function(), label, &o.activation));
      break;
    case fb::BuiltinOptions::SpaceToDepthOptions:
      o.block_size = op->builtin_options_as_SpaceToDepthOptions()->block_size();
      break;
    case fb::BuiltinOptions::DepthToSpaceOptions:
      o.block_size = op->builtin_options_as_DepthToSpaceOptions()->block_size();
      break;
    case fb::BuiltinOptions::SplitOptions:
      o.num_splits = op->builtin_options_as_SplitOptions()->num_splits();
      break;
    case fb::BuiltinOptions::SplitVOptions:
      o.num_splits = op->builtin_options_as_SplitVOptions()->num_splits();
      break;
    case fb::BuiltinOptions::PackOptions: {
      const auto* t = op->builtin_options_as_PackOptions();
      o.values_count = t->values_count();
      o.axis = t->axis();
      break;
    }
    case fb::BuiltinOptions::UnpackOptions: {
      const auto* t = op->builtin_options_as_UnpackOptions();
      o.values_count = t->num();
      o.axis = t->axis();
      break;
    }
    case fb::BuiltinOptions::CumsumOptions: {
      const auto* t = op->builtin_options_as_CumsumOptions();
      o.exclusive = t->exclusive();
      o.reverse = t->reverse();
      break;
    }
    case fb::BuiltinOptions::MirrorPadOptions: {
      const int8_t mode = op->builtin_options_as_MirrorPadOptions()->mode();
      if (mode != 0 && mode != 1) {
        return Status::Error(StatusCode::kInvalidModel,
                             "%s: mirror pad mode %d is neither REFLECT nor SYMMETRIC",
                             label.c_str(), mode);
      }
      o.mirror_symmetric = mode == 1;
      break;
    }
    case fb::BuiltinOptions::ResizeBilinearOptions: {
      const auto* t = op->builtin_options_as_ResizeBilinearOptions();
      o.align_corners = t->align_corners();
      o.half_pixel_centers = t->half_pixel_centers();
      break;
    }
    case fb::BuiltinOptions::ResizeNearestNeighborOptions: {
      const auto* t = op->builtin_options_as_ResizeNearestNeighborOptions();
      o.align_corners = t->align_corners();
      o.half_pixel_centers = t->half_pixel_centers();
      break;
    }
    case fb::BuiltinOptions::TransposeConvOptions: {
      const auto* t = op->builtin_options_as_TransposeConvOptions();
      TS_RETURN_IF_ERROR(ReadPadding(t->padding(), label, &o.padding));
      TS_RETURN_IF_ERROR(ReadActivation(t->fused_activation_function(), label, &o.activation));
      o.stride_w = t->stride_w();
      o.stride_h = t->stride_h();
      break;
    }
    case fb::BuiltinOptions::GeluOptions:
      o.approximate = op->builtin_options_as_GeluOptions()->approximate();
      break;
    case fb::BuiltinOptions::UnidirectionalSequenceLSTMOptions: {
      const auto* t = op->builtin_options_as_UnidirectionalSequenceLSTMOptions();
      TS_RETURN_IF_ERROR(ReadActivation(t->fused_activation_function(), label, &o.activation));
      o.cell_clip = t->cell_clip();
      o.proj_clip = t->proj_clip();
      o.time_major = t->time_major();
      o.asymmetric_quantize_inputs = t->asymmetric_quantize_inputs();
      o.diagonal_recurrent_tensors = t->diagonal_recurrent_tensors();
      break;
    }
    default:
      break;  // PAD, TRANSPOSE, EXPAND_DIMS (empty tables) and options this engine does not use
  }
  return Status::Ok();
}

Status CheckTensorIndex(int32_t index, size_t tensor_count, bool allow_absent,
                        const std::string& where) {
  if (allow_absent && index == -1) return Status::Ok();
  if (index < 0 || static_cast<size_t>(index) >= tensor_count) {
    return Status::Error(StatusCode::kInvalidModel,
                         "%s is tensor %d, out of range (the subgraph has %zu tensors)",
                         where.c_str(), static_cast<int>(index), tensor_count);
  }
  return Status::Ok();
}

Status ReadTensor(const fb::Tensor* t, size_t subgraph_index, size_t index, ModelFormat format,
                  const std::vector<BufferSpan>& buffers, const flatbuffers::Verifier& verifier,
                  Tensor* out) {
  const std::string label = TensorLabel(subgraph_index, index, t);
  out->name = t->name() != nullptr ? t->name()->str() : std::string();
  out->type = ElementTypeFromFile(t->type(), format);
  out->shape = ToVector(t->shape());
  out->shape_signature = ToVector(t->shape_signature());
  out->is_variable = t->is_variable();
  out->quantized = t->quantization() != nullptr && t->quantization()->scale() != nullptr &&
                   t->quantization()->scale()->size() > 0;
  TS_RETURN_IF_ERROR(ComputeTensorBytes(label, out->shape, out->type, &out->bytes));

  // Slot 10 means different things in the two formats; both meanings are unsupported when set.
  if (format == ModelFormat::kCircle) {
    if (!AsTable(t)->VerifyField<int8_t>(verifier, kSlotTensorSlot10, 1)) {
      return Status::Error(StatusCode::kInvalidModel, "%s: compression_type field is malformed",
                           label.c_str());
    }
    const int8_t compression = AsTable(t)->GetField<int8_t>(kSlotTensorSlot10, 0);
    if (compression != 0) {
      return Status::Error(StatusCode::kUnsupported,
                           "%s: weights are compressed (compression_type %d), which TrainScope "
                           "does not decode",
                           label.c_str(), compression);
    }
  } else {
    if (!AsTable(t)->VerifyField<uint32_t>(verifier, kSlotTensorSlot10, 4)) {
      return Status::Error(StatusCode::kInvalidModel, "%s: external_buffer field is malformed",
                           label.c_str());
    }
    if (AsTable(t)->GetField<uint32_t>(kSlotTensorSlot10, 0) != 0) {
      return Status::Error(StatusCode::kUnsupported,
                           "%s: data lives in a TFLite external buffer, which TrainScope does not "
                           "read",
                           label.c_str());
    }
  }

  out->buffer = t->buffer();
  if (out->buffer >= buffers.size()) {
    return Status::Error(StatusCode::kInvalidModel,
                         "%s: buffer index %u is out of range (the model has %zu buffers)",
                         label.c_str(), static_cast<unsigned>(out->buffer), buffers.size());
  }
  const BufferSpan& span = buffers[out->buffer];
  out->constant = span.size > 0;
  out->data_offset = span.offset;
  if (!out->constant) return Status::Ok();
  if (ElementBits(out->type) == 0) {
    out->bytes = span.size;  // strings and opaque types carry their own layout
  } else if (span.size != out->bytes) {
    std::string shape = "[";
    for (size_t d = 0; d < out->shape.size(); ++d) {
      shape += (d ? "," : "") + std::to_string(out->shape[d]);
    }
    shape += "]";
    return Status::Error(StatusCode::kInvalidModel,
                         "%s: buffer %u holds %zu bytes, but shape %s of %s needs %zu",
                         label.c_str(), static_cast<unsigned>(out->buffer), span.size,
                         shape.c_str(), ElementTypeName(out->type), out->bytes);
  }
  return Status::Ok();
}

Status ReadSubgraph(const fb::SubGraph* sg, size_t s, ModelFormat format,
                    const std::vector<BufferSpan>& buffers, const std::vector<int32_t>& opcodes,
                    const std::vector<std::string>& custom_codes,
                    const std::vector<int32_t>& versions, const flatbuffers::Verifier& verifier,
                    Subgraph* out) {
  out->name = sg->name() != nullptr ? sg->name()->str() : std::string();
  if (const auto* tensors = sg->tensors(); tensors != nullptr) {
    out->tensors.resize(tensors->size());
    for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i) {
      TS_RETURN_IF_ERROR(
          ReadTensor(tensors->Get(i), s, i, format, buffers, verifier, &out->tensors[i]));
    }
  }
  const size_t tensor_count = out->tensors.size();
  out->inputs = ToVector(sg->inputs());
  out->outputs = ToVector(sg->outputs());
  const std::string where = "subgraph " + std::to_string(s);
  for (size_t i = 0; i < out->inputs.size(); ++i) {
    TS_RETURN_IF_ERROR(CheckTensorIndex(out->inputs[i], tensor_count, false,
                                        where + ": graph input " + std::to_string(i)));
  }
  for (size_t i = 0; i < out->outputs.size(); ++i) {
    TS_RETURN_IF_ERROR(CheckTensorIndex(out->outputs[i], tensor_count, false,
                                        where + ": graph output " + std::to_string(i)));
  }

  const auto* operators = sg->operators();
  if (operators == nullptr) return Status::Ok();
  out->operators.resize(operators->size());
  for (flatbuffers::uoffset_t k = 0; k < operators->size(); ++k) {
    const fb::Operator* op = operators->Get(k);
    Operator& o = out->operators[k];
    if (op->opcode_index() >= opcodes.size()) {
      return Status::Error(StatusCode::kInvalidModel,
                           "subgraph %zu, operator %u: opcode index %u is out of range (the "
                           "model has %zu operator codes)",
                           s, static_cast<unsigned>(k), static_cast<unsigned>(op->opcode_index()),
                           opcodes.size());
    }
    o.opcode = opcodes[op->opcode_index()];
    o.custom_code = custom_codes[op->opcode_index()];
    o.version = versions[op->opcode_index()];
    const std::string label = OperatorLabel(s, k, o.opcode);
    o.inputs = ToVector(op->inputs());
    o.outputs = ToVector(op->outputs());
    for (size_t i = 0; i < o.inputs.size(); ++i) {
      TS_RETURN_IF_ERROR(CheckTensorIndex(o.inputs[i], tensor_count, true,
                                          label + ": input " + std::to_string(i)));
    }
    for (size_t i = 0; i < o.outputs.size(); ++i) {
      TS_RETURN_IF_ERROR(CheckTensorIndex(o.outputs[i], tensor_count, false,
                                          label + ": output " + std::to_string(i)));
    }
    o.options_type = static_cast<uint8_t>(op->builtin_options_type());
    const uint8_t expected = ExpectedOptionsType(o.opcode);
    if (o.options_type != 0 && expected != 0 && o.options_type != expected) {
      return Status::Error(StatusCode::kInvalidModel,
                           "%s: builtin options are %s (union type %u), expected %s", label.c_str(),
                           OptionsTypeName(o.options_type), o.options_type,
                           OptionsTypeName(expected));
    }
    if (o.options_type != 0 && op->builtin_options() == nullptr) {
      return Status::Error(StatusCode::kInvalidModel,
                           "%s: options type %s is set but the options table is missing",
                           label.c_str(), OptionsTypeName(o.options_type));
    }
    TS_RETURN_IF_ERROR(ReadOptions(op, label, &o.options));
  }
  return Status::Ok();
}

void MarkSharedBuffers(Graph* graph) {
  std::map<uint32_t, int> users;
  for (const Subgraph& sg : graph->subgraphs) {
    for (const Tensor& t : sg.tensors) {
      if (t.constant) ++users[t.buffer];
    }
  }
  for (Subgraph& sg : graph->subgraphs) {
    for (Tensor& t : sg.tensors) t.shared_buffer = t.constant && users[t.buffer] > 1;
  }
}

}  // namespace

Status ReadGraph(const uint8_t* data, size_t size, Graph* graph) {
  if (size < 8) {
    return Status::Error(StatusCode::kInvalidModel,
                         "file is %zu bytes; a model is a flatbuffer of at least 8 bytes", size);
  }
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return Status::Error(StatusCode::kUnsupported,
                         "file is %zu bytes; models over 2 GiB are not supported", size);
  }
  Graph result;
  if (std::memcmp(data + 4, "CIR0", 4) == 0) {
    result.format = ModelFormat::kCircle;
  } else if (std::memcmp(data + 4, "TFL3", 4) == 0) {
    result.format = ModelFormat::kTflite;
  } else {
    char shown[4 * 4 + 1] = {};
    for (int i = 0; i < 4; ++i) {
      const uint8_t c = data[4 + i];
      std::snprintf(shown + std::strlen(shown), 5, c >= 32 && c < 127 ? "%c" : "\\x%02x", c);
    }
    return Status::Error(StatusCode::kInvalidModel,
                         "file identifier at byte 4 is '%s'; expected 'CIR0' (circle) or 'TFL3' "
                         "(TensorFlow Lite)",
                         shown);
  }
  const uint32_t root = flatbuffers::ReadScalar<uint32_t>(data);
  if (root > size - 4) {
    return Status::Error(StatusCode::kInvalidModel,
                         "root table offset %u (byte 0) points past the end of the %zu-byte "
                         "file; the file is probably truncated",
                         static_cast<unsigned>(root), size);
  }
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/64, /*max_tables=*/1000000);
  if (!verifier.VerifyBuffer<fb::Model>(nullptr)) {
    return Status::Error(StatusCode::kInvalidModel,
                         "flatbuffer verification failed: a table, vector or string of the "
                         "%zu-byte file points outside it or is misaligned (truncated or "
                         "corrupted file)",
                         size);
  }
  const fb::Model* model = flatbuffers::GetRoot<fb::Model>(data);
  if (result.format == ModelFormat::kTflite &&
      (AsTable(model)->CheckField(kSlotModelExternalBufferGroups) ||
       AsTable(model)->CheckField(kSlotModelExternalBuffers))) {
    return Status::Error(StatusCode::kUnsupported,
                         "model uses TFLite external buffers, which TrainScope does not read");
  }
  result.version = model->version();
  result.description = model->description() != nullptr ? model->description()->str() : "";

  std::vector<BufferSpan> buffers;
  TS_RETURN_IF_ERROR(ReadBuffers(model, data, size, &buffers));
  result.buffer_count = static_cast<uint32_t>(buffers.size());
  std::vector<int32_t> opcodes, versions;
  std::vector<std::string> custom_codes;
  TS_RETURN_IF_ERROR(ReadOpcodes(model, &opcodes, &custom_codes, &versions));

  const auto* subgraphs = model->subgraphs();
  if (subgraphs == nullptr || subgraphs->size() == 0) {
    return Status::Error(StatusCode::kInvalidModel, "model has no subgraphs");
  }
  result.subgraphs.resize(subgraphs->size());
  for (flatbuffers::uoffset_t s = 0; s < subgraphs->size(); ++s) {
    TS_RETURN_IF_ERROR(ReadSubgraph(subgraphs->Get(s), s, result.format, buffers, opcodes,
                                    custom_codes, versions, verifier, &result.subgraphs[s]));
  }
  MarkSharedBuffers(&result);

  if (const auto* metadata = model->metadata(); metadata != nullptr) {
    for (flatbuffers::uoffset_t i = 0; i < metadata->size(); ++i) {
      const fb::Metadata* entry = metadata->Get(i);
      MetadataEntry m;
      m.name = entry->name() != nullptr ? entry->name()->str() : std::string();
      m.buffer = entry->buffer();
      if (m.buffer >= buffers.size()) {
        return Status::Error(StatusCode::kInvalidModel,
                             "metadata %u '%s': buffer index %u is out of range (the model has "
                             "%zu buffers)",
                             static_cast<unsigned>(i), m.name.c_str(),
                             static_cast<unsigned>(m.buffer), buffers.size());
      }
      m.data_offset = buffers[m.buffer].offset;
      m.size = buffers[m.buffer].size;
      result.metadata.push_back(std::move(m));
    }
  }
  *graph = std::move(result);
  return Status::Ok();
}

}  // namespace trainscope
