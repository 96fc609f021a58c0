// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>

#include "tests/cli/cli_test_util.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

using testing::RunCli;
using testing::TempPath;

const QString kDemoModel = QStringLiteral(TRAINSCOPE_DEMO_DIR "/demo.circle");

TEST(CliInspect, PrintsOperatorsOfTheDemoModel) {
  const auto result = RunCli({QStringLiteral("inspect"), kDemoModel});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  EXPECT_TRUE(result.out.contains(QStringLiteral("CONV_2D")));
  EXPECT_TRUE(result.out.contains(QStringLiteral("SOFTMAX")));
  // conv 6x3x3x1 + 6, dense1 16x150 + 16, dense2 4x16 + 4.
  EXPECT_TRUE(result.out.contains(QStringLiteral("%1 parameters").arg(60 + 2416 + 68)));
}

TEST(CliInspect, JsonDocumentHasTheDocumentedKeys) {
  const auto result = RunCli({QStringLiteral("inspect"), QStringLiteral("--json"), kDemoModel});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  const QJsonObject root = result.json().object();
  EXPECT_EQ(root.value(QStringLiteral("format")).toString(), QStringLiteral("circle"));
  const QJsonObject main = root.value(QStringLiteral("subgraphs")).toArray().at(0).toObject();
  const QJsonArray operators = main.value(QStringLiteral("operators")).toArray();
  ASSERT_EQ(operators.size(), 6);
  EXPECT_EQ(operators.at(3).toObject().value(QStringLiteral("opcode")).toString(),
            QStringLiteral("FULLY_CONNECTED"));
  EXPECT_EQ(operators.at(0).toObject().value(QStringLiteral("index")).toInt(), 0);
  const QJsonArray tensors = main.value(QStringLiteral("tensors")).toArray();
  const QJsonObject input =
      tensors.at(main.value(QStringLiteral("inputs")).toArray().at(0).toInt()).toObject();
  EXPECT_EQ(input.value(QStringLiteral("name")).toString(), QStringLiteral("image"));
  EXPECT_EQ(input.value(QStringLiteral("type")).toString(), QStringLiteral("FLOAT32"));
  EXPECT_FALSE(input.value(QStringLiteral("constant")).toBool());
  EXPECT_EQ(input.value(QStringLiteral("shape")).toArray().size(), 4);
  EXPECT_EQ(input.value(QStringLiteral("bytes")).toInt(), 12 * 12 * 4);
}

TEST(CliInspect, TfliteModelsReportTheirFormat) {
  TS_REQUIRE_FIXTURES();
  const auto result =
      RunCli({QStringLiteral("inspect"), QStringLiteral("--json"),
              QString::fromStdString(testing::ModelsDir() + "/tflite/person_detect.tflite")});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  const QJsonObject root = result.json().object();
  EXPECT_EQ(root.value(QStringLiteral("format")).toString(), QStringLiteral("tflite"));
  EXPECT_EQ(root.value(QStringLiteral("subgraphs"))
                .toArray()
                .at(0)
                .toObject()
                .value(QStringLiteral("operators"))
                .toArray()
                .size(),
            31);
}

TEST(CliInspect, TruncatedModelIsAnErrorWithNonZeroStatus) {
  QFile source(kDemoModel);
  ASSERT_TRUE(source.open(QIODevice::ReadOnly));
  const QByteArray bytes = source.readAll();
  QFile truncated(TempPath(QStringLiteral("truncated.circle")));
  ASSERT_TRUE(truncated.open(QIODevice::WriteOnly));
  truncated.write(bytes.left(bytes.size() / 2));
  truncated.close();
  const auto result = RunCli({QStringLiteral("inspect"), truncated.fileName()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(result.err.startsWith(QStringLiteral("error: "))) << result.err.toStdString();
  EXPECT_TRUE(result.err.contains(QStringLiteral("truncated.circle"))) << result.err.toStdString();
  EXPECT_TRUE(result.out.isEmpty());
}

TEST(CliInspect, MissingFileAndBadArgumentsAreErrors) {
  const auto missing = RunCli({QStringLiteral("inspect"), QStringLiteral("/no/such/model.circle")});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(missing.err.contains(QStringLiteral("cannot open '/no/such/model.circle'")));
  const auto no_model = RunCli({QStringLiteral("inspect")});
  EXPECT_EQ(no_model.exit_code, 2);
  EXPECT_TRUE(no_model.err.startsWith(QStringLiteral("error: ")));
  const auto unknown = RunCli({QStringLiteral("frobnicate")});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(unknown.err.contains(QStringLiteral("unknown command 'frobnicate'")));
  const auto bad_option =
      RunCli({QStringLiteral("inspect"), QStringLiteral("--bogus"), kDemoModel});
  EXPECT_EQ(bad_option.exit_code, 2);
}

TEST(CliInspect, VersionIsPrinted) {
  const auto result = RunCli({QStringLiteral("--version")});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_TRUE(result.out.startsWith(QStringLiteral("trainscope-cli ")));
}

}  // namespace
}  // namespace trainscope
