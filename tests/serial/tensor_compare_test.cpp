// SPDX-License-Identifier: Apache-2.0
//
// The figures of a board-vs-reference comparison against hand-computed values, and the
// desktop's reassembly of a REQUEST_TENSOR answer against lost, lying and foreign frames.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "serial/compare/step_comparison.h"
#include "serial/compare/tensor_metrics.h"
#include "serial/link/tensor_assembler.h"

namespace trainscope {
namespace {

TEST(TensorMetrics, HandComputedCase) {
  // board - reference = (0, 0, 3, -4): ||d|| = 5, ||ref|| = sqrt(1+4+9+16) = sqrt(30).
  const float reference[] = {1.0f, 2.0f, 3.0f, 4.0f};
  const float board[] = {1.0f, 2.0f, 6.0f, 0.0f};
  const TensorDifference d = CompareTensors(board, reference, 4);
  EXPECT_EQ(d.count, 4u);
  EXPECT_DOUBLE_EQ(d.max_abs, 4.0);
  EXPECT_EQ(d.max_abs_index, 3u);
  EXPECT_DOUBLE_EQ(d.rmse, std::sqrt(25.0 / 4.0));
  EXPECT_DOUBLE_EQ(d.relative_l2, 5.0 / std::sqrt(30.0));
  // a.b = 1 + 4 + 18 + 0 = 23; |a| = sqrt(41).
  EXPECT_DOUBLE_EQ(d.cosine, 23.0 / (std::sqrt(41.0) * std::sqrt(30.0)));
  EXPECT_TRUE(Diverges(d, DivergenceThresholds{}));
}

TEST(TensorMetrics, UlpAndIdentity) {
  const float one = 1.0f;
  const float next = std::nextafter(1.0f, 2.0f);
  EXPECT_EQ(UlpDistance(one, next), 1u);
  EXPECT_EQ(UlpDistance(0.0f, -0.0f), 0u);
  EXPECT_EQ(UlpDistance(-std::numeric_limits<float>::denorm_min(),
                        std::numeric_limits<float>::denorm_min()),
            2u);
  const float a[] = {one, 2.0f};
  const float b[] = {next, 2.0f};
  const TensorDifference d = CompareTensors(a, b, 2);
  EXPECT_EQ(d.max_ulp, 1u);
  EXPECT_FALSE(Diverges(d, DivergenceThresholds{}));
  DivergenceThresholds exact;
  exact.max_ulp = 0;
  EXPECT_TRUE(Diverges(d, exact));
}

TEST(TensorMetrics, NonFiniteValuesAreCountedNotMixedIn) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float board[] = {nan, inf, 1.0f, nan};
  const float reference[] = {nan, -inf, 1.0f, 2.0f};
  const TensorDifference d = CompareTensors(board, reference, 4);
  EXPECT_EQ(d.count, 1u);                 // only the finite pair
  EXPECT_EQ(d.nonfinite_mismatches, 2u);  // +Inf vs -Inf, NaN vs 2
  EXPECT_EQ(d.board_nonfinite, 3u);
  EXPECT_EQ(d.reference_nonfinite, 2u);
  EXPECT_DOUBLE_EQ(d.max_abs, 0.0);
  EXPECT_TRUE(Diverges(d, DivergenceThresholds{}));
}

wire::TensorHeaderMessage Header(uint16_t id, uint32_t count) {
  wire::TensorHeaderMessage h;
  h.command_id = id;
  h.tensor = 5;
  h.aspect = wire::TensorAspect::kGradient;
  h.rank = 2;
  h.dims[0] = 2;
  h.dims[1] = static_cast<int32_t>(count / 2);
  h.value_count = count;
  return h;
}

wire::TensorChunkMessage Chunk(uint16_t id, uint32_t offset, uint8_t count) {
  wire::TensorChunkMessage c;
  c.command_id = id;
  c.offset = offset;
  c.count = count;
  for (uint8_t i = 0; i < count; ++i) c.values[i] = static_cast<float>(offset + i);
  return c;
}

TEST(TensorAssembler, ChunksInOrderComplete) {
  TensorAssembler a;
  a.Expect(9, 5, wire::TensorAspect::kGradient);
  a.OnChunk(Chunk(8, 0, 48));  // an older request's leftovers
  a.OnHeader(Header(9, 100));
  a.OnChunk(Chunk(9, 0, 48));
  a.OnChunk(Chunk(9, 48, 48));
  EXPECT_EQ(a.state(), TensorAssembler::State::kReceiving);
  a.OnChunk(Chunk(9, 96, 4));
  ASSERT_EQ(a.state(), TensorAssembler::State::kDone);
  EXPECT_EQ(a.foreign_frames(), 1u);
  EXPECT_EQ(a.values().size(), 100u);
  EXPECT_EQ(a.values()[99], 99.0f);
  EXPECT_EQ(a.shape(), (std::vector<int32_t>{2, 50}));
}

TEST(TensorAssembler, LostChunkFailsAndSaysWhere) {
  TensorAssembler a;
  a.Expect(9, 5, wire::TensorAspect::kGradient);
  a.OnHeader(Header(9, 100));
  a.OnChunk(Chunk(9, 0, 48));
  a.OnChunk(Chunk(9, 96, 4));  // 48..95 never came
  ASSERT_EQ(a.state(), TensorAssembler::State::kFailed);
  EXPECT_NE(a.error().find("starting at value 96 arrived after 48 of 100"), std::string::npos)
      << a.error();
}

TEST(TensorAssembler, LyingHeadersAndOverrunsFail) {
  TensorAssembler a;
  a.Expect(1, 5, wire::TensorAspect::kGradient);
  wire::TensorHeaderMessage lie = Header(1, 100);
  lie.value_count = 101;  // the shape holds 100
  a.OnHeader(lie);
  EXPECT_EQ(a.state(), TensorAssembler::State::kFailed);

  a.Expect(2, 5, wire::TensorAspect::kGradient);
  a.OnHeader(Header(2, 10));
  a.OnChunk(Chunk(2, 0, 11));
  EXPECT_EQ(a.state(), TensorAssembler::State::kFailed);

  a.Expect(3, 5, wire::TensorAspect::kGradient);
  wire::TensorHeaderMessage huge = Header(3, 2);
  huge.dims[0] = 1 << 16;
  huge.dims[1] = 1 << 16;
  huge.value_count = wire::kMaxTensorValues + 1;
  a.OnHeader(huge);
  EXPECT_EQ(a.state(), TensorAssembler::State::kFailed);
}

TEST(TensorAssembler, RefusalKeepsTheBoardsReasonAndAbandonSaysHowFar) {
  TensorAssembler a;
  a.Expect(4, 5, wire::TensorAspect::kGradient);
  wire::TensorHeaderMessage refused = Header(4, 0);
  refused.result = wire::TensorReadResult::kNotHeld;
  refused.reason.Assign("not held at this point of the step");
  a.OnHeader(refused);
  ASSERT_EQ(a.state(), TensorAssembler::State::kRefused);
  EXPECT_EQ(a.reason(), "not held at this point of the step");

  a.Expect(5, 5, wire::TensorAspect::kGradient);
  a.OnHeader(Header(5, 100));
  a.OnChunk(Chunk(5, 0, 48));
  a.Abandon("the link went quiet");
  ASSERT_EQ(a.state(), TensorAssembler::State::kFailed);
  EXPECT_NE(a.error().find("after 48 of 100 values"), std::string::npos) << a.error();
}

ProbeReading Reading(ProbeMoment moment, std::vector<float> values) {
  ProbeReading r;
  r.point.moment = moment;
  r.read.tensor = 3;
  r.read.aspect = TensorAspect::kValue;
  r.read.role = "weights";
  r.held = true;
  r.copy.shape = {static_cast<int32_t>(values.size())};
  r.copy.values = std::move(values);
  return r;
}

TEST(CompareStep, AWrongUpdateOnLargeWeightsDivergesAsAnUpdate) {
  // Weights 1000 moved by -0.1 on the reference and -0.01 on the board: relative to the weights
  // the difference is 0.09 / 999.9 = 9e-5 (below the default 1e-4); relative to the update it
  // is 0.09 / 0.1 = 0.9.
  const std::vector<ProbeReading> start = {Reading(ProbeMoment::kStepStart, {1000.0f, 1000.0f})};
  const std::vector<ProbeReading> board = {Reading(ProbeMoment::kAfterUpdate, {999.99f, 999.9f})};
  const std::vector<ProbeReading> reference = {
      Reading(ProbeMoment::kAfterUpdate, {999.9f, 999.9f})};
  const StepComparison without = CompareStep(board, reference, DivergenceThresholds{});
  ASSERT_EQ(without.tensors.size(), 1u);
  EXPECT_LT(without.first_divergent, 0);

  const StepComparison c = CompareStep(board, reference, DivergenceThresholds{}, &start);
  ASSERT_EQ(c.tensors.size(), 2u);
  EXPECT_EQ(c.compared, 2u);
  EXPECT_FALSE(c.tensors[0].divergent);
  const TensorComparison& update = c.tensors[1];
  EXPECT_EQ(update.read.role, "update of weights");
  EXPECT_TRUE(update.divergent);
  EXPECT_EQ(c.first_divergent, 1);
  EXPECT_EQ(c.largest, 1);
  // The updates themselves: the board's first element moved by 999.99 - 1000 in float.
  ASSERT_EQ(update.board_update.size(), 2u);
  EXPECT_FLOAT_EQ(update.board_update[0], 999.99f - 1000.0f);
  EXPECT_FLOAT_EQ(update.reference_update[0], 999.9f - 1000.0f);
  const double numerator = std::abs((999.99f - 1000.0f) - (999.9f - 1000.0f));
  const double denominator = std::sqrt(2.0) * std::abs(999.9f - 1000.0f);
  EXPECT_NEAR(update.difference.relative_l2, numerator / denominator, 1e-6);
}

TEST(CompareStep, AnUpdateThatDiffersByTheWeightsRoundingDoesNotDiverge) {
  // Converged: the reference moves 1.0 by 2 floats, the board by 1. As an update that is 50 %
  // off; as weights it is one float step, which another libm gives a correct board.
  const float w = 1.0f;
  const float one_step = std::nextafter(w, 0.0f);
  const float two_steps = std::nextafter(one_step, 0.0f);
  const std::vector<ProbeReading> start = {Reading(ProbeMoment::kStepStart, {w})};
  const std::vector<ProbeReading> board = {Reading(ProbeMoment::kAfterUpdate, {one_step})};
  const std::vector<ProbeReading> reference = {Reading(ProbeMoment::kAfterUpdate, {two_steps})};
  const StepComparison c = CompareStep(board, reference, DivergenceThresholds{}, &start);
  ASSERT_EQ(c.tensors.size(), 2u);
  const TensorComparison& update = c.tensors[1];
  EXPECT_TRUE(IsUpdateComparison(update));
  EXPECT_GT(update.difference.relative_l2, 0.4);
  EXPECT_EQ(update.difference.max_ulp, 1u);  // the weights' distance
  EXPECT_FALSE(update.divergent);
  EXPECT_LT(c.first_divergent, 0);
}

TEST(CompareStep, GradientsAndUnheldStartsGetNoUpdateComparison) {
  std::vector<ProbeReading> start = {Reading(ProbeMoment::kStepStart, {1.0f})};
  start[0].held = false;
  std::vector<ProbeReading> gradient = {Reading(ProbeMoment::kAfterUpdate, {2.0f})};
  gradient[0].read.aspect = TensorAspect::kGradient;
  EXPECT_EQ(CompareStep(gradient, gradient, DivergenceThresholds{}, &start).tensors.size(), 1u);
  const std::vector<ProbeReading> value = {Reading(ProbeMoment::kAfterUpdate, {2.0f})};
  EXPECT_EQ(CompareStep(value, value, DivergenceThresholds{}, &start).tensors.size(), 1u);
}

}  // namespace
}  // namespace trainscope
