// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli diff` against the board simulator: the simulator runs the same engine, so
// every tensor of the step must agree, and arguments that describe another training are named.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>

#include "tests/cli/board_sim_process.h"
#include "tests/cli/cli_test_util.h"

namespace trainscope::testing {
namespace {

QStringList DiffArguments(const QString& endpoint) {
  return {QStringLiteral("diff"),       endpoint,
          DemoFile("demo.circle"),      QStringLiteral("--input"),
          DemoFile("train_input.bin"),  QStringLiteral("--target"),
          DemoFile("train_target.bin"), QStringLiteral("--loss"),
          QStringLiteral("sparse-ce"),  QStringLiteral("--json"),
          QStringLiteral("-")};
}

TEST(DiffCli, TheSimulatorAgreesWithTheReferenceOnEveryTensorOfTheStep) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  const CliResult result = RunCli(DiffArguments(sim.endpoint()));
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  const QJsonObject report = result.json().object();
  EXPECT_TRUE(report.value(QStringLiteral("first_divergent_op")).isNull());
  EXPECT_GT(report.value(QStringLiteral("compared")).toInt(), 10);
  EXPECT_GT(report.value(QStringLiteral("step")).toInt(), 0);
  const QJsonArray ops = report.value(QStringLiteral("ops")).toArray();
  ASSERT_FALSE(ops.isEmpty());
  // Backward order: the last operator first.
  EXPECT_GT(ops.first().toObject().value(QStringLiteral("op")).toInt(),
            ops.last().toObject().value(QStringLiteral("op")).toInt());
  const QJsonObject largest = report.value(QStringLiteral("largest_difference")).toObject();
  EXPECT_LE(largest.value(QStringLiteral("relative_l2")).toDouble(), 1e-6);
  EXPECT_FALSE(report.value(QStringLiteral("update")).toArray().isEmpty());
  const QJsonObject transfer = report.value(QStringLiteral("transfer")).toObject();
  EXPECT_GT(transfer.value(QStringLiteral("values")).toInt(), 0);
  EXPECT_GT(transfer.value(QStringLiteral("wire_bytes")).toInt(),
            4 * transfer.value(QStringLiteral("values")).toInt());
}

TEST(DiffCli, ArgumentsForAnotherTrainingAreNamed) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  QStringList arguments = DiffArguments(sim.endpoint());
  arguments << QStringLiteral("--batch") << QStringLiteral("2");
  const CliResult result = RunCli(arguments);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(result.err.contains(QStringLiteral("batches of 1"))) << result.err.toStdString();
}

TEST(DiffCli, ABoardPastTheStepIsRefusedWithTheNextOne) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  QStringList arguments = DiffArguments(sim.endpoint());
  arguments << QStringLiteral("--step") << QStringLiteral("1");
  const CliResult result = RunCli(arguments);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(result.err.contains(QStringLiteral("already"))) << result.err.toStdString();
}

TEST(DiffCli, SimpleMnistAgreesAndTheLargestDifferenceIsPrinted) {
  const QString dir = QStringLiteral(TRAINSCOPE_MODELS_DIR "/onert-micro/simple_mnist");
  if (!QFile::exists(dir + QStringLiteral("/model.circle"))) {
    GTEST_SKIP() << "simple_mnist not found in " << TRAINSCOPE_MODELS_DIR
                 << " (the shared model fixtures are absent)";
  }
  const SimRun run{dir + QStringLiteral("/model.circle"),
                   dir + QStringLiteral("/train_input.bin"),
                   dir + QStringLiteral("/train_target.bin"),
                   {QStringLiteral("--loss"), QStringLiteral("sparse-ce"),
                    QStringLiteral("--optimizer"), QStringLiteral("adam")}};
  BoardSimProcess sim(run, {QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  const CliResult result =
      RunCli(QStringList{QStringLiteral("diff"), sim.endpoint()} + run.Arguments() +
             QStringList{QStringLiteral("--json"), QStringLiteral("-")});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  const QJsonObject report = result.json().object();
  EXPECT_TRUE(report.value(QStringLiteral("first_divergent_op")).isNull());
  // Every op of simple_mnist is stepped: CONV_2D, MAX_POOL_2D, RESHAPE, two FCs, SOFTMAX.
  EXPECT_EQ(report.value(QStringLiteral("ops")).toArray().size(), 6);
  EXPECT_TRUE(result.err.contains(QStringLiteral("largest difference: op ")))
      << result.err.toStdString();
}

TEST(DiffCli, ALinkLostMidStepSaysWhereAndLeavesNoReport) {
  // The simulator pulls the cable after N frames. How many frames come before the step's reads
  // depends on how far the board trained before PAUSE arrived; the reads themselves are about
  // 600 frames, so cuts spaced closer than that land inside a tensor's transfer at least once.
  int cut_inside_a_transfer = 0;
  for (int frames : {60, 150, 300, 450, 600, 900, 1300, 1800, 2400, 3200}) {
    BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"),
                         QStringLiteral("--wait-for-desktop"), QStringLiteral("--disconnect-after"),
                         QString::number(frames)});
    ASSERT_TRUE(sim.started()) << sim.error().toStdString();
    const QString report = TempPath(QStringLiteral("lost-after-%1.json").arg(frames));
    QStringList arguments = DiffArguments(sim.endpoint());
    arguments.replace(arguments.indexOf(QStringLiteral("-")), report);
    arguments << QStringLiteral("--timeout") << QStringLiteral("2");
    const CliResult result = RunCli(arguments);
    if (result.exit_code == 0) continue;  // the cut came after the step was read
    EXPECT_EQ(result.exit_code, 1) << frames << ": " << result.err.toStdString();
    EXPECT_TRUE(result.err.contains(QStringLiteral("the link was lost while")) ||
                result.err.contains(QStringLiteral("no answer from the board")))
        << frames << ": " << result.err.toStdString();
    EXPECT_FALSE(QFile::exists(report)) << "a report from a step that was not read";
    if (result.err.contains(QStringLiteral("while reading the ")) &&
        result.err.contains(QStringLiteral(" values"))) {
      ++cut_inside_a_transfer;
    }
  }
  EXPECT_GT(cut_inside_a_transfer, 0);
}

}  // namespace
}  // namespace trainscope::testing
