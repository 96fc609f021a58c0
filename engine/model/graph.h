// SPDX-License-Identifier: Apache-2.0
//
// Graph: the verified, format-independent description of a model that the rest of the engine
// uses. It is plain data (copyable, comparable) and holds no pointers into the file: constant
// tensors record where their bytes are (Tensor::data_offset into Model::bytes()).
//
// Invariants after ReadModel() succeeded:
//  - every tensor, buffer and opcode index is in range; operator inputs are -1 (absent optional
//    input) or a tensor index, outputs and graph inputs/outputs are tensor indices;
//  - shapes are non-negative and Tensor::bytes did not overflow;
//  - a tensor is constant iff its buffer holds bytes, and then it holds exactly Tensor::bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/model/opcodes.h"

namespace trainscope {

enum class Padding : uint8_t { kSame = 0, kValid = 1 };
enum class Activation : uint8_t { kNone = 0, kRelu, kReluN1To1, kRelu6, kTanh, kSignBit };
const char* ActivationName(Activation activation);
const char* PaddingName(Padding padding);

// Builtin options of every op the engine reads, flattened; an op uses the fields of its
// options table and leaves the others at their defaults (the schema's defaults).
struct OpOptions {
  Padding padding = Padding::kSame;
  int32_t stride_w = 0;
  int32_t stride_h = 0;
  int32_t dilation_w = 1;
  int32_t dilation_h = 1;
  int32_t filter_w = 0;
  int32_t filter_h = 0;
  int32_t depth_multiplier = 0;
  Activation activation = Activation::kNone;
  float beta = 1.0f;                  // SOFTMAX; 1.0 when the op carries no options table
  float alpha = 0.0f;                 // LEAKY_RELU
  int32_t axis = 0;                   // CONCATENATION, GATHER
  int32_t batch_dims = 0;             // GATHER
  bool keep_dims = false;             // MEAN and other reducers
  bool keep_num_dims = false;         // FULLY_CONNECTED
  int8_t weights_format = 0;          // FULLY_CONNECTED
  std::vector<int32_t> new_shape;     // RESHAPE
  std::vector<int32_t> squeeze_dims;  // SQUEEZE
  int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
          shrink_axis_mask = 0;     // STRIDED_SLICE
  bool offset = false;              // STRIDED_SLICE
  int32_t block_size = 0;           // SPACE_TO_DEPTH, DEPTH_TO_SPACE
  int32_t num_splits = 0;           // SPLIT, SPLIT_V
  int32_t values_count = 0;         // PACK (values_count), UNPACK (num); axis is `axis`
  bool exclusive = false;           // CUMSUM
  bool reverse = false;             // CUMSUM
  bool approximate = false;         // GELU: the tanh approximation
  bool mirror_symmetric = false;    // MIRROR_PAD: SYMMETRIC (edge repeated) instead of REFLECT
  bool align_corners = false;       // RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR
  bool half_pixel_centers = false;  // RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR
  // UNIDIRECTIONAL_SEQUENCE_LSTM (its cell and output activation is `activation`); a clip of 0
  // (or below) is no clip.
  float cell_clip = 0.0f;
  float proj_clip = 0.0f;
  bool time_major = false;                  // input [time, batch, features], not [batch, time, ...]
  bool asymmetric_quantize_inputs = false;  // hybrid (int8 weight) models only
  bool diagonal_recurrent_tensors = false;  // recurrent weights hold only their diagonal

  bool operator==(const OpOptions& other) const;
  bool operator!=(const OpOptions& other) const { return !(*this == other); }
};

struct Tensor {
  std::string name;
  ElementType type = ElementType::kFloat32;
  std::vector<int32_t> shape;
  std::vector<int32_t> shape_signature;  // -1 marks a dynamic dimension; may be empty
  uint32_t buffer = 0;
  bool constant = false;       // the buffer holds bytes
  bool shared_buffer = false;  // another constant tensor uses the same buffer
  bool is_variable = false;
  bool quantized = false;  // carries scale/zero-point parameters
  size_t bytes = 0;        // size implied by shape and type
  size_t data_offset = 0;  // where the constant bytes start in Model::bytes()

  size_t element_count() const;
  bool operator==(const Tensor& other) const;
  bool operator!=(const Tensor& other) const { return !(*this == other); }
};

struct Operator {
  int32_t opcode = 0;       // BuiltinOperator value, see op::
  std::string custom_code;  // for CUSTOM ops
  int32_t version = 1;
  std::vector<int32_t> inputs;  // -1 = absent optional input
  std::vector<int32_t> outputs;
  uint8_t options_type = 0;  // BuiltinOptions union member found in the file
  OpOptions options;

  bool operator==(const Operator& other) const;
};

struct Subgraph {
  std::string name;
  std::vector<Tensor> tensors;
  std::vector<Operator> operators;  // file order = execution order
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;

  bool operator==(const Subgraph& other) const;
};

struct MetadataEntry {
  std::string name;
  uint32_t buffer = 0;
  size_t data_offset = 0;
  size_t size = 0;
};

inline constexpr const char kCircleTrainingMetadata[] = "CIRCLE_TRAINING";

struct Graph {
  ModelFormat format = ModelFormat::kCircle;
  uint32_t version = 0;
  std::string description;
  uint32_t buffer_count = 0;
  std::vector<Subgraph> subgraphs;
  std::vector<MetadataEntry> metadata;

  const Subgraph& main() const { return subgraphs.front(); }
  const MetadataEntry* FindMetadata(const std::string& name) const;
};

// Number of trainable-sized parameters: elements of all constant FLOAT32 tensors.
size_t CountFloatParameters(const Subgraph& subgraph);

// The data flow an executor relies on, checked before any kernel runs: at least one operator;
// every operand a constant, a variable, a graph input or the output of an earlier operator;
// every tensor written by one operator at most, never a constant or a graph input, never the
// operator's own input; every graph output produced. kInvalidModel naming the operator and the
// tensor, e.g. "operator 2 (FULLY_CONNECTED) reads tensor 5 'w', which no constant, graph input
// or earlier operator produces".
Status ValidateDataflow(const Subgraph& subgraph);

}  // namespace trainscope
