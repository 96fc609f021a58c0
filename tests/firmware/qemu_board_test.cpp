// SPDX-License-Identifier: Apache-2.0
//
// The firmware on an emulated board, end to end: scripts/run-qemu-board.sh builds the Cortex-M4F
// firmware for a run and starts QEMU; the real `trainscope-cli attach` follows it over TCP, pauses
// and steps it; the recording's losses must equal the host engine's `train --events` for the same
// run, and the memory the firmware measured must make sense against the plan.
//
// Without qemu-system-arm or arm-none-eabi-g++ the tests skip with a message, unless
// TRAINSCOPE_REQUIRE_QEMU=1 (CI sets it): then a missing tool fails them.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <utility>

#include "tests/cli/board_sim_process.h"
#include "tests/cli/cli_test_util.h"
#include "tests/cli/generated_runs.h"
#include "tests/firmware/qemu_board_process.h"
#include "tests/firmware/skip_without_qemu.h"

namespace trainscope {
namespace {

using testing::CliResult;
using testing::DemoFile;
using testing::DemoRunFor;
using testing::FileHashHex;
using testing::QemuBoard;
using testing::RunCli;
using testing::TempPath;

QList<QJsonObject> JsonLines(const QString& text) {
  QList<QJsonObject> lines;
  for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
    lines.append(QJsonDocument::fromJson(line.toUtf8()).object());
  }
  return lines;
}

QString ReadFile(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// (optimizer step, sample) -> loss of every loss line.
std::map<std::pair<int, int>, double> Losses(const QList<QJsonObject>& lines) {
  std::map<std::pair<int, int>, double> losses;
  for (const QJsonObject& line : lines) {
    if (line.value(QStringLiteral("type")).toString() != QLatin1String("loss")) continue;
    losses[{line.value(QStringLiteral("step")).toInt(),
            line.value(QStringLiteral("sample")).toInt()}] =
        line.value(QStringLiteral("value")).toDouble();
  }
  return losses;
}

qint64 Field(const QJsonObject& object, const char* key) {
  return object.value(QLatin1String(key)).toVariant().toLongLong();
}

TEST(QemuBoard, TrainsPausesStepsAndMeasuresItsMemoryAgainstThePlan) {
  SKIP_WITHOUT_QEMU();
  QemuBoard board(DemoRunFor(5), QStringLiteral("mps2-an386"));
  ASSERT_TRUE(board.error().isEmpty()) << qPrintable(board.error());

  const CliResult attach =
      RunCli({QStringLiteral("attach"), board.endpoint(), QStringLiteral("--steps"),
              QStringLiteral("150"), QStringLiteral("--pause-after"), QStringLiteral("100"),
              QStringLiteral("--step"), QStringLiteral("3"), QStringLiteral("--timeout"),
              QStringLiteral("60"), QStringLiteral("--json")},
             90000);
  ASSERT_EQ(attach.exit_code, 0) << qPrintable(attach.err) << qPrintable(board.log());
  const QJsonObject summary = attach.json().object();
  EXPECT_EQ(summary.value(QStringLiteral("agent")).toString(),
            QStringLiteral("trainscope-fw mps2-an386"));
  EXPECT_EQ(summary.value(QStringLiteral("model_hash")).toString(),
            FileHashHex(DemoFile("demo.circle")));
  EXPECT_GE(Field(summary, "backward_steps"), 100);
  EXPECT_EQ(Field(summary, "frames_bad"), 0);
  EXPECT_EQ(Field(summary, "frames_dropped"), 0);
  EXPECT_EQ(Field(summary, "paused_backward_steps"), 3);
  EXPECT_TRUE(summary.value(QStringLiteral("board_error")).isNull());

  const QJsonObject memory = summary.value(QStringLiteral("device_memory")).toObject();
  ASSERT_FALSE(memory.isEmpty()) << "no DEVICE_MEMORY from the firmware";
  EXPECT_EQ(memory.value(QStringLiteral("source")).toString(), QStringLiteral("measured"));
  // The plan is the one `trainscope-cli memory` shows for the same run.
  const CliResult plan =
      RunCli({QStringLiteral("memory"), DemoFile("demo.circle"), QStringLiteral("--optimizer"),
              QStringLiteral("adam"), QStringLiteral("--json")});
  ASSERT_EQ(plan.exit_code, 0) << qPrintable(plan.err);
  EXPECT_EQ(Field(memory, "predicted_heap_peak_bytes"), Field(plan.json().object(), "arena_bytes"));
  const qint64 heap = Field(memory, "heap_peak_bytes");
  const qint64 stack = Field(memory, "stack_peak_bytes");
  const qint64 statics = Field(memory, "static_bytes");
  // The heap holds the arena, the model twice (bytes and constants) and the samples at least.
  const qint64 model_bytes = QFile(DemoFile("demo.circle")).size();
  const qint64 data_bytes = QFile(DemoFile("train_input.bin")).size();
  EXPECT_GT(heap, Field(memory, "predicted_heap_peak_bytes") + 2 * model_bytes + data_bytes);
  EXPECT_GT(stack, 512);
  EXPECT_LT(stack, 16 * 1024);  // within the linker script's stack
  EXPECT_GT(statics, 0);
  EXPECT_EQ(Field(memory, "total_bytes"), heap + stack + statics);
  EXPECT_EQ(Field(memory, "ram_bytes"), 192 * 1024);
  EXPECT_LE(Field(memory, "total_bytes"), Field(memory, "ram_bytes"));
  const QJsonObject parts = memory.value(QStringLiteral("heap")).toObject();
  qint64 sum = 0;
  for (const QString& key : parts.keys()) sum += parts.value(key).toVariant().toLongLong();
  EXPECT_EQ(sum, heap);
  EXPECT_GT(Field(parts, "model"), model_bytes);  // the bytes and the copy of the weights
  EXPECT_GT(Field(parts, "other"), 0);            // the graph, the C library and malloc's headers
}

TEST(QemuBoard, LossesEqualTheHostEngineForTheSameRun) {
  SKIP_WITHOUT_QEMU();
  const int epochs = 2;
  const int samples = testing::DemoSampleCount();
  QemuBoard board(DemoRunFor(epochs), QStringLiteral("mps2-an386"));
  ASSERT_TRUE(board.error().isEmpty()) << qPrintable(board.error());
  const QString record = TempPath(QStringLiteral("qemu-losses.tstrace"));
  // Every sample walks 6 backward steps: wait for all of them.
  const CliResult attach =
      RunCli({QStringLiteral("attach"), board.endpoint(), QStringLiteral("--steps"),
              QString::number(epochs * samples * 6), QStringLiteral("--timeout"),
              QStringLiteral("90"), QStringLiteral("--record"), record, QStringLiteral("--json")},
             120000);
  ASSERT_EQ(attach.exit_code, 0) << qPrintable(attach.err) << qPrintable(board.log());
  const CliResult dump =
      RunCli({QStringLiteral("trace"), QStringLiteral("dump"), record, QStringLiteral("--json")});
  ASSERT_EQ(dump.exit_code, 0) << qPrintable(dump.err);
  const QString events = TempPath(QStringLiteral("host-events.jsonl"));
  const CliResult train = RunCli(QStringList{QStringLiteral("train")} + DemoRunFor(epochs) +
                                 QStringList{QStringLiteral("--events"), events});
  ASSERT_EQ(train.exit_code, 0) << qPrintable(train.err);

  const auto board_losses = Losses(JsonLines(dump.out));
  const auto host_losses = Losses(JsonLines(ReadFile(events)));
  ASSERT_EQ(board_losses.size(), static_cast<size_t>(epochs * samples));
  ASSERT_EQ(host_losses.size(), board_losses.size());
  // The board's libm (newlib's expf, logf) is not glibc's: a softmax probability near 1 can
  // differ in its last bits, and -log(p) turns that into a relative error that grows as the
  // loss falls. So: 1e-5 relative, or 1e-6 absolute (a few float steps of a probability near 1).
  double largest = 0.0;
  int identical = 0;
  int first_difference = -1;
  for (const auto& [key, value] : board_losses) {
    ASSERT_TRUE(host_losses.count(key)) << "step " << key.first << " sample " << key.second;
    const double host = host_losses.at(key);
    const double difference = std::fabs(value - host);
    largest = std::max(largest, difference / std::max(std::fabs(host), 1e-30));
    identical += value == host;
    if (value != host && first_difference < 0) first_difference = key.first;
    EXPECT_TRUE(difference <= 1e-5 * std::fabs(host) || difference <= 1e-6)
        << "step " << key.first << " sample " << key.second << ": board " << value << ", host "
        << host;
  }
  std::printf(
      "losses: %d of %zu bit-identical (first difference at step %d), largest relative "
      "difference %.3g\n",
      identical, board_losses.size(), first_difference, largest);
}

// diff against the emulated board training `run`: no op beyond float tolerance, and the largest
// difference it saw printed. The reference engine runs the firmware's own loops (--kernels
// reference): the host's vector paths add in another order, and near convergence a gradient
// that is a sum of cancelling terms (a bias's, over every pixel) can then differ by 1e-4 of
// itself while every term agrees.
void ExpectDiffAgreesOnTheEmulatedBoard(const QStringList& run, const char* what) {
  QemuBoard board(run, QStringLiteral("mps2-an386"));
  ASSERT_TRUE(board.error().isEmpty()) << qPrintable(board.error());
  const CliResult diff =
      RunCli(QStringList{QStringLiteral("diff"), board.endpoint()} + run +
                 QStringList{QStringLiteral("--kernels"), QStringLiteral("reference"),
                             QStringLiteral("--json"), QStringLiteral("-"),
                             QStringLiteral("--timeout"), QStringLiteral("60")},
             300000);
  ASSERT_EQ(diff.exit_code, 0) << qPrintable(diff.err) << qPrintable(board.log());
  const QJsonObject report = QJsonDocument::fromJson(diff.out.toUtf8()).object();
  EXPECT_TRUE(report.value(QStringLiteral("first_divergent_op")).isNull());
  EXPECT_GT(report.value(QStringLiteral("compared")).toInt(), 10);
  const QJsonObject largest = report.value(QStringLiteral("largest_difference")).toObject();
  // newlib's expf is not glibc's: the softmax may differ in its last bits. A converged step's
  // update, measured against its own small size, can look 1e-4 off while its weights are a few
  // floats apart (seen: 1.3e-4 at 1 float); anything else stays within diff's default 1e-4.
  if (largest.value(QStringLiteral("role")).toString().startsWith(QLatin1String("update of "))) {
    EXPECT_LE(largest.value(QStringLiteral("max_ulp")).toInteger(), 16);
  } else {
    EXPECT_LE(largest.value(QStringLiteral("relative_l2")).toDouble(1.0), 1e-4);
  }
  std::printf(
      "diff against the emulated board, %s: %d tensors compared, largest relative L2 "
      "%.3g (op %d %s)\n",
      what, report.value(QStringLiteral("compared")).toInt(),
      largest.value(QStringLiteral("relative_l2")).toDouble(),
      largest.value(QStringLiteral("op")).toInt(),
      qPrintable(largest.value(QStringLiteral("role")).toString()));
}

TEST(QemuBoard, DiffFindsNoOperatorBeyondFloatToleranceOnTheEmulatedBoard) {
  SKIP_WITHOUT_QEMU();
  ExpectDiffAgreesOnTheEmulatedBoard(DemoRunFor(1000), "the demo");
  const testing::GeneratedRun conv = testing::SamePaddedConvRun(QStringLiteral("qemu_same_conv"));
  ASSERT_TRUE(conv.ok);
  ExpectDiffAgreesOnTheEmulatedBoard(
      conv.run.Arguments() + QStringList{QStringLiteral("--epochs"), QStringLiteral("100000")},
      "a SAME-padded conv");
  const QString mnist = QStringLiteral(TRAINSCOPE_MODELS_DIR "/onert-micro/simple_mnist");
  if (!QFile::exists(mnist + QStringLiteral("/model.circle"))) {
    GTEST_SKIP() << "simple_mnist not found in " << TRAINSCOPE_MODELS_DIR;
  }
  ExpectDiffAgreesOnTheEmulatedBoard(
      {mnist + QStringLiteral("/model.circle"), QStringLiteral("--input"),
       mnist + QStringLiteral("/train_input.bin"), QStringLiteral("--target"),
       mnist + QStringLiteral("/train_target.bin"), QStringLiteral("--loss"),
       QStringLiteral("sparse-ce"), QStringLiteral("--optimizer"), QStringLiteral("adam"),
       QStringLiteral("--epochs"), QStringLiteral("100000")},
      "simple_mnist");
}

TEST(QemuBoard, TheNetduinoPlus2FirmwareTrainsWithinAnStm32F405) {
  SKIP_WITHOUT_QEMU();
  QemuBoard board(DemoRunFor(2), QStringLiteral("netduinoplus2"));
  ASSERT_TRUE(board.error().isEmpty()) << qPrintable(board.error());
  const QString record = TempPath(QStringLiteral("netduinoplus2.tstrace"));
  const CliResult attach =
      RunCli({QStringLiteral("attach"), board.endpoint(), QStringLiteral("--steps"),
              QStringLiteral("100"), QStringLiteral("--timeout"), QStringLiteral("60"),
              QStringLiteral("--record"), record, QStringLiteral("--json")},
             90000);
  ASSERT_EQ(attach.exit_code, 0) << qPrintable(attach.err) << qPrintable(board.log());
  const QJsonObject summary = attach.json().object();
  EXPECT_EQ(summary.value(QStringLiteral("agent")).toString(),
            QStringLiteral("trainscope-fw netduinoplus2"));
  EXPECT_EQ(Field(summary, "frames_bad"), 0);
  EXPECT_EQ(Field(summary, "frames_dropped"), 0);
  const QJsonObject memory = summary.value(QStringLiteral("device_memory")).toObject();
  EXPECT_EQ(Field(memory, "ram_bytes"), 192 * 1024);
  EXPECT_LE(Field(memory, "total_bytes"), 192 * 1024);
  EXPECT_GE(Field(summary, "backward_steps"), 100);
  // TIM2 runs: every backward step carries a duration from it, in emulated time.
  const CliResult dump =
      RunCli({QStringLiteral("trace"), QStringLiteral("dump"), record, QStringLiteral("--json")});
  ASSERT_EQ(dump.exit_code, 0) << qPrintable(dump.err);
  int steps = 0, timed = 0;
  for (const QJsonObject& line : JsonLines(dump.out)) {
    if (line.value(QStringLiteral("type")).toString() != QLatin1String("backward_step")) continue;
    ++steps;
    timed += Field(line, "duration_ns") > 0;
  }
  EXPECT_GE(steps, 100);
  EXPECT_EQ(timed, steps);
}

// The demo's samples repeated `times` over, as files: the firmware copies its samples to RAM.
QStringList RepeatedDemoData(int times) {
  const QString input = TempPath(QStringLiteral("repeated_input.bin"));
  const QString target = TempPath(QStringLiteral("repeated_target.bin"));
  for (const auto& [path, source] : {std::pair{input, DemoFile("train_input.bin")},
                                     std::pair{target, DemoFile("train_target.bin")}}) {
    QFile in(source);
    QFile out(path);
    if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly)) return {};
    const QByteArray bytes = in.readAll();
    for (int i = 0; i < times; ++i) out.write(bytes);
  }
  return {DemoFile("demo.circle"),
          QStringLiteral("--input"),
          input,
          QStringLiteral("--target"),
          target,
          QStringLiteral("--loss"),
          QStringLiteral("sparse-ce"),
          QStringLiteral("--epochs"),
          QStringLiteral("1")};
}

TEST(QemuBoard, RunningOutOfMemoryIsReportedNotAborted) {
  SKIP_WITHOUT_QEMU();
  // 420 samples (242 KB of them) cannot be held in the board's 192 KB of RAM.
  QemuBoard board(RepeatedDemoData(7), QStringLiteral("mps2-an386"));
  ASSERT_TRUE(board.error().isEmpty()) << qPrintable(board.error());
  const CliResult attach = RunCli(
      {QStringLiteral("attach"), board.endpoint(), QStringLiteral("--steps"), QStringLiteral("1"),
       QStringLiteral("--timeout"), QStringLiteral("8"), QStringLiteral("--json")},
      30000);
  const QJsonObject summary = attach.json().object();
  EXPECT_EQ(summary.value(QStringLiteral("agent")).toString(),
            QStringLiteral("trainscope-fw mps2-an386"));
  EXPECT_TRUE(summary.value(QStringLiteral("board_error"))
                  .toString()
                  .startsWith(QLatin1String("out of memory")))
      << qPrintable(attach.out);
  EXPECT_EQ(Field(summary, "backward_steps"), 0);
  EXPECT_GE(Field(summary, "heartbeats"), 1);  // still answering after the failure
  const QJsonObject memory = summary.value(QStringLiteral("device_memory")).toObject();
  // What the board held when the samples did not fit: the arena, but no data yet.
  EXPECT_GT(Field(memory, "heap_peak_bytes"), Field(memory, "predicted_heap_peak_bytes"));
  EXPECT_EQ(Field(memory.value(QStringLiteral("heap")).toObject(), "data"), 0);
}

}  // namespace
}  // namespace trainscope
