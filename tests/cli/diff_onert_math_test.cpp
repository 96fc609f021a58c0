// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli diff` against `trainscope-board-sim --onert-math`: on a model built around one
// operator that onert-micro computes differently, the first divergent operator `diff` names is
// exactly that one; against the plain simulator the same model agrees on every tensor. The
// models are generated here, one operator of research/onert-micro-training.md §17 each, with a
// dense head so that operator is not the last one stepped.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "engine/model/model_builder.h"
#include "engine/model/opcodes.h"
#include "engine/plan/train_config_file.h"
#include "tests/cli/board_sim_process.h"
#include "tests/cli/cli_test_util.h"
#include "tests/cli/generated_runs.h"
#include "ui/session/step_comparison_file.h"

namespace trainscope {
namespace {

using testing::BoardSimProcess;
using testing::CliResult;
using testing::Conv;
using testing::DenseHead;
using testing::Generate;
using testing::GeneratedRun;
using testing::RunCli;
using testing::SimRun;
using testing::TempPath;
using testing::Values;

// diff against a simulator of the same run; `onert_math` makes the simulator compute as
// onert-micro does.
CliResult DiffAgainstSimulator(const GeneratedRun& g, bool onert_math,
                               const QStringList& diff_extra = {}) {
  QStringList sim_extra = {QStringLiteral("--tcp"), QStringLiteral("0")};
  if (onert_math) sim_extra << QStringLiteral("--onert-math");
  BoardSimProcess sim(g.run, sim_extra);
  if (!sim.started()) return {-1, QString(), sim.error()};
  QStringList arguments = {QStringLiteral("diff"), sim.endpoint()};
  arguments << g.run.Arguments() << QStringLiteral("--json") << QStringLiteral("-") << diff_extra;
  return RunCli(arguments);
}

// The first divergent operator of diff's JSON; -1 if none.
int FirstDivergentOp(const CliResult& result) {
  return result.json().object().value(QStringLiteral("first_divergent_op")).toInt(-1);
}

void ExpectOnlyOnertMathDiverges(const GeneratedRun& g, int expected_op) {
  ASSERT_TRUE(g.ok) << "could not write " << g.run.model.toStdString();
  const CliResult plain = DiffAgainstSimulator(g, false);
  ASSERT_EQ(plain.exit_code, 0) << plain.err.toStdString();
  EXPECT_EQ(FirstDivergentOp(plain), -1);
  EXPECT_LE(plain.json()
                .object()
                .value(QStringLiteral("largest_difference"))
                .toObject()
                .value(QStringLiteral("relative_l2"))
                .toDouble(1.0),
            1e-5);
  const CliResult onert = DiffAgainstSimulator(g, true);
  ASSERT_EQ(onert.exit_code, 3) << onert.err.toStdString() << onert.out.toStdString();
  EXPECT_EQ(FirstDivergentOp(onert), expected_op) << onert.out.toStdString();
  EXPECT_TRUE(onert.err.contains(QStringLiteral("first divergent op: %1 ").arg(expected_op)))
      << onert.err.toStdString();
  // What the emulation computes is what the engine's list of onert-micro differences predicts.
  const QJsonArray known = onert.json()
                               .object()
                               .value(QStringLiteral("first_divergent"))
                               .toObject()
                               .value(QStringLiteral("known_onert_differences"))
                               .toArray();
  EXPECT_FALSE(known.isEmpty()) << onert.out.toStdString();
  // The same sentences stand at that op in the per-op list, which the app reads for whichever op
  // its own thresholds name.
  bool listed = false;
  for (const QJsonValue& op : onert.json().object().value(QStringLiteral("ops")).toArray()) {
    if (op.toObject().value(QStringLiteral("op")).toInt() != expected_op) continue;
    listed = true;
    EXPECT_EQ(op.toObject().value(QStringLiteral("known_onert_differences")).toArray(), known);
  }
  EXPECT_TRUE(listed) << "op " << expected_op << " is not in the report's ops";
  EXPECT_TRUE(onert.err.contains(QStringLiteral("onert-micro is known to differ here")));
}

// x -> FULLY_CONNECTED -> SOFTMAX(beta 2) (op 1) -> RESHAPE -> FC.
GeneratedRun SoftmaxWithBetaRun(const QString& name) {
  return Generate(name, {1, 4}, [](ModelBuilder* b, int x) {
    const int w = b->AddConstant("w", {3, 4}, Values(12, 0.5f, 5));
    const int h = b->AddTensor("h", {1, 3});
    b->AddOperator(op::kFullyConnected, {x, w, -1}, {h});
    const int s = b->AddTensor("s", {1, 3});
    OpOptions o;
    o.beta = 2.0f;
    b->AddOperator(op::kSoftmax, {h}, {s}, o);
    return DenseHead(b, s);
  });
}

TEST(DiffOnertMath, SamePaddedConvWeightGradient) {
  // x -> CONV_2D 3x3 SAME (op 0) -> RESHAPE -> FC: onert-micro trains the conv as if VALID.
  ExpectOnlyOnertMathDiverges(testing::SamePaddedConvRun(QStringLiteral("same_conv")), 0);
}

TEST(DiffOnertMath, StridedConvWeightGradient) {
  ExpectOnlyOnertMathDiverges(Generate(QStringLiteral("strided_conv"), {1, 5, 5, 1},
                                       [](ModelBuilder* b, int x) {
                                         return DenseHead(
                                             b, Conv(b, x, 2, 2, Padding::kValid, 2, "conv"));
                                       }),
                              0);
}

TEST(DiffOnertMath, ConvInputGradient) {
  // Two VALID stride-1 convs: the second's weight gradient is exact on onert-micro, its input
  // gradient (op 1, stepped before op 0) is not.
  ExpectOnlyOnertMathDiverges(
      Generate(QStringLiteral("conv_conv"), {1, 4, 4, 1},
               [](ModelBuilder* b, int x) {
                 const int first = Conv(b, x, 2, 2, Padding::kValid, 1, "conv1");
                 return DenseHead(b, Conv(b, first, 2, 2, Padding::kValid, 1, "conv2"));
               }),
      1);
}

TEST(DiffOnertMath, OverlappingMaxPool) {
  ExpectOnlyOnertMathDiverges(Generate(QStringLiteral("overlapping_pool"), {1, 4, 4, 1},
                                       [](ModelBuilder* b, int x) {
                                         const int conv =
                                             Conv(b, x, 2, 1, Padding::kValid, 1, "conv");
                                         const int pooled = b->AddTensor("pooled", {1, 3, 3, 2});
                                         OpOptions o;
                                         o.padding = Padding::kValid;
                                         o.filter_h = o.filter_w = 2;
                                         o.stride_h = o.stride_w = 1;
                                         b->AddOperator(op::kMaxPool2D, {conv}, {pooled}, o);
                                         return DenseHead(b, pooled);
                                       }),
                              1);
}

TEST(DiffOnertMath, SoftmaxWithBeta) {
  ExpectOnlyOnertMathDiverges(SoftmaxWithBetaRun(QStringLiteral("softmax_beta")), 1);
}

TEST(DiffOnertMath, LowerHalfUpdate) {
  // FC 4 -> 4 trained LOWER_1_2_PART (op 0) under a dense head (ops 1, 2): the gradients agree,
  // onert-micro's SGD puts the lower half's update on the upper rows.
  const QString config = TempPath(QStringLiteral("lower_half.trainconfig"));
  ASSERT_TRUE(
      WriteTrainConfigFile(config.toStdString(), {{0, TrainRank::kLowerHalf}, {2, TrainRank::kAll}})
          .ok());
  ExpectOnlyOnertMathDiverges(
      Generate(QStringLiteral("lower_half"), {1, 4},
               [](ModelBuilder* b, int x) {
                 const int w = b->AddConstant("w", {4, 4}, Values(16, 0.5f, 9));
                 const int h = b->AddTensor("h", {1, 4});
                 b->AddOperator(op::kFullyConnected, {x, w, -1}, {h});
                 return DenseHead(b, h);
               },
               {QStringLiteral("--train-config"), config}),
      0);
}

TEST(DiffOnertMath, ValuesInTheJsonGiveTheReportedDifference) {
  const GeneratedRun g = SoftmaxWithBetaRun(QStringLiteral("softmax_beta_values"));
  ASSERT_TRUE(g.ok);
  const CliResult result = DiffAgainstSimulator(g, true, {QStringLiteral("--values")});
  ASSERT_EQ(result.exit_code, 3) << result.err.toStdString();
  const QJsonObject first =
      result.json().object().value(QStringLiteral("first_divergent")).toObject();
  const QJsonArray board = first.value(QStringLiteral("board_values")).toArray();
  const QJsonArray reference = first.value(QStringLiteral("reference_values")).toArray();
  ASSERT_EQ(board.size(), first.value(QStringLiteral("count")).toInt());
  ASSERT_EQ(board.size(), reference.size());
  // max |a - b| from the arrays themselves, against the figure diff computed.
  double max_abs = 0.0;
  for (qsizetype i = 0; i < board.size(); ++i) {
    max_abs = std::max(max_abs, std::abs(board[i].toDouble() - reference[i].toDouble()));
  }
  EXPECT_GT(max_abs, 0.0);
  EXPECT_NEAR(max_abs, first.value(QStringLiteral("max_abs")).toDouble(), 1e-6 * max_abs);
}

TEST(DiffOnertMath, ARecordedDiffReplaysToTheSameComparison) {
  const GeneratedRun g = SoftmaxWithBetaRun(QStringLiteral("softmax_beta_recorded"));
  ASSERT_TRUE(g.ok);
  const QString record = TempPath(QStringLiteral("softmax_beta.tstrace"));
  const CliResult live = DiffAgainstSimulator(g, true, {QStringLiteral("--record"), record});
  ASSERT_EQ(live.exit_code, 3) << live.err.toStdString();
  // The simulator is gone: the recording alone answers, through the same decoder and probe.
  const CliResult replay = RunCli(QStringList{QStringLiteral("diff"), record} + g.run.Arguments() +
                                  QStringList{QStringLiteral("--json"), QStringLiteral("-")});
  ASSERT_EQ(replay.exit_code, 3) << replay.err.toStdString();
  EXPECT_TRUE(replay.err.contains(QStringLiteral("replaying the recorded session")));
  const QJsonObject a = live.json().object();
  const QJsonObject b = replay.json().object();
  for (const char* key : {"step", "first_divergent_op", "first_divergent", "ops", "update",
                          "compared", "largest_difference"}) {
    EXPECT_EQ(a.value(QLatin1String(key)), b.value(QLatin1String(key))) << key;
  }
  EXPECT_EQ(a.value(QStringLiteral("transfer")).toObject().value(QStringLiteral("values")),
            b.value(QStringLiteral("transfer")).toObject().value(QStringLiteral("values")));

  // Cut in half, the recording says where it ends instead of comparing half a step.
  QFile file(record);
  ASSERT_TRUE(file.open(QIODevice::ReadWrite));
  ASSERT_TRUE(file.resize(file.size() / 2));
  file.close();
  const CliResult cut = RunCli(QStringList{QStringLiteral("diff"), record} + g.run.Arguments());
  EXPECT_EQ(cut.exit_code, 1) << cut.err.toStdString();
  EXPECT_TRUE(cut.err.contains(QStringLiteral("ends here"))) << cut.err.toStdString();
}

TEST(DiffOnertMath, TheAppReadsTheReportToTheSameVerdictAsDiff) {
  // One number, one place: the report the Comparison dock opens, evaluated under the thresholds
  // diff used, names the same first divergent op and the same largest difference; every value
  // the file carries is the tensor's count.
  for (bool onert_math : {false, true}) {
    const GeneratedRun g = testing::SamePaddedConvRun(
        onert_math ? QStringLiteral("same_conv_app_onert") : QStringLiteral("same_conv_app_plain"));
    ASSERT_TRUE(g.ok);
    const CliResult result = DiffAgainstSimulator(g, onert_math, {QStringLiteral("--values")});
    ASSERT_EQ(result.exit_code, onert_math ? 3 : 0) << result.err.toStdString();
    StepComparisonPtr file;
    const Status parsed = ParseStepComparison(result.out.toUtf8(), &file);
    ASSERT_TRUE(parsed.ok()) << parsed.message();
    const ComparisonVerdict verdict = EvaluateComparison(*file, file->thresholds);
    const QJsonObject report = result.json().object();
    EXPECT_EQ(verdict.first_divergent_op, FirstDivergentOp(result));
    ASSERT_GE(verdict.largest, 0);
    const ComparedTensor& largest = file->tensors[static_cast<size_t>(verdict.largest)];
    EXPECT_EQ(largest.pair.difference.relative_l2,
              report.value(QStringLiteral("largest_difference"))
                  .toObject()
                  .value(QStringLiteral("relative_l2"))
                  .toDouble());
    EXPECT_TRUE(file->hasValues());
    for (const ComparedTensor& t : file->tensors) {
      if (t.bothHeld() && t.pair.shape_matches) {
        EXPECT_EQ(t.board_values.size(), t.valueCount()) << t.name.toStdString();
      }
    }
  }
}

TEST(DiffOnertMath, ValuesNeedAJsonFile) {
  const CliResult result =
      RunCli({QStringLiteral("diff"), QStringLiteral("tcp://127.0.0.1:1"), QStringLiteral("m"),
              QStringLiteral("--input"), QStringLiteral("x"), QStringLiteral("--target"),
              QStringLiteral("y"), QStringLiteral("--values")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.err.contains(QStringLiteral("--values goes with --json")))
      << result.err.toStdString();
}

}  // namespace
}  // namespace trainscope
