// SPDX-License-Identifier: Apache-2.0
//
// The diff report read back: two reports shaped like real ones (simple_mnist against the plain
// simulator: everything agrees; against onert-micro's LOWER half update: a small difference in
// the updated weights), divergence decided again under other thresholds, the first divergent op
// in the order the step reached it, the model check, and files refused with the field named.
#include <gtest/gtest.h>

#include <QByteArray>
#include <QString>

#include <limits>

#include "tests/ui/test_models.h"
#include "ui/session/step_comparison_file.h"

namespace trainscope {
namespace {

// MakeMlp({4, 2}): op 0 FULLY_CONNECTED (input, dense1/w, dense1/b -> dense1/y), op 1 SOFTMAX.
// A batch-1 SGD step: softmax's output and gradient, the dense layer's weight gradient with its
// values, an input gradient held on neither side, and the weights after the update.
QByteArray PlainReport(const char* update_figures = nullptr) {
  QByteArray json = R"json({
  "board": "trainscope-board-sim", "endpoint": "tcp://127.0.0.1:34621",
  "model": "/models/simple_mnist/model.circle", "step": 7200,
  "thresholds": {"max_abs": "inf", "min_cosine": -1, "relative_l2": 0.0001},
  "ops": [
    {"op": 1, "opcode": "SOFTMAX", "backward_step": 0, "divergent": false, "tensors": [
      {"tensor": 4, "name": "dense1/softmax", "role": "output", "aspect": "value", "sample": 0,
       "board_held": true, "reference_held": true, "divergent": false, "shape": [1, 2],
       "shape_matches": true, "count": 2, "max_abs": 0, "max_abs_index": 0, "rmse": 0,
       "relative_l2": 0, "cosine": 1, "max_ulp": 0, "nonfinite_mismatches": 0,
       "board_nonfinite": 0, "reference_nonfinite": 0,
       "board_values": [0.25, 0.75], "reference_values": [0.25, 0.75]},
      {"tensor": 4, "name": "dense1/softmax", "role": "output gradient", "aspect": "gradient",
       "sample": 0, "board_held": true, "reference_held": true, "divergent": false,
       "shape": [1, 2], "shape_matches": true, "count": 2, "max_abs": 0, "max_abs_index": 0,
       "rmse": 0, "relative_l2": 0, "cosine": 1, "max_ulp": 0, "nonfinite_mismatches": 0,
       "board_nonfinite": 0, "reference_nonfinite": 0}]},
    {"op": 0, "opcode": "FULLY_CONNECTED", "backward_step": 1, "divergent": false, "tensors": [
      {"tensor": 1, "name": "dense1/w", "role": "weights gradient", "aspect": "gradient",
       "sample": 0, "board_held": true, "reference_held": true, "divergent": false,
       "shape": [2, 4], "shape_matches": true, "count": 8, "max_abs": 0, "max_abs_index": 0,
       "rmse": 0, "relative_l2": 0, "cosine": 1.0000000000000002, "max_ulp": 0,
       "nonfinite_mismatches": 0, "board_nonfinite": 0, "reference_nonfinite": 0},
      {"tensor": 0, "name": "input", "role": "input 0 gradient", "aspect": "gradient",
       "sample": 0, "board_held": false, "reference_held": false, "divergent": false,
       "board_reason": "input has no gradient here (frozen, outside the backward range, or not yet computed)",
       "reference_reason": "input has no gradient here (frozen, outside the backward range, or not yet computed)"}]}],
  "update": [
    {"op": 0, "tensor": 1, "name": "dense1/w", "role": "weights", "aspect": "value",
     "sample": 0, "board_held": true, "reference_held": true, "divergent": false,
     "shape": [2, 4], "shape_matches": true, "count": 8, "nonfinite_mismatches": 0,
     "board_nonfinite": 0, "reference_nonfinite": 0, UPDATE}],
  "compared": 4, "held_on_one_side": 0,
  "transfer": {"chunks": 63, "not_held": 1, "payload_bytes": 9050, "requests": 26,
               "seconds": 0.002045177, "values": 1984, "wire_bytes": 9940},
  "first_divergent_op": null
})json";
  // The LOWER half report's updated weights: within 1e-4, but not bit-identical.
  json.replace("UPDATE", update_figures != nullptr
                             ? update_figures
                             : R"("max_abs": 0, "max_abs_index": 0, "rmse": 0, "relative_l2": 0,
                                  "cosine": 1, "max_ulp": 0)");
  return json;
}

constexpr const char* kLowerHalfUpdate =
    R"("max_abs": 0.0006546974182128906, "max_abs_index": 5, "rmse": 0.0002637450417071191,
       "relative_l2": 8.476431701603399e-05, "cosine": 0.9999999980081395, "max_ulp": 1159391)";

StepComparisonPtr Parse(const QByteArray& json) {
  StepComparisonPtr file;
  const Status status = ParseStepComparison(json, &file);
  EXPECT_TRUE(status.ok()) << status.message();
  return file;
}

std::string ErrorOf(const QByteArray& json) {
  StepComparisonPtr file;
  const Status status = ParseStepComparison(json, &file);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(file, nullptr);
  return status.message();
}

QByteArray Replaced(QByteArray json, const char* what, const char* with) {
  EXPECT_TRUE(json.contains(what)) << what;
  return json.replace(json.indexOf(what), qsizetype(qstrlen(what)), with);
}

TEST(StepComparisonFile, ReadsAReportWhereEverythingAgrees) {
  const StepComparisonPtr file = Parse(PlainReport());
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->board, QStringLiteral("trainscope-board-sim"));
  EXPECT_EQ(file->model, QStringLiteral("/models/simple_mnist/model.circle"));
  EXPECT_EQ(file->step, 7200u);
  EXPECT_DOUBLE_EQ(file->thresholds.relative_l2, 1e-4);
  EXPECT_EQ(file->thresholds.max_abs, std::numeric_limits<double>::infinity());
  EXPECT_EQ(file->thresholds.max_ulp, std::numeric_limits<uint64_t>::max());  // not written
  ASSERT_EQ(file->ops.size(), 2u);
  EXPECT_EQ(file->ops[0].op, 1u);
  EXPECT_EQ(file->ops[0].opcode, QStringLiteral("SOFTMAX"));
  EXPECT_EQ(file->ops[1].tensors.size(), 2u);
  ASSERT_EQ(file->tensors.size(), 5u);
  EXPECT_EQ(file->update_begin, 4u);
  const ComparedTensor& output = file->tensors[0];
  EXPECT_TRUE(output.has_values);
  EXPECT_EQ(output.board_values, (std::vector<float>{0.25f, 0.75f}));
  EXPECT_EQ(output.pair.read.aspect, TensorAspect::kValue);
  const ComparedTensor& missing = file->tensors[3];
  EXPECT_FALSE(missing.bothHeld());
  EXPECT_EQ(missing.valueCount(), 0u);
  EXPECT_NE(missing.pair.board_reason.find("has no gradient"), std::string::npos);
  const ComparedTensor& weights = file->tensors[4];
  EXPECT_EQ(weights.pair.point.moment, ProbeMoment::kAfterUpdate);
  EXPECT_EQ(weights.pair.read.op_index, 0u);
  EXPECT_EQ(weights.valueCount(), 8u);
  EXPECT_EQ(file->transfer.wire_bytes, 9940u);
  EXPECT_DOUBLE_EQ(file->transfer.seconds, 0.002045177);
  EXPECT_EQ(file->file_first_divergent_op, -1);

  const ComparisonVerdict verdict = EvaluateComparison(*file, file->thresholds);
  EXPECT_EQ(verdict.first_divergent_op, -1);
  EXPECT_EQ(verdict.divergent_tensors, 0u);
  EXPECT_TRUE(CheckFitsModel(*file, testing::MakeMlp({4, 2}).main()).ok());
}

TEST(StepComparisonFile, TheLowerHalfUpdateDivergesOnceTheThresholdIsBelowIt) {
  const StepComparisonPtr file = Parse(PlainReport(kLowerHalfUpdate));
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(EvaluateComparison(*file, file->thresholds).first_divergent_op, -1);

  DivergenceThresholds tighter = file->thresholds;
  tighter.relative_l2 = 5e-5;
  const ComparisonVerdict verdict = EvaluateComparison(*file, tighter);
  EXPECT_EQ(verdict.first_divergent_tensor, 4);
  EXPECT_EQ(verdict.first_divergent_op, 0);
  EXPECT_EQ(verdict.divergent_tensors, 1u);
  EXPECT_EQ(verdict.largest, 4);
  // The update is no backward op: the ops' own rows stay within.
  EXPECT_EQ(verdict.op_divergent, (std::vector<bool>{false, false}));

  DivergenceThresholds ulp = file->thresholds;
  ulp.max_ulp = 1000;  // every other tensor is bit-identical
  EXPECT_EQ(EvaluateComparison(*file, ulp).first_divergent_tensor, 4);
}

TEST(StepComparisonFile, FirstDivergentOpFollowsTheStepAcrossSamples) {
  // Sample 1 of softmax differs, and sample 0 of the dense layer, which the step reaches first.
  QByteArray json = Replaced(PlainReport(), R"("role": "output gradient", "aspect": "gradient",
       "sample": 0)",
                             R"("role": "output gradient", "aspect": "gradient",
       "sample": 1)");
  json = Replaced(
      json, R"("rmse": 0, "relative_l2": 0, "cosine": 1, "max_ulp": 0, "nonfinite_mismatches": 0,
       "board_nonfinite": 0, "reference_nonfinite": 0}]},)",
      R"("rmse": 0, "relative_l2": 0.5, "cosine": 1, "max_ulp": 0, "nonfinite_mismatches": 0,
       "board_nonfinite": 0, "reference_nonfinite": 0}]},)");
  json = Replaced(json, R"("relative_l2": 0, "cosine": 1.0000000000000002)",
                  R"("relative_l2": 0.25, "cosine": 1.0000000000000002)");
  const StepComparisonPtr file = Parse(json);
  ASSERT_NE(file, nullptr);
  const ComparisonVerdict verdict = EvaluateComparison(*file, file->thresholds);
  EXPECT_EQ(verdict.first_divergent_op, 0);
  EXPECT_EQ(verdict.first_divergent_tensor, 2);
  EXPECT_EQ(verdict.op_divergent, (std::vector<bool>{true, true}));
  EXPECT_EQ(verdict.largest, 1);
}

TEST(StepComparisonFile, ANaNMismatchAlwaysDivergesAndShapesThatDifferToo) {
  QByteArray json =
      Replaced(PlainReport(), R"("count": 2, "max_abs": 0, "max_abs_index": 0, "rmse": 0,
       "relative_l2": 0, "cosine": 1, "max_ulp": 0, "nonfinite_mismatches": 0,
       "board_nonfinite": 0, "reference_nonfinite": 0,
       "board_values": [0.25, 0.75])",
               R"("count": 1, "max_abs": 0, "max_abs_index": 0, "rmse": 0,
       "relative_l2": 0, "cosine": 1, "max_ulp": 0, "nonfinite_mismatches": 1,
       "board_nonfinite": 1, "reference_nonfinite": 0,
       "board_values": ["nan", 0.75])");
  StepComparisonPtr file = Parse(json);
  ASSERT_NE(file, nullptr);
  EXPECT_TRUE(std::isnan(file->tensors[0].board_values[0]));
  DivergenceThresholds loose;
  loose.relative_l2 = std::numeric_limits<double>::infinity();
  EXPECT_EQ(EvaluateComparison(*file, loose).first_divergent_tensor, 0);

  file = Parse(Replaced(
      PlainReport(),
      R"("shape": [2, 4], "shape_matches": true, "count": 8, "max_abs": 0, "max_abs_index": 0,
       "rmse": 0, "relative_l2": 0, "cosine": 1.0000000000000002, "max_ulp": 0,
       "nonfinite_mismatches": 0, "board_nonfinite": 0, "reference_nonfinite": 0})",
      R"("shape": [2, 4], "shape_matches": false})"));
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(EvaluateComparison(*file, loose).first_divergent_tensor, 2);
}

TEST(StepComparisonFile, RefusesWhatIsNotAReport) {
  EXPECT_EQ(ErrorOf("{\"board\": "), "not JSON: unterminated object at byte 10");
  EXPECT_EQ(ErrorOf("[1, 2]"), "expected an object (trainscope-cli diff --json), found an array");
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("step": 7200)", R"("step": "7200")")),
            "step: expected a whole number, found a string");
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("step": 7200)", R"("step": -1)")),
            "step: -1 is not a whole number from 0 to 9007199254740992");
  EXPECT_EQ(
      ErrorOf(Replaced(PlainReport(), R"("relative_l2": 0.0001)", R"("relative_l2": "small")")),
      "thresholds.relative_l2: expected a number, found a string");
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("aspect": "gradient",
       "sample": 0, "board_held": true, "reference_held": true, "divergent": false,
       "shape": [2, 4])",
                             R"("aspect": "gradient",
       "sample": 0, "board_held": "yes", "reference_held": true, "divergent": false,
       "shape": [2, 4])")),
            "ops[1].tensors[0].board_held: expected true or false, found a string");
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("aspect": "value", "sample": 0)",
                             R"("aspect": "weights", "sample": 0)")),
            "ops[0].tensors[0].aspect: 'weights' is none of value, gradient, Adam m, Adam v");
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("first_divergent_op": null)",
                             R"("first_divergent_op": 9)")),
            "first_divergent_op: op 9 has no tensor in the comparison");
}

TEST(StepComparisonFile, RefusesValuesAndCountsThatDisagree) {
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("board_values": [0.25, 0.75])",
                             R"("board_values": [0.25])")),
            "ops[0].tensors[0].board_values: 1 values, the shape has 2");
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("board_values": [0.25, 0.75])",
                             R"("board_values": [0.25, "big"])")),
            "ops[0].tensors[0].board_values[1]: expected a number, found a string");
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("board_values": [0.25, 0.75])",
                             R"("board_values": [0.25, "inf"])")),
            "ops[0].tensors[0].count: 2, but the values give 1");
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("reference_values": [0.25, 0.75])", R"("x": 0)")),
            "ops[0].tensors[0]: has board_values but not reference_values");
  // A shape whose product is not the number of values the figures count.
  EXPECT_EQ(
      ErrorOf(Replaced(PlainReport(),
                       R"("shape": [2, 4], "shape_matches": true, "count": 8, "max_abs": 0,)",
                       R"("shape": [2, 3], "shape_matches": true, "count": 8, "max_abs": 0,)")),
      "ops[1].tensors[0].count: 8 is more than the 6 values of the shape");
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("shape": [1, 2],
       "shape_matches": true, "count": 2)",
                             R"("shape": [1, 2.5],
       "shape_matches": true, "count": 2)")),
            "ops[0].tensors[0].shape[1]: not a dimension (a whole number from 0)");
  EXPECT_EQ(ErrorOf(Replaced(PlainReport(), R"("shape": [1, 2],
       "shape_matches": true, "count": 2)",
                             R"("shape": [65536, 65536],
       "shape_matches": true, "count": 2)")),
            "ops[0].tensors[0].shape: more than 67108864 values");
}

TEST(StepComparisonFile, ChecksTheOpsAndTensorsAgainstTheModel) {
  const StepComparisonPtr file = Parse(PlainReport());
  ASSERT_NE(file, nullptr);
  const Graph one_op = testing::MakeMlp({4, 2});
  Graph cut = one_op;
  cut.subgraphs[0].operators.pop_back();  // op 1 no longer exists
  EXPECT_STREQ(CheckFitsModel(*file, cut.main()).message(),
               "ops[0].op: op 1 is outside the model's 1 operators (0..0)");
  const Graph wider = testing::MakeMlp({4, 3, 2});  // op 1 is RELU there
  EXPECT_STREQ(CheckFitsModel(*file, wider.main()).message(),
               "ops[0].opcode: op 1 is SOFTMAX in the file, RELU in the model");
  Graph renamed = one_op;
  renamed.subgraphs[0].tensors[1].name = "other/w";
  EXPECT_STREQ(CheckFitsModel(*file, renamed.main()).message(),
               "tensor 1 of op 0: tensor 1 is 'dense1/w' in the file, 'other/w' in the model");
}

}  // namespace
}  // namespace trainscope
