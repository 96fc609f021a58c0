// SPDX-License-Identifier: Apache-2.0
//
// Hand-computed forward cases for RESIZE_BILINEAR (default, align_corners and half_pixel_centers
// coordinates), RESIZE_NEAREST_NEIGHBOR (the same three modes) and TRANSPOSE_CONV (strided
// without overlap, overlapping taps, SAME padding, several channels, bias and the shape checks).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "tests/engine/kernels/kernel_harness.h"
#include "tests/engine/kernels/op_models.h"

namespace trainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using testing::In;
using testing::Ints;
using testing::OneOp;
using ::testing::Pointwise;
using testing::RunSingleOutput;
using testing::TryRun;

std::vector<float> Resize(int32_t opcode, std::vector<int32_t> in, std::vector<int32_t> out,
                          const std::vector<float>& x, bool align_corners = false,
                          bool half_pixel = false) {
  OpOptions options;
  options.align_corners = align_corners;
  options.half_pixel_centers = half_pixel;
  const std::vector<int32_t> size = {out[1], out[2]};
  return RunSingleOutput(OneOp(opcode, {In(std::move(in)), Ints({2}, size)}, out, options), {x});
}

TEST(ResizeBilinear, TwoByTwoToThreeByThree) {
  // Scale 2/3: rows at 0, 2/3 and 4/3 (clamped to row 1), likewise columns.
  EXPECT_THAT(Resize(op::kResizeBilinear, {1, 2, 2, 1}, {1, 3, 3, 1}, {1, 2, 3, 4}),
              Pointwise(FloatNear(1e-6f),
                        {1.0f, 5.0f / 3, 2.0f, 7.0f / 3, 3.0f, 10.0f / 3, 3.0f, 11.0f / 3, 4.0f}));
}

TEST(ResizeBilinear, AlignCornersKeepsTheCornerPixels) {
  EXPECT_THAT(Resize(op::kResizeBilinear, {1, 2, 2, 1}, {1, 3, 3, 1}, {1, 2, 3, 4}, true),
              Pointwise(FloatNear(1e-6f), {1.0f, 1.5f, 2.0f, 2.0f, 2.5f, 3.0f, 3.0f, 3.5f, 4.0f}));
}

TEST(ResizeBilinear, HalfPixelCentersSampleBetweenPixels) {
  // Rows at -0.25 (clamped), 0.25, 0.75 and 1.25 (clamped) of the column [1, 3].
  EXPECT_THAT(Resize(op::kResizeBilinear, {1, 2, 1, 1}, {1, 4, 1, 1}, {1, 3}, false, true),
              Pointwise(FloatNear(1e-6f), {1.0f, 1.5f, 2.5f, 3.0f}));
}

TEST(ResizeBilinear, ChannelsAreInterpolatedSeparately) {
  EXPECT_THAT(Resize(op::kResizeBilinear, {1, 1, 2, 2}, {1, 1, 3, 2}, {0, 10, 2, 20}, true),
              Pointwise(FloatNear(1e-6f), {0.0f, 10.0f, 1.0f, 15.0f, 2.0f, 20.0f}));
}

TEST(ResizeBilinear, ASizeOperandThatDisagreesWithTheOutputIsRefused) {
  EXPECT_THAT(
      TryRun(OneOp(op::kResizeBilinear, {In({1, 2, 2, 1}), Ints({2}, {4, 4})}, {1, 3, 3, 1}),
             {{1, 2, 3, 4}})
          .message(),
      HasSubstr("size (4, 4) is not the graph's output height and width (3, 3)"));
  OpOptions both;
  both.align_corners = true;
  both.half_pixel_centers = true;
  EXPECT_THAT(
      TryRun(OneOp(op::kResizeBilinear, {In({1, 2, 2, 1}), Ints({2}, {3, 3})}, {1, 3, 3, 1}, both),
             {{1, 2, 3, 4}})
          .message(),
      HasSubstr("cannot both be set"));
}

TEST(ResizeNearestNeighbor, FloorsRoundsOrSamplesCentresByMode) {
  // Width 3 -> 2: scale 1.5 (floor 0, 1.5 -> 0, 1); align_corners scale 2 (0, 2); half pixel
  // samples 0.75 and 2.25 (0, 2).
  EXPECT_THAT(Resize(op::kResizeNearestNeighbor, {1, 1, 3, 1}, {1, 1, 2, 1}, {1, 2, 3}),
              ElementsAre(1.0f, 2.0f));
  EXPECT_THAT(Resize(op::kResizeNearestNeighbor, {1, 1, 3, 1}, {1, 1, 2, 1}, {1, 2, 3}, true),
              ElementsAre(1.0f, 3.0f));
  EXPECT_THAT(
      Resize(op::kResizeNearestNeighbor, {1, 1, 3, 1}, {1, 1, 2, 1}, {1, 2, 3}, false, true),
      ElementsAre(1.0f, 3.0f));
}

TEST(ResizeNearestNeighbor, UpscalingRepeatsPixels) {
  EXPECT_THAT(Resize(op::kResizeNearestNeighbor, {1, 2, 2, 1}, {1, 4, 4, 1}, {1, 2, 3, 4}),
              ElementsAreArray({1.0f, 1.0f, 2.0f, 2.0f, 1.0f, 1.0f, 2.0f, 2.0f, 3.0f, 3.0f, 4.0f,
                                4.0f, 3.0f, 3.0f, 4.0f, 4.0f}));
}

// y = TRANSPOSE_CONV(output_shape, w, x[, bias]) with w and x graph inputs.
std::vector<float> TransposeConv(std::vector<int32_t> w_shape, std::vector<int32_t> x_shape,
                                 std::vector<int32_t> out, const OpOptions& options,
                                 const std::vector<float>& w, const std::vector<float>& x,
                                 const std::vector<float>& bias = {}) {
  std::vector<testing::Operand> operands = {Ints({4}, out), In(std::move(w_shape)),
                                            In(std::move(x_shape))};
  std::vector<std::vector<float>> inputs = {w, x};
  if (!bias.empty()) {
    operands.push_back(In({static_cast<int32_t>(bias.size())}));
    inputs.push_back(bias);
  }
  return RunSingleOutput(OneOp(op::kTransposeConv, operands, out, options), inputs);
}

OpOptions Strides(int stride, Padding padding) {
  OpOptions options;
  options.stride_h = stride;
  options.stride_w = stride;
  options.padding = padding;
  return options;
}

TEST(TransposeConv, StrideTwoScattersEachPixelIntoItsOwnBlock) {
  EXPECT_THAT(TransposeConv({1, 2, 2, 1}, {1, 2, 2, 1}, {1, 4, 4, 1}, Strides(2, Padding::kValid),
                            {1, 1, 1, 1}, {1, 2, 3, 4}),
              ElementsAreArray({1.0f, 1.0f, 2.0f, 2.0f, 1.0f, 1.0f, 2.0f, 2.0f, 3.0f, 3.0f, 4.0f,
                                4.0f, 3.0f, 3.0f, 4.0f, 4.0f}));
}

TEST(TransposeConv, OverlappingTapsAddUpAndTheBiasFollows) {
  // y[oh, ow] = sum x[ih, iw] * w[oh - ih, ow - iw], x = [[1, 2], [3, 4]], w = [[1, 2], [3, 4]].
  EXPECT_THAT(TransposeConv({1, 2, 2, 1}, {1, 2, 2, 1}, {1, 3, 3, 1}, Strides(1, Padding::kValid),
                            {1, 2, 3, 4}, {1, 2, 3, 4}, {1}),
              ElementsAreArray({2.0f, 5.0f, 5.0f, 7.0f, 21.0f, 17.0f, 10.0f, 25.0f, 17.0f}));
}

TEST(TransposeConv, SamePaddingCropsTheOddCellAfter) {
  EXPECT_THAT(TransposeConv({1, 2, 2, 1}, {1, 2, 2, 1}, {1, 2, 2, 1}, Strides(1, Padding::kSame),
                            {1, 2, 3, 4}, {1, 2, 3, 4}),
              ElementsAre(1.0f, 4.0f, 6.0f, 20.0f));
}

TEST(TransposeConv, WeightsAreOutputChannelsFirstAndInputChannelsLast) {
  // One pixel with channels (1, 10); filters [1, 2] and [3, 4].
  EXPECT_THAT(TransposeConv({2, 1, 1, 2}, {1, 1, 1, 2}, {1, 1, 1, 2}, Strides(1, Padding::kValid),
                            {1, 2, 3, 4}, {1, 10}),
              ElementsAre(21.0f, 43.0f));
}

TEST(TransposeConv, AnOutputTheConvolutionDoesNotMapBackIsRefused) {
  const Status status = TryRun(
      OneOp(op::kTransposeConv, {Ints({4}, {1, 5, 5, 1}), In({1, 2, 2, 1}), In({1, 2, 2, 1})},
            {1, 5, 5, 1}, Strides(1, Padding::kValid)),
      {{1, 1, 1, 1}, {1, 2, 3, 4}});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("gives 4 x 4, not the input's 2 x 2"));
}

}  // namespace
}  // namespace trainscope
