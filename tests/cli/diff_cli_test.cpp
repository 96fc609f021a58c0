// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli diff` against the board simulator: the simulator runs the same engine, so
// every tensor of the step must agree, and arguments that describe another training are named.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace trainscope::testing
