// SPDX-License-Identifier: Apache-2.0
#include "engine/model/graph.h"

#include <cstring>

namespace trainscope {

const char* ActivationName(Activation activation) {
  switch (activation) {
    case Activation::kNone: return "NONE";
    case Activation::kRelu: return "RELU";
    case Activation::kReluN1To1: return "RELU_N1_TO_1";
    case Activation::kRelu6: return "RELU6";
    case Activation::kTanh: return "TANH";
    case Activation::kSignBit: return "SIGN_BIT";
  }
  return "UNKNOWN";
}

const char* PaddingName(Padding padding) {
  return padding == Padding::kSame ? "SAME" : "VALID";
}

static bool SameFloat(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

bool OpOptions::operator==(const OpOptions& o) const {
  return padding == o.padding && stride_w == o.stride_w && stride_h == o.stride_h &&
         dilation_w == o.dilation_w && dilation_h == o.dilation_h && filter_w == o.filter_w &&
         filter_h == o.filter_h && depth_multiplier == o.depth_multiplier &&
         activation == o.activation && SameFloat(beta, o.beta) && SameFloat(alpha, o.alpha) &&
         axis == o.axis && batch_dims == o.batch_dims && keep_dims == o.keep_dims &&
         keep_num_dims == o.keep_num_dims && weights_format == o.weights_format &&
         new_shape == o.new_shape && squeeze_dims == o.squeeze_dims &&
         begin_mask == o.begin_mask && end_mask == o.end_mask &&
         ellipsis_mask == o.ellipsis_mask && new_axis_mask == o.new_axis_mask &&
         shrink_axis_mask == o.shrink_axis_mask && offset == o.offset;
}

size_t Tensor::element_count() const {
  size_t count = 1;
  for (int32_t dim : shape) count *= static_cast<size_t>(dim);
  return count;
}

// Buffer numbers and data offsets are layout details of one file, so they do not take part.
bool Tensor::operator==(const Tensor& o) const {
  return name == o.name && type == o.type && shape == o.shape &&
         shape_signature == o.shape_signature && constant == o.constant &&
         shared_buffer == o.shared_buffer && is_variable == o.is_variable &&
         quantized == o.quantized && bytes == o.bytes;
}

bool Operator::operator==(const Operator& o) const {
  return opcode == o.opcode && custom_code == o.custom_code && version == o.version &&
         inputs == o.inputs && outputs == o.outputs && options_type == o.options_type &&
         options == o.options;
}

bool Subgraph::operator==(const Subgraph& o) const {
  return name == o.name && tensors == o.tensors && operators == o.operators &&
         inputs == o.inputs && outputs == o.outputs;
}

const MetadataEntry* Graph::FindMetadata(const std::string& name) const {
  for (const MetadataEntry& entry : metadata) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

size_t CountFloatParameters(const Subgraph& subgraph) {
  size_t count = 0;
  for (const Tensor& tensor : subgraph.tensors) {
    if (tensor.constant && tensor.type == ElementType::kFloat32) count += tensor.element_count();
  }
  return count;
}

}  // namespace trainscope
