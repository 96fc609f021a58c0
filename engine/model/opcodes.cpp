// SPDX-License-Identifier: Apache-2.0
#include "engine/model/opcodes.h"

#include <algorithm>
#include <iterator>

namespace trainscope {
namespace {

// Index = BuiltinOperator value 0..207 (codes shared by circle and TFLite).
constexpr const char* kBuiltinNames[] = {
    "ADD",
    "AVERAGE_POOL_2D",
    "CONCATENATION",
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE",
    "DEQUANTIZE",
    "EMBEDDING_LOOKUP",
    "FLOOR",
    "FULLY_CONNECTED",
    "HASHTABLE_LOOKUP",
    "L2_NORMALIZATION",
    "L2_POOL_2D",
    "LOCAL_RESPONSE_NORMALIZATION",
    "LOGISTIC",
    "LSH_PROJECTION",
    "LSTM",
    "MAX_POOL_2D",
    "MUL",
    "RELU",
    "RELU_N1_TO_1",
    "RELU6",
    "RESHAPE",
    "RESIZE_BILINEAR",
    "RNN",
    "SOFTMAX",
    "SPACE_TO_DEPTH",
    "SVDF",
    "TANH",
    "CONCAT_EMBEDDINGS",
    "SKIP_GRAM",
    "CALL",
    "CUSTOM",
    "EMBEDDING_LOOKUP_SPARSE",
    "PAD",
    "UNIDIRECTIONAL_SEQUENCE_RNN",
    "GATHER",
    "BATCH_TO_SPACE_ND",
    "SPACE_TO_BATCH_ND",
    "TRANSPOSE",
    "MEAN",
    "SUB",
    "DIV",
    "SQUEEZE",
    "UNIDIRECTIONAL_SEQUENCE_LSTM",
    "STRIDED_SLICE",
    "BIDIRECTIONAL_SEQUENCE_RNN",
    "EXP",
    "TOPK_V2",
    "SPLIT",
    "LOG_SOFTMAX",
    "DELEGATE",
    "BIDIRECTIONAL_SEQUENCE_LSTM",
    "CAST",
    "PRELU",
    "MAXIMUM",
    "ARG_MAX",
    "MINIMUM",
    "LESS",
    "NEG",
    "PADV2",
    "GREATER",
    "GREATER_EQUAL",
    "LESS_EQUAL",
    "SELECT",
    "SLICE",
    "SIN",
    "TRANSPOSE_CONV",
    "SPARSE_TO_DENSE",
    "TILE",
    "EXPAND_DIMS",
    "EQUAL",
    "NOT_EQUAL",
    "LOG",
    "SUM",
    "SQRT",
    "RSQRT",
    "SHAPE",
    "POW",
    "ARG_MIN",
    "FAKE_QUANT",
    "REDUCE_PROD",
    "REDUCE_MAX",
    "PACK",
    "LOGICAL_OR",
    "ONE_HOT",
    "LOGICAL_AND",
    "LOGICAL_NOT",
    "UNPACK",
    "REDUCE_MIN",
    "FLOOR_DIV",
    "REDUCE_ANY",
    "SQUARE",
    "ZEROS_LIKE",
    "FILL",
    "FLOOR_MOD",
    "RANGE",
    "RESIZE_NEAREST_NEIGHBOR",
    "LEAKY_RELU",
    "SQUARED_DIFFERENCE",
    "MIRROR_PAD",
    "ABS",
    "SPLIT_V",
    "UNIQUE",
    "CEIL",
    "REVERSE_V2",
    "ADD_N",
    "GATHER_ND",
    "COS",
    "WHERE",
    "RANK",
    "ELU",
    "REVERSE_SEQUENCE",
    "MATRIX_DIAG",
    "QUANTIZE",
    "MATRIX_SET_DIAG",
    "ROUND",
    "HARD_SWISH",
    "IF",
    "WHILE",
    "NON_MAX_SUPPRESSION_V4",
    "NON_MAX_SUPPRESSION_V5",
    "SCATTER_ND",
    "SELECT_V2",
    "DENSIFY",
    "SEGMENT_SUM",
    "BATCH_MATMUL",
    "PLACEHOLDER_FOR_GREATER_OP_CODES",
    "CUMSUM",
    "CALL_ONCE",
    "BROADCAST_TO",
    "RFFT2D",
    "CONV_3D",
    "IMAG",
    "REAL",
    "COMPLEX_ABS",
    "HASHTABLE",
    "HASHTABLE_FIND",
    "HASHTABLE_IMPORT",
    "HASHTABLE_SIZE",
    "REDUCE_ALL",
    "CONV_3D_TRANSPOSE",
    "VAR_HANDLE",
    "READ_VARIABLE",
    "ASSIGN_VARIABLE",
    "BROADCAST_ARGS",
    "RANDOM_STANDARD_NORMAL",
    "BUCKETIZE",
    "RANDOM_UNIFORM",
    "MULTINOMIAL",
    "GELU",
    "DYNAMIC_UPDATE_SLICE",
    "RELU_0_TO_1",
    "UNSORTED_SEGMENT_PROD",
    "UNSORTED_SEGMENT_MAX",
    "UNSORTED_SEGMENT_SUM",
    "ATAN2",
    "UNSORTED_SEGMENT_MIN",
    "SIGN",
    "BITCAST",
    "BITWISE_XOR",
    "RIGHT_SHIFT",
    "STABLEHLO_LOGISTIC",
    "STABLEHLO_ADD",
    "STABLEHLO_DIVIDE",
    "STABLEHLO_MULTIPLY",
    "STABLEHLO_MAXIMUM",
    "STABLEHLO_RESHAPE",
    "STABLEHLO_CLAMP",
    "STABLEHLO_CONCATENATE",
    "STABLEHLO_BROADCAST_IN_DIM",
    "STABLEHLO_CONVOLUTION",
    "STABLEHLO_SLICE",
    "STABLEHLO_CUSTOM_CALL",
    "STABLEHLO_REDUCE",
    "STABLEHLO_ABS",
    "STABLEHLO_AND",
    "STABLEHLO_COSINE",
    "STABLEHLO_EXPONENTIAL",
    "STABLEHLO_FLOOR",
    "STABLEHLO_LOG",
    "STABLEHLO_MINIMUM",
    "STABLEHLO_NEGATE",
    "STABLEHLO_OR",
    "STABLEHLO_POWER",
    "STABLEHLO_REMAINDER",
    "STABLEHLO_RSQRT",
    "STABLEHLO_SELECT",
    "STABLEHLO_SUBTRACT",
    "STABLEHLO_TANH",
    "STABLEHLO_SCATTER",
    "STABLEHLO_COMPARE",
    "STABLEHLO_CONVERT",
    "STABLEHLO_DYNAMIC_SLICE",
    "STABLEHLO_DYNAMIC_UPDATE_SLICE",
    "STABLEHLO_PAD",
    "STABLEHLO_IOTA",
    "STABLEHLO_DOT_GENERAL",
    "STABLEHLO_REDUCE_WINDOW",
    "STABLEHLO_SORT",
    "STABLEHLO_WHILE",
    "STABLEHLO_GATHER",
    "STABLEHLO_TRANSPOSE",
    "DILATE",
    "STABLEHLO_RNG_BIT_GENERATOR",
    "REDUCE_WINDOW",
    "STABLEHLO_COMPOSITE",
    "COMPLEX",
};

// Circle-only operators, index = -code - 2 (code -1 was never assigned).
constexpr const char* kCircleOnlyNames[] = {
    "INSTANCE_NORM", "BCQ_FULLY_CONNECTED", "BCQ_GATHER", "GRU", "RMS_NORM", "ROPE", "RUN_MODEL",
};

struct OptionsForOp {
  int32_t opcode;
  uint8_t options_type;
};

// BuiltinOptions union member numbers per op (identical in circle and TFLite).
constexpr OptionsForOp kOptionsForOp[] = {
    {op::kConv2D, 1},
    {op::kDepthwiseConv2D, 2},
    {op::kAveragePool2D, 5},
    {op::kMaxPool2D, 5},
    {12 /*L2_POOL_2D*/, 5},
    {op::kFullyConnected, 8},
    {op::kSoftmax, 9},
    {op::kConcatenation, 10},
    {op::kAdd, 11},
    {op::kReshape, 17},
    {op::kMul, 21},
    {op::kPad, 22},
    {op::kGather, 23},
    {op::kTranspose, 26},
    {op::kMean, 27},
    {op::kSum, 27},
    {op::kReduceProd, 27},
    {op::kReduceMax, 27},
    {op::kReduceMin, 27},
    {op::kSub, 28},
    {op::kSqueeze, 30},
    {op::kStridedSlice, 32},
    {op::kExpandDims, 52},
    {op::kLeakyRelu, 75},
    {op::kL2Normalization, 12},
    {op::kSpaceToDepth, 19},
    {op::kDiv, 29},
    {op::kSplit, 35},
    {op::kLogSoftmax, 36},
    {op::kMaximum, 39},
    {op::kMinimum, 39},
    {op::kNeg, 42},
    {op::kSlice, 48},
    {op::kPack, 59},
    {op::kUnpack, 64},
    {op::kFloorDiv, 65},
    {op::kSquare, 66},
    {op::kZerosLike, 67},
    {op::kFloorMod, 72},
    {op::kSquaredDifference, 76},
    {op::kAbs, 78},
    {op::kSplitV, 79},
    {op::kAddN, 82},
    {op::kCos, 84},
    {op::kHardSwish, 91},
    {op::kDepthToSpace, 94},
    {op::kCumsum, 102},
    {op::kMirrorPad, 77},
    {op::kResizeBilinear, 15},
    {op::kTransposeConv, 49},
    {op::kResizeNearestNeighbor, 74},
    {op::kGelu, 116},
    {op::kUnidirectionalSequenceLstm, 71},
};

struct OptionsName {
  uint8_t options_type;
  const char* name;
};

constexpr OptionsName kOptionsNames[] = {
    {1, "Conv2DOptions"},
    {2, "DepthwiseConv2DOptions"},
    {5, "Pool2DOptions"},
    {8, "FullyConnectedOptions"},
    {9, "SoftmaxOptions"},
    {10, "ConcatenationOptions"},
    {11, "AddOptions"},
    {17, "ReshapeOptions"},
    {21, "MulOptions"},
    {22, "PadOptions"},
    {23, "GatherOptions"},
    {26, "TransposeOptions"},
    {27, "ReducerOptions"},
    {28, "SubOptions"},
    {30, "SqueezeOptions"},
    {32, "StridedSliceOptions"},
    {52, "ExpandDimsOptions"},
    {75, "LeakyReluOptions"},
    {12, "L2NormOptions"},
    {19, "SpaceToDepthOptions"},
    {29, "DivOptions"},
    {35, "SplitOptions"},
    {36, "LogSoftmaxOptions"},
    {39, "MaximumMinimumOptions"},
    {42, "NegOptions"},
    {48, "SliceOptions"},
    {59, "PackOptions"},
    {64, "UnpackOptions"},
    {65, "FloorDivOptions"},
    {66, "SquareOptions"},
    {67, "ZerosLikeOptions"},
    {72, "FloorModOptions"},
    {76, "SquaredDifferenceOptions"},
    {78, "AbsOptions"},
    {79, "SplitVOptions"},
    {82, "AddNOptions"},
    {84, "CosOptions"},
    {91, "HardSwishOptions"},
    {94, "DepthToSpaceOptions"},
    {102, "CumsumOptions"},
    {77, "MirrorPadOptions"},
    {15, "ResizeBilinearOptions"},
    {49, "TransposeConvOptions"},
    {74, "ResizeNearestNeighborOptions"},
    {116, "GeluOptions"},
    {71, "UnidirectionalSequenceLSTMOptions"},
};

}  // namespace

const char* OpcodeName(int32_t opcode) {
  if (opcode >= 0 && opcode < static_cast<int32_t>(std::size(kBuiltinNames))) {
    return kBuiltinNames[opcode];
  }
  // In 64 bits: a file or a frame may carry INT32_MIN, whose negation overflows int32_t.
  const int64_t circle_index = -int64_t{opcode} - 2;
  if (circle_index >= 0 && circle_index < static_cast<int64_t>(std::size(kCircleOnlyNames))) {
    return kCircleOnlyNames[circle_index];
  }
  return nullptr;
}

int32_t DecodeOpcode(int8_t deprecated_builtin_code, int32_t builtin_code) {
  if (deprecated_builtin_code == op::kPlaceholderForGreaterOpCodes) return builtin_code;
  if (deprecated_builtin_code < 0) return deprecated_builtin_code;
  return std::max<int32_t>(deprecated_builtin_code, builtin_code);
}

uint8_t ExpectedOptionsType(int32_t opcode) {
  for (const OptionsForOp& entry : kOptionsForOp) {
    if (entry.opcode == opcode) return entry.options_type;
  }
  return 0;
}

const char* OptionsTypeName(uint8_t options_type) {
  if (options_type == 0) return "no options";
  for (const OptionsName& entry : kOptionsNames) {
    if (entry.options_type == options_type) return entry.name;
  }
  return "an options table this engine does not read";
}

ElementType ElementTypeFromFile(int8_t raw, ModelFormat format) {
  if (raw >= 0 && raw <= 17) return static_cast<ElementType>(raw);
  if (format == ModelFormat::kCircle && raw == -1) return ElementType::kUInt4;
  if (format == ModelFormat::kTflite && raw == 18) return ElementType::kBFloat16;
  if (format == ModelFormat::kTflite && raw == 20) return ElementType::kUInt4;
  return ElementType::kOther;
}

int8_t ElementTypeToFile(ElementType type, ModelFormat format) {
  const auto value = static_cast<uint8_t>(type);
  if (value <= 17) return static_cast<int8_t>(value);
  if (type == ElementType::kUInt4) return format == ModelFormat::kCircle ? -1 : 20;
  if (type == ElementType::kBFloat16 && format == ModelFormat::kTflite) return 18;
  return 127;
}

const char* ElementTypeName(ElementType type) {
  static constexpr const char* kNames[] = {
      "FLOAT32", "FLOAT16",   "INT32",  "UINT8",   "INT64",      "STRING",   "BOOL",
      "INT16",   "COMPLEX64", "INT8",   "FLOAT64", "COMPLEX128", "UINT64",   "RESOURCE",
      "VARIANT", "UINT32",    "UINT16", "INT4",    "UINT4",      "BFLOAT16", "OTHER",
  };
  return kNames[static_cast<size_t>(type)];
}

size_t ElementBits(ElementType type) {
  switch (type) {
    case ElementType::kFloat32:
    case ElementType::kInt32:
    case ElementType::kUInt32:
      return 32;
    case ElementType::kFloat16:
    case ElementType::kInt16:
    case ElementType::kUInt16:
    case ElementType::kBFloat16:
      return 16;
    case ElementType::kUInt8:
    case ElementType::kInt8:
    case ElementType::kBool:
      return 8;
    case ElementType::kInt64:
    case ElementType::kUInt64:
    case ElementType::kFloat64:
    case ElementType::kComplex64:
      return 64;
    case ElementType::kComplex128:
      return 128;
    case ElementType::kInt4:
    case ElementType::kUInt4:
      return 4;
    case ElementType::kString:
    case ElementType::kResource:
    case ElementType::kVariant:
    case ElementType::kOther:
      return 0;
  }
  return 0;
}

}  // namespace trainscope
