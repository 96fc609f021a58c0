// SPDX-License-Identifier: Apache-2.0
//
// trainscope-cli report and fit, end to end: the real executable on the demo and the fixtures,
// cross-checked against `trainscope-cli memory --json`.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "tests/cli/cli_test_util.h"
#include "tests/common/fixtures.h"
#include "tests/common/full_disk.h"

namespace trainscope {
namespace {

using testing::RunCli;
using testing::TempPath;

const QString kDemo = QStringLiteral(TRAINSCOPE_DEMO_DIR "/demo.circle");

QByteArray ReadAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

qint64 MemoryPeak(const QStringList& extra) {
  const auto result =
      RunCli(QStringList{QStringLiteral("memory"), kDemo, QStringLiteral("--json")} + extra);
  EXPECT_EQ(result.exit_code, 0) << result.err.toStdString();
  return result.json().object()[QStringLiteral("heap_peak_bytes")].toInteger(-1);
}

TEST(CliReport, EveryFormatIsWrittenWithTheMemoryCommandsNumbers) {
  const QStringList setup = {QStringLiteral("--optimizer"), QStringLiteral("adam"),
                             QStringLiteral("--train-layers"), QStringLiteral("3")};
  const qint64 peak = MemoryPeak(setup);
  ASSERT_GT(peak, 0);
  for (const char* format : {"json", "csv", "html", "pdf", "mondrian", "chrome-trace", "png"}) {
    SCOPED_TRACE(format);
    const QString out = TempPath(QStringLiteral("demo.") + QLatin1String(format));
    const auto result =
        RunCli(QStringList{QStringLiteral("report"), kDemo, QStringLiteral("--format"),
                           QLatin1String(format), QStringLiteral("-o"), out} +
               setup);
    ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
    EXPECT_TRUE(result.out.contains(QStringLiteral("heap peak %1 bytes").arg(peak)))
        << result.out.toStdString();
    const QByteArray bytes = ReadAll(out);
    ASSERT_FALSE(bytes.isEmpty());
    const std::string format_name = format;
    if (format_name == "json") {
      const QJsonObject root = QJsonDocument::fromJson(bytes).object();
      EXPECT_EQ(
          root[QStringLiteral("summary")].toObject()[QStringLiteral("heap_peak_bytes")].toInteger(),
          peak);
      EXPECT_EQ(
          root[QStringLiteral("setup")].toObject()[QStringLiteral("num_train_layers")].toInt(), 3);
    } else if (format_name == "csv") {
      EXPECT_TRUE(bytes.startsWith("tick,"));
      EXPECT_TRUE(ReadAll(TempPath(QStringLiteral("demo.buffers.csv"))).startsWith("id,name,"));
    } else if (format_name == "html") {
      EXPECT_TRUE(
          bytes.contains(QByteArray(QByteArray("heap peak ") + QByteArray::number(peak) + " B")));
    } else if (format_name == "pdf") {
      EXPECT_TRUE(bytes.startsWith("%PDF-"));
    } else if (format_name == "png") {
      EXPECT_TRUE(bytes.startsWith("\x89PNG"));
    } else {
      EXPECT_FALSE(QJsonDocument::fromJson(bytes).isNull());
    }
  }
}

TEST(CliReport, InferenceAndTrainConfigSetupsAreHonoured) {
  const QString config = TempPath(QStringLiteral("report.cfg"));
  const auto fit = RunCli({QStringLiteral("fit"), kDemo, QStringLiteral("--budget"),
                           QStringLiteral("16K"), QStringLiteral("--save-config"), config});
  ASSERT_EQ(fit.exit_code, 0) << fit.err.toStdString();
  const QString out = TempPath(QStringLiteral("config.json"));
  ASSERT_EQ(RunCli({QStringLiteral("report"), kDemo, QStringLiteral("--train-config"), config,
                    QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("-o"), out})
                .exit_code,
            0);
  const QJsonObject root = QJsonDocument::fromJson(ReadAll(out)).object();
  EXPECT_FALSE(
      root[QStringLiteral("setup")].toObject()[QStringLiteral("op_ranks")].toArray().isEmpty());
  EXPECT_EQ(
      root[QStringLiteral("summary")].toObject()[QStringLiteral("heap_peak_bytes")].toInteger(),
      MemoryPeak({QStringLiteral("--train-config"), config}));

  ASSERT_EQ(RunCli({QStringLiteral("report"), kDemo, QStringLiteral("--inference"),
                    QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("-o"), out})
                .exit_code,
            0);
  const QJsonObject inference = QJsonDocument::fromJson(ReadAll(out)).object();
  EXPECT_EQ(inference[QStringLiteral("setup")].toObject()[QStringLiteral("mode")].toString(),
            QStringLiteral("inference"));
  EXPECT_EQ(inference[QStringLiteral("summary")]
                .toObject()[QStringLiteral("heap_peak_bytes")]
                .toInteger(),
            MemoryPeak({QStringLiteral("--inference")}));
}

TEST(CliReport, UsageErrorsAndUnwritableFilesAreClearErrors) {
  auto result =
      RunCli({QStringLiteral("report"), kDemo, QStringLiteral("--format"), QStringLiteral("xml"),
              QStringLiteral("-o"), TempPath(QStringLiteral("x"))});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.err.contains(QStringLiteral("chrome-trace"))) << result.err.toStdString();
  result =
      RunCli({QStringLiteral("report"), kDemo, QStringLiteral("--format"), QStringLiteral("json")});
  EXPECT_EQ(result.exit_code, 2);
  result =
      RunCli({QStringLiteral("report"), kDemo, QStringLiteral("--inference"),
              QStringLiteral("--train-layers"), QStringLiteral("2"), QStringLiteral("--format"),
              QStringLiteral("json"), QStringLiteral("-o"), TempPath(QStringLiteral("y"))});
  EXPECT_EQ(result.exit_code, 2);
  const QString unwritable = TempPath(QStringLiteral("no/such/dir/report.html"));
  result = RunCli({QStringLiteral("report"), kDemo, QStringLiteral("--format"),
                   QStringLiteral("html"), QStringLiteral("-o"), unwritable});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(result.err.contains(unwritable)) << result.err.toStdString();
  EXPECT_FALSE(QFile::exists(unwritable));
}

TEST(CliFit, SavedConfigReloadsWithinTheBudget) {
  for (const char* optimizer : {"sgd", "adam"}) {
    SCOPED_TRACE(optimizer);
    const QString config = TempPath(QStringLiteral("fit-%1.cfg").arg(QLatin1String(optimizer)));
    const auto result =
        RunCli({QStringLiteral("fit"), kDemo, QStringLiteral("--budget"), QStringLiteral("20000"),
                QStringLiteral("--optimizer"), QLatin1String(optimizer), QStringLiteral("--json"),
                QStringLiteral("--save-config"), config});
    ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
    const QJsonObject root = result.json().object();
    ASSERT_TRUE(root[QStringLiteral("fits")].toBool());
    const QJsonObject best = root[QStringLiteral("best")].toObject();
    EXPECT_LE(best[QStringLiteral("heap_peak_bytes")].toInteger(), 20000);
    EXPECT_GT(best[QStringLiteral("trained_parameters")].toInteger(), 0);
    EXPECT_TRUE(root[QStringLiteral("search")].toObject()[QStringLiteral("exact")].toBool());
    const qint64 reloaded = MemoryPeak({QStringLiteral("--optimizer"), QLatin1String(optimizer),
                                        QStringLiteral("--train-config"), config});
    EXPECT_LE(reloaded, 20000);
    EXPECT_EQ(reloaded, best[QStringLiteral("heap_peak_bytes")].toInteger());
  }
}

TEST(CliFit, ImpossibleBudgetIsRefusedAndWritesNothing) {
  const QString config = TempPath(QStringLiteral("never.cfg"));
  const auto result = RunCli({QStringLiteral("fit"), kDemo, QStringLiteral("--budget"),
                              QStringLiteral("512"), QStringLiteral("--save-config"), config});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(
      result.err.contains(QStringLiteral("no trainability configuration fits in 512 bytes")))
      << result.err.toStdString();
  EXPECT_TRUE(result.err.contains(QStringLiteral("the smallest needs")))
      << result.err.toStdString();
  EXPECT_FALSE(QFile::exists(config));
}

TEST(CliFit, BudgetUnitsCurveAndBadInput) {
  auto result =
      RunCli({QStringLiteral("fit"), kDemo, QStringLiteral("--budget"), QStringLiteral("40K"),
              QStringLiteral("--curve"), QStringLiteral("--json")});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  const QJsonObject root = result.json().object();
  EXPECT_EQ(root[QStringLiteral("budget_bytes")].toInteger(), 40 * 1024);
  const QJsonArray points =
      root[QStringLiteral("curve")].toObject()[QStringLiteral("points")].toArray();
  ASSERT_GE(points.size(), 2);
  qint64 previous = 0;
  for (const QJsonValue& point : points) {
    const qint64 trained = point.toObject()[QStringLiteral("best")]
                               .toObject()[QStringLiteral("trained_parameters")]
                               .toInteger();
    EXPECT_GE(trained, previous);
    previous = trained;
  }
  // At 40 KiB the whole demo trains, which is the curve's last point.
  EXPECT_EQ(
      root[QStringLiteral("best")].toObject()[QStringLiteral("trained_parameters")].toInteger(),
      previous);

  result =
      RunCli({QStringLiteral("fit"), kDemo, QStringLiteral("--budget"), QStringLiteral("12X")});
  EXPECT_EQ(result.exit_code, 2);
  result = RunCli({QStringLiteral("fit"), kDemo});
  EXPECT_EQ(result.exit_code, 2);
  result = RunCli({QStringLiteral("--help")});
  EXPECT_TRUE(result.out.contains(QStringLiteral("report MODEL")) &&
              result.out.contains(QStringLiteral("fit MODEL")));
}

TEST(CliFit, SimpleMnistTextAnswer) {
  TS_REQUIRE_FIXTURES();
  const QString model =
      QString::fromStdString(testing::ModelsDir() + "/onert-micro/simple_mnist/model.circle");
  const auto result =
      RunCli({QStringLiteral("fit"), model, QStringLiteral("--budget"), QStringLiteral("4000"),
              QStringLiteral("--optimizer"), QStringLiteral("adam")});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  EXPECT_TRUE(result.out.contains(QStringLiteral("fits: train "))) << result.out.toStdString();
  EXPECT_TRUE(result.out.contains(QStringLiteral("search: exact"))) << result.out.toStdString();
}

// A report that does not fit on the disk fails with the reason and a non-zero status, and the
// previous report stays (Qt 6.4's QSaveFile renamed a short file over it).
TEST(CliReport, AFullDiskFailsAndKeepsThePreviousReport) {
  testing::SmallDisk disk(16);  // the demo's JSON report is about 25 KB
  if (!disk.ok()) GTEST_SKIP() << disk.why();
  const QString path = QString::fromStdString(disk.path()) + QStringLiteral("/report.json");
  {
    QFile previous(path);
    ASSERT_TRUE(previous.open(QIODevice::WriteOnly));
    previous.write("previous report");
  }
  const auto result = RunCli({QStringLiteral("report"), kDemo, QStringLiteral("--format"),
                              QStringLiteral("json"), QStringLiteral("-o"), path});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(result.err.contains(QStringLiteral("No space left on device")))
      << result.err.toStdString();
  QFile kept(path);
  ASSERT_TRUE(kept.open(QIODevice::ReadOnly));
  EXPECT_EQ(kept.readAll(), QByteArray("previous report"));
}

// Data files must be regular files of bounded size: /dev/zero is refused at once.
TEST(CliTrain, ADeviceAsDataIsRefusedAtOnce) {
  const auto result =
      RunCli({QStringLiteral("train"), kDemo, QStringLiteral("--input"),
              QStringLiteral("/dev/zero"), QStringLiteral("--target"), QStringLiteral("/dev/zero")},
             20000);
  EXPECT_EQ(result.exit_code, 1) << result.err.toStdString();
  EXPECT_TRUE(result.err.contains(QStringLiteral("'/dev/zero' is a device")))
      << result.err.toStdString();
}

}  // namespace
}  // namespace trainscope
