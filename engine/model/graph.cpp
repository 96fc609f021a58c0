// SPDX-License-Identifier: Apache-2.0
#include "engine/model/graph.h"

#include <cstring>
#include <string>
#include <vector>

namespace trainscope {

const char* ActivationName(Activation activation) {
  switch (activation) {
    case Activation::kNone:
      return "NONE";
    case Activation::kRelu:
      return "RELU";
    case Activation::kReluN1To1:
      return "RELU_N1_TO_1";
    case Activation::kRelu6:
      return "RELU6";
    case Activation::kTanh:
      return "TANH";
    case Activation::kSignBit:
      return "SIGN_BIT";
  }
  return "UNKNOWN";
}

const char* PaddingName(Padding padding) {
  return padding == Padding::kSame ? "SAME" : "VALID";
}

static bool SameFloat(float a, float b) {
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

bool OpOptions::operator==(const OpOptions& o) const {
  return padding == o.padding && stride_w == o.stride_w && stride_h == o.stride_h &&
         dilation_w == o.dilation_w && dilation_h == o.dilation_h && filter_w == o.filter_w &&
         filter_h == o.filter_h && depth_multiplier == o.depth_multiplier &&
         activation == o.activation && SameFloat(beta, o.beta) && SameFloat(alpha, o.alpha) &&
         axis == o.axis && batch_dims == o.batch_dims && keep_dims == o.keep_dims &&
         keep_num_dims == o.keep_num_dims && weights_format == o.weights_format &&
         new_shape == o.new_shape && squeeze_dims == o.squeeze_dims && begin_mask == o.begin_mask &&
         end_mask == o.end_mask && ellipsis_mask == o.ellipsis_mask &&
         new_axis_mask == o.new_axis_mask && shrink_axis_mask == o.shrink_axis_mask &&
         offset == o.offset && block_size == o.block_size && num_splits == o.num_splits &&
         values_count == o.values_count && exclusive == o.exclusive && reverse == o.reverse &&
         approximate == o.approximate && mirror_symmetric == o.mirror_symmetric &&
         align_corners == o.align_corners && half_pixel_centers == o.half_pixel_centers &&
         SameFloat(cell_clip, o.cell_clip) && SameFloat(proj_clip, o.proj_clip) &&
         time_major == o.time_major && asymmetric_quantize_inputs == o.asymmetric_quantize_inputs &&
         diagonal_recurrent_tensors == o.diagonal_recurrent_tensors;
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
  return name == o.name && tensors == o.tensors && operators == o.operators && inputs == o.inputs &&
         outputs == o.outputs;
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

namespace {

std::string TensorText(const Subgraph& subgraph, int32_t tensor) {
  return "tensor " + std::to_string(tensor) + " '" +
         subgraph.tensors[static_cast<size_t>(tensor)].name + "'";
}

}  // namespace

Status ValidateDataflow(const Subgraph& subgraph) {
  if (subgraph.operators.empty()) {
    return Status::Error(StatusCode::kInvalidModel, "the model has no operators");
  }
  const size_t count = subgraph.tensors.size();
  enum class Source : uint8_t { kNone, kConstant, kInput, kOperator };
  std::vector<Source> source(count, Source::kNone);
  for (size_t t = 0; t < count; ++t) {
    const Tensor& tensor = subgraph.tensors[t];
    if (tensor.constant || tensor.is_variable) source[t] = Source::kConstant;
  }
  for (int32_t input : subgraph.inputs) {
    if (input < 0 || static_cast<size_t>(input) >= count) {
      return Status::Error(StatusCode::kInvalidModel, "graph input %d is not a tensor",
                           static_cast<int>(input));
    }
    if (source[static_cast<size_t>(input)] == Source::kNone) {
      source[static_cast<size_t>(input)] = Source::kInput;
    }
  }
  for (size_t k = 0; k < subgraph.operators.size(); ++k) {
    const Operator& op = subgraph.operators[k];
    const char* name = OpcodeName(op.opcode);
    const std::string label = "operator " + std::to_string(k) + " (" + (name ? name : "?") + ")";
    for (int32_t input : op.inputs) {
      if (input < 0) continue;  // an absent optional input
      if (static_cast<size_t>(input) >= count) {
        return Status::Error(StatusCode::kInvalidModel, "%s reads tensor %d of %zu", label.c_str(),
                             static_cast<int>(input), count);
      }
      if (source[static_cast<size_t>(input)] == Source::kNone) {
        return Status::Error(StatusCode::kInvalidModel,
                             "%s reads %s, which no constant, graph input or earlier operator "
                             "produces",
                             label.c_str(), TensorText(subgraph, input).c_str());
      }
    }
    for (int32_t output : op.outputs) {
      if (output < 0 || static_cast<size_t>(output) >= count) {
        return Status::Error(StatusCode::kInvalidModel, "%s writes tensor %d of %zu", label.c_str(),
                             static_cast<int>(output), count);
      }
      for (int32_t input : op.inputs) {
        if (input == output) {
          return Status::Error(StatusCode::kInvalidModel, "%s writes its own input %s",
                               label.c_str(), TensorText(subgraph, output).c_str());
        }
      }
      const Source previous = source[static_cast<size_t>(output)];
      if (previous == Source::kConstant &&
          !subgraph.tensors[static_cast<size_t>(output)].is_variable) {
        return Status::Error(StatusCode::kInvalidModel, "%s writes the constant %s", label.c_str(),
                             TensorText(subgraph, output).c_str());
      }
      if (previous == Source::kInput) {
        return Status::Error(StatusCode::kInvalidModel, "%s writes the graph input %s",
                             label.c_str(), TensorText(subgraph, output).c_str());
      }
      if (previous == Source::kOperator) {
        return Status::Error(StatusCode::kInvalidModel,
                             "%s writes %s, which an earlier operator already wrote", label.c_str(),
                             TensorText(subgraph, output).c_str());
      }
      if (previous == Source::kNone) source[static_cast<size_t>(output)] = Source::kOperator;
    }
  }
  for (int32_t output : subgraph.outputs) {
    if (output < 0 || static_cast<size_t>(output) >= count) {
      return Status::Error(StatusCode::kInvalidModel, "graph output %d is not a tensor",
                           static_cast<int>(output));
    }
    if (source[static_cast<size_t>(output)] == Source::kNone) {
      return Status::Error(StatusCode::kInvalidModel, "graph output %s is produced by no operator",
                           TensorText(subgraph, output).c_str());
    }
  }
  return Status::Ok();
}

}  // namespace trainscope
