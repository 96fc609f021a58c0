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
  // The simulator pulls the cable after the Nth TENSOR_CHUNK reached the desktop: inside the
  // first tensor with more than one chunk, and deep into the step's reads.
  for (int chunks : {1, 2, 40, 200}) {
    BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"),
                         QStringLiteral("--wait-for-desktop"),
                         QStringLiteral("--disconnect-in-tensor"), QString::number(chunks)});
    ASSERT_TRUE(sim.started()) << sim.error().toStdString();
    const QString report = TempPath(QStringLiteral("lost-after-%1.json").arg(chunks));
    QStringList arguments = DiffArguments(sim.endpoint());
    arguments.replace(arguments.indexOf(QStringLiteral("-")), report);
    arguments << QStringLiteral("--timeout") << QStringLiteral("2");
    const CliResult result = RunCli(arguments);
    EXPECT_EQ(result.exit_code, 1) << chunks << ": " << result.err.toStdString();
    // "tensor 7: the link was lost while reading the weights gradient of op 3: read ...:
    // the other end closed the connection after 96 of 2400 values"
    EXPECT_TRUE(result.err.contains(QStringLiteral("the link was lost while reading the ")))
        << chunks << ": " << result.err.toStdString();
    EXPECT_TRUE(result.err.contains(QStringLiteral(" values"))) << result.err.toStdString();
    EXPECT_FALSE(QFile::exists(report)) << "a report from a step that was not read";
  }
}

}  // namespace
}  // namespace trainscope::testing
