// SPDX-License-Identifier: Apache-2.0
//
// OpSeedModels: one small valid model per family of forward-only operators (element-wise,
// broadcasting, reductions, several outputs, padding, indexing, resizing, transposed
// convolution, BOOL and INT32 intermediates), as .circle bytes. The dataflow fuzzer mutates
// them, so every operator's Prepare and Eval meet rewired operands, changed shapes and options.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/model/model_builder.h"
#include "engine/model/opcodes.h"

namespace trainscope::testing {

inline std::vector<std::vector<uint8_t>> OpSeedModels() {
  std::vector<std::function<void(ModelBuilder&)>> builds;
  // x [1, 4, 4, 2] -> SQRT -> FLOOR_MOD with a [2] divisor -> REDUCE_PROD over axis 3, keep_dims.
  builds.push_back([](ModelBuilder& b) {
    const int x = b.AddTensor("x", {1, 4, 4, 2});
    const int r = b.AddTensor("root", {1, 4, 4, 2});
    b.AddOperator(op::kSqrt, {x}, {r});
    const int m = b.AddTensor("mod", {1, 4, 4, 2});
    b.AddOperator(op::kFloorMod, {r, b.AddConstant("d", {2}, {0.5f, 3.0f})}, {m});
    const int y = b.AddTensor("y", {1, 4, 4, 1});
    OpOptions keep;
    keep.keep_dims = true;
    b.AddOperator(op::kReduceProd, {m, b.AddConstantInt32("axes", {1}, {3})}, {y}, keep);
    b.SetInputs({x});
    b.SetOutputs({y});
  });
  // x [2, 6] -> SPLIT in two -> PACK again -> SLICE; and SPLIT_V / UNPACK outputs.
  builds.push_back([](ModelBuilder& b) {
    const int x = b.AddTensor("x", {2, 6});
    const int a = b.AddTensor("a", {2, 3});
    const int c = b.AddTensor("c", {2, 3});
    OpOptions two;
    two.num_splits = 2;
    b.AddOperator(op::kSplit, {b.AddConstantInt32("axis", {}, {1}), x}, {a, c}, two);
    const int p = b.AddTensor("packed", {2, 2, 3});
    OpOptions pack;
    pack.values_count = 2;
    b.AddOperator(op::kPack, {a, c}, {p}, pack);
    const int s = b.AddTensor("sliced", {1, 2, 2});
    b.AddOperator(op::kSlice,
                  {p, b.AddConstantInt32("begin", {3}, {1, 0, 1}),
                   b.AddConstantInt32("size", {3}, {1, -1, 2})},
                  {s});
    const int v0 = b.AddTensor("v0", {2, 1});
    const int v1 = b.AddTensor("v1", {2, 5});
    b.AddOperator(op::kSplitV,
                  {x, b.AddConstantInt32("sizes", {2}, {1, -1}), b.AddConstantInt32("ax", {}, {1})},
                  {v0, v1}, two);
    const int u0 = b.AddTensor("u0", {6});
    const int u1 = b.AddTensor("u1", {6});
    OpOptions unpack;
    unpack.values_count = 2;
    b.AddOperator(op::kUnpack, {x}, {u0, u1}, unpack);
    b.SetInputs({x});
    b.SetOutputs({s, v1, u1});
  });
  // x [1, 4, 4, 2] -> SPACE_TO_DEPTH -> DEPTH_TO_SPACE -> MIRROR_PAD -> RESIZE_BILINEAR ->
  // SPACE_TO_BATCH_ND -> BATCH_TO_SPACE_ND -> CUMSUM.
  builds.push_back([](ModelBuilder& b) {
    const int x = b.AddTensor("x", {1, 4, 4, 2});
    OpOptions block;
    block.block_size = 2;
    const int d = b.AddTensor("deep", {1, 2, 2, 8});
    b.AddOperator(op::kSpaceToDepth, {x}, {d}, block);
    const int s = b.AddTensor("space", {1, 4, 4, 2});
    b.AddOperator(op::kDepthToSpace, {d}, {s}, block);
    const int m = b.AddTensor("mirrored", {1, 6, 6, 2});
    b.AddOperator(op::kMirrorPad, {s, b.AddConstantInt32("pads", {4, 2}, {0, 0, 1, 1, 1, 1, 0, 0})},
                  {m});
    const int r = b.AddTensor("resized", {1, 4, 4, 2});
    OpOptions half;
    half.half_pixel_centers = true;
    b.AddOperator(op::kResizeBilinear, {m, b.AddConstantInt32("size", {2}, {4, 4})}, {r}, half);
    const int sb = b.AddTensor("batched", {4, 2, 2, 2});
    b.AddOperator(op::kSpaceToBatchNd,
                  {r, b.AddConstantInt32("block", {2}, {2, 2}),
                   b.AddConstantInt32("zero_pads", {2, 2}, {0, 0, 0, 0})},
                  {sb});
    const int bs = b.AddTensor("unbatched", {1, 4, 4, 2});
    b.AddOperator(op::kBatchToSpaceNd,
                  {sb, b.AddConstantInt32("block2", {2}, {2, 2}),
                   b.AddConstantInt32("crops", {2, 2}, {0, 0, 0, 0})},
                  {bs});
    const int y = b.AddTensor("y", {1, 4, 4, 2});
    b.AddOperator(op::kCumsum, {bs, b.AddConstantInt32("cum_axis", {}, {2})}, {y});
    b.SetInputs({x});
    b.SetOutputs({y});
  });
  // x [1, 2, 2, 3] -> TRANSPOSE_CONV (stride 2) -> RESIZE_NEAREST_NEIGHBOR -> PADV2 ->
  // GATHER_ND -> L2_NORMALIZATION -> LOG_SOFTMAX.
  builds.push_back([](ModelBuilder& b) {
    const int x = b.AddTensor("x", {1, 2, 2, 3});
    OpOptions stride;
    stride.stride_h = 2;
    stride.stride_w = 2;
    stride.padding = Padding::kValid;
    const int t = b.AddTensor("up", {1, 4, 4, 2});
    b.AddOperator(op::kTransposeConv,
                  {b.AddConstantInt32("shape", {4}, {1, 4, 4, 2}),
                   b.AddConstant("w", {2, 2, 2, 3}, std::vector<float>(24, 0.25f)), x,
                   b.AddConstant("bias", {2}, {0.5f, -0.5f})},
                  {t}, stride);
    const int n = b.AddTensor("nearest", {1, 2, 2, 2});
    b.AddOperator(op::kResizeNearestNeighbor, {t, b.AddConstantInt32("size", {2}, {2, 2})}, {n});
    const int p = b.AddTensor("padded", {1, 3, 3, 2});
    b.AddOperator(op::kPadV2,
                  {n, b.AddConstantInt32("pads", {4, 2}, {0, 0, 1, 0, 0, 1, 0, 0}),
                   b.AddConstant("fill", {}, {2.0f})},
                  {p});
    const int g = b.AddTensor("gathered", {2, 3, 2});
    b.AddOperator(op::kGatherNd, {p, b.AddConstantInt32("idx", {2, 2}, {0, 2, 0, 1})}, {g});
    const int l = b.AddTensor("normal", {2, 3, 2});
    b.AddOperator(op::kL2Normalization, {g}, {l});
    const int y = b.AddTensor("y", {2, 3, 2});
    b.AddOperator(op::kLogSoftmax, {l}, {y});
    b.SetInputs({x});
    b.SetOutputs({y});
  });
  // x [2, 3] -> GREATER than 0 -> SELECT_V2 with a FILL; ARG_MAX -> CAST; ADD_N; PRELU.
  builds.push_back([](ModelBuilder& b) {
    const int x = b.AddTensor("x", {2, 3});
    const int positive = b.AddTensor("positive", {2, 3}, ElementType::kBool);
    b.AddOperator(op::kGreater, {x, b.AddConstant("zero", {}, {0.0f})}, {positive});
    const int not_positive = b.AddTensor("not_positive", {2, 3}, ElementType::kBool);
    b.AddOperator(op::kLogicalNot, {positive}, {not_positive});
    const int fill = b.AddTensor("fill", {2, 3});
    b.AddOperator(op::kFill,
                  {b.AddConstantInt32("dims", {2}, {2, 3}), b.AddConstant("v", {}, {7.0f})},
                  {fill});
    const int chosen = b.AddTensor("chosen", {2, 3});
    b.AddOperator(op::kSelectV2, {not_positive, fill, x}, {chosen});
    const int index = b.AddTensor("index", {2}, ElementType::kInt32);
    b.AddOperator(op::kArgMax, {chosen, b.AddConstantInt32("axis", {}, {1})}, {index});
    const int as_float = b.AddTensor("as_float", {2});
    b.AddOperator(op::kCast, {index}, {as_float});
    const int sum = b.AddTensor("sum", {2, 3});
    b.AddOperator(op::kAddN, {x, chosen, fill}, {sum});
    const int y = b.AddTensor("y", {2, 3});
    b.AddOperator(op::kPrelu, {sum, b.AddConstant("alpha", {3}, {0.1f, 0.2f, 0.3f})}, {y});
    b.SetInputs({x});
    b.SetOutputs({y, as_float});
  });
  std::vector<std::vector<uint8_t>> models;
  for (const auto& build : builds) {
    ModelBuilder b;
    build(b);
    std::vector<uint8_t> bytes;
    if (b.Finish(&bytes).ok()) models.push_back(std::move(bytes));
  }
  return models;
}

}  // namespace trainscope::testing
