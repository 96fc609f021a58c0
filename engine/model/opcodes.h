// SPDX-License-Identifier: Apache-2.0
//
// Builtin operator codes and tensor element types of the circle/TFLite formats.
//
// Op codes are kept as the raw int32 of the file (negative codes are circle-only operators such
// as GRU = -5); the named constants below cover the operators the engine knows by name.
// OpcodeName() knows every code of circle 0.10 and TFLite up to 207.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trainscope {

namespace op {
enum : int32_t {
  kAdd = 0,
  kAveragePool2D = 1,
  kConcatenation = 2,
  kConv2D = 3,
  kDepthwiseConv2D = 4,
  kExp = 47,
  kFullyConnected = 9,
  kLogistic = 14,
  kMaxPool2D = 17,
  kMul = 18,
  kRelu = 19,
  kRelu6 = 21,
  kReshape = 22,
  kSoftmax = 25,
  kTanh = 28,
  kCustom = 32,
  kPad = 34,
  kGather = 36,
  kTranspose = 39,
  kMean = 40,
  kSub = 41,
  kSqueeze = 43,
  kStridedSlice = 45,
  kExpandDims = 70,
  kLeakyRelu = 98,
  // Forward-only operators of onert-micro's float set.
  kAbs = 101,
  kAddN = 106,
  kCeil = 104,
  kCos = 108,
  kCumsum = 128,
  kDepthToSpace = 5,
  kDiv = 42,
  kElu = 111,
  kFloor = 8,
  kFloorDiv = 90,
  kFloorMod = 95,
  kGelu = 150,
  kHardSwish = 117,
  kL2Normalization = 11,
  kLog = 73,
  kLogSoftmax = 50,
  kMaximum = 55,
  kMinimum = 57,
  kNeg = 59,
  kPack = 83,
  kPrelu = 54,
  kReduceMax = 82,
  kReduceMin = 89,
  kReduceProd = 81,
  kRound = 116,
  kRsqrt = 76,
  kSin = 66,
  kSlice = 65,
  kSpaceToDepth = 26,
  kSplit = 49,
  kSplitV = 102,
  kSqrt = 75,
  kSquare = 92,
  kSquaredDifference = 99,
  kSum = 74,
  kUnpack = 88,
  kZerosLike = 93,
  kArgMax = 56,
  kArgMin = 79,
  kBatchToSpaceNd = 37,
  kCast = 53,
  kEqual = 71,
  kFill = 94,
  kGatherNd = 107,
  kGreater = 61,
  kGreaterEqual = 62,
  kLess = 58,
  kLessEqual = 63,
  kLogicalAnd = 86,
  kLogicalNot = 87,
  kLogicalOr = 84,
  kMirrorPad = 100,
  kNotEqual = 72,
  kPadV2 = 60,
  kResizeBilinear = 23,
  kResizeNearestNeighbor = 97,
  kSelectV2 = 123,
  kSpaceToBatchNd = 38,
  kTransposeConv = 67,
  kUnidirectionalSequenceLstm = 44,
  kPlaceholderForGreaterOpCodes = 127,
  kInstanceNorm = -2,
  kBcqFullyConnected = -3,
  kBcqGather = -4,
  kGru = -5,
  kRmsNorm = -6,
  kRope = -7,
  kRunModel = -8,
};
}  // namespace op

// Upper-case builtin name ("FULLY_CONNECTED"), or nullptr for a code no schema defines.
const char* OpcodeName(int32_t opcode);

// Decodes an OperatorCode entry: works for old circle (negative legacy byte, no builtin_code),
// new circle (both slots) and TFLite (legacy byte saturated at 127).
int32_t DecodeOpcode(int8_t deprecated_builtin_code, int32_t builtin_code);

// The builtin-options union member an op's options must have, or 0 when the op has none.
uint8_t ExpectedOptionsType(int32_t opcode);
const char* OptionsTypeName(uint8_t options_type);

enum class ElementType : uint8_t {
  kFloat32,
  kFloat16,
  kInt32,
  kUInt8,
  kInt64,
  kString,
  kBool,
  kInt16,
  kComplex64,
  kInt8,
  kFloat64,
  kComplex128,
  kUInt64,
  kResource,
  kVariant,
  kUInt32,
  kUInt16,
  kInt4,
  kUInt4,
  kBFloat16,
  kOther,
};

enum class ModelFormat : uint8_t { kCircle, kTflite };

// Maps the file's TensorType byte; circle and TFLite number UINT4 differently.
ElementType ElementTypeFromFile(int8_t raw, ModelFormat format);
int8_t ElementTypeToFile(ElementType type, ModelFormat format);
const char* ElementTypeName(ElementType type);

// Size in bits of one element; 0 for types without a fixed size (STRING, RESOURCE, VARIANT).
size_t ElementBits(ElementType type);

}  // namespace trainscope
