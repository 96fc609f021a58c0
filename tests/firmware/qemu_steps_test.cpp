// SPDX-License-Identifier: Apache-2.0
//
// Instructions per training step on the emulated Cortex-M4F (scripts/cortex-m-steps.sh, the
// step-counting firmware of app/firmware/common/step_count.h), for simple_mnist with Adam:
//   - every step counts instructions, and two runs count exactly the same (QEMU -icount);
//   - the parts add up: forward + loss + backward + optimizer fit in the engine alone, the
//     engine's event work and the agent add to it, and the event work's parts (statistics,
//     update ratios, memory events), each counted by leaving it out, add up to leaving all three
//     out;
//   - two different timers count the same: netduinoplus2's TIM2 (1 ns) and mps2-an386's CMSDK
//     timer (40 ns) agree on the engine's steps and operators within two of the latter's counts
//     (the interval's and the clock call's);
//   - the script itself checks that the durations trainscope-cli receives from the board equal
//     the counted ones.
// Skipped without QEMU or the cross toolchain (SKIP_WITHOUT_QEMU), or without simple_mnist.
#include <gtest/gtest.h>

#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"
#include "tests/firmware/skip_without_qemu.h"

namespace trainscope {
namespace {

using testing::TempPath;

struct ScriptResult {
  int exit_code = -1;
  QString out;
  QString err;
};

// Runs scripts/cortex-m-steps.sh on simple_mnist (Adam, sparse cross-entropy, batch 1) with the
// test build's host tools and the firmware tests' cross build.
ScriptResult CountSteps(const QString& board, const QString& log, bool events) {
  const QString mnist = QStringLiteral(TRAINSCOPE_MODELS_DIR "/onert-micro/simple_mnist");
  QStringList arguments = {mnist + QStringLiteral("/model.circle"),
                           QStringLiteral("--input"),
                           mnist + QStringLiteral("/train_input.bin"),
                           QStringLiteral("--target"),
                           mnist + QStringLiteral("/train_target.bin"),
                           QStringLiteral("--loss"),
                           QStringLiteral("sparse-ce"),
                           QStringLiteral("--optimizer"),
                           QStringLiteral("adam"),
                           QStringLiteral("--board"),
                           board,
                           QStringLiteral("--log"),
                           log};
  if (!events) arguments.append(QStringLiteral("--no-events"));
  QProcess process;
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("TRAINSCOPE_HOST_BUILD"),
                     QStringLiteral(TRAINSCOPE_HOST_BUILD_DIR));
  environment.insert(QStringLiteral("TRAINSCOPE_FIRMWARE_BUILD"),
                     QStringLiteral(TRAINSCOPE_FIRMWARE_BUILD_DIR));
  process.setProcessEnvironment(environment);
  process.start(QStringLiteral(TRAINSCOPE_CORTEX_M_STEPS), arguments);
  ScriptResult result;
  // A cold cross build of the engine takes minutes on two cores; the counting itself seconds.
  if (!process.waitForFinished(600000)) {
    process.kill();
    process.waitForFinished();
    result.err = QStringLiteral("cortex-m-steps.sh did not finish within 10 minutes");
    return result;
  }
  result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  result.out = QString::fromUtf8(process.readAllStandardOutput());
  result.err += QString::fromUtf8(process.readAllStandardError());
  return result;
}

QByteArray ReadBytes(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The "count:" lines of a log: the setup's keys, each phase's total per step, and the timed
// phase's parts per step.
struct Counts {
  std::map<std::string, int64_t> setup;
  std::map<std::string, std::map<int, int64_t>> total;  // phase -> step -> TOTAL
  std::map<int, std::map<std::string, int64_t>> timed;  // step -> loss, optimizer
  std::map<int, std::vector<int64_t>> forward, backward;

  int64_t clock() const { return setup.at("clock"); }
  int steps() const { return static_cast<int>(setup.at("steps")); }
};

std::vector<int64_t> Numbers(const QString& list) {
  std::vector<int64_t> numbers;
  for (const QString& value : list.split(QLatin1Char(','))) numbers.push_back(value.toLongLong());
  return numbers;
}

Counts Parse(const QByteArray& log) {
  Counts counts;
  for (const QByteArray& raw : log.split('\n')) {
    const QStringList words = QString::fromUtf8(raw).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words.size() < 3 || words[0] != QLatin1String("count:")) continue;
    const QString& kind = words[1];
    if (kind == QLatin1String("setup")) {
      for (int i = 2; i < words.size(); ++i) {
        const QStringList pair = words[i].split(QLatin1Char('='));
        if (pair.size() == 2) counts.setup[pair[0].toStdString()] = pair[1].toLongLong();
      }
      continue;
    }
    if (kind == QLatin1String("op") || kind == QLatin1String("reads") || words.size() < 4) continue;
    const int step = words[2].toInt();
    counts.total[kind.toStdString()][step] = words[3].toLongLong();
    for (int i = 4; i < words.size() && kind == QLatin1String("timed"); ++i) {
      const QStringList pair = words[i].split(QLatin1Char('='));
      if (pair.size() != 2) continue;
      if (pair[0] == QLatin1String("forward")) {
        counts.forward[step] = Numbers(pair[1]);
      } else if (pair[0] == QLatin1String("backward")) {
        counts.backward[step] = Numbers(pair[1]);
      } else {
        counts.timed[step][pair[0].toStdString()] = pair[1].toLongLong();
      }
    }
  }
  return counts;
}

TEST(QemuSteps, SimpleMnistCountsArePositiveRepeatableAndAddUp) {
  SKIP_WITHOUT_QEMU();
  if (!QFile::exists(
          QStringLiteral(TRAINSCOPE_MODELS_DIR "/onert-micro/simple_mnist/model.circle"))) {
    GTEST_SKIP() << "simple_mnist not found in " << TRAINSCOPE_MODELS_DIR;
  }
  const QString first_log = TempPath(QStringLiteral("steps-first.log"));
  const ScriptResult first = CountSteps(QStringLiteral("netduinoplus2"), first_log, true);
  ASSERT_EQ(first.exit_code, 0) << qPrintable(first.err) << qPrintable(first.out);
  std::printf("%s", qPrintable(first.out));
  EXPECT_TRUE(first.out.contains(QLatin1String("the durations trainscope-cli received equal")));

  // QEMU -icount: a second run counts every step of every phase alike.
  const QString second_log = TempPath(QStringLiteral("steps-second.log"));
  const ScriptResult second = CountSteps(QStringLiteral("netduinoplus2"), second_log, false);
  ASSERT_EQ(second.exit_code, 0) << qPrintable(second.err);
  const QByteArray log = ReadBytes(first_log);
  ASSERT_FALSE(log.isEmpty());
  EXPECT_EQ(log, ReadBytes(second_log)) << "two runs counted different instructions";

  const Counts counts = Parse(log);
  ASSERT_EQ(counts.setup.at("resolution_ns"), 1);  // TIM2 counts instructions one by one
  ASSERT_EQ(counts.setup.at("batch"), 1);
  ASSERT_GE(counts.steps(), 3);
  const int64_t c = counts.clock();
  EXPECT_GT(c, 0);
  for (const char* phase : {"engine", "timed", "events", "no-statistics", "no-ratios", "no-memory",
                            "timing-only", "board"}) {
    ASSERT_EQ(counts.total.count(phase), 1u) << phase;
    ASSERT_EQ(counts.total.at(phase).size(), static_cast<size_t>(counts.steps())) << phase;
  }
  for (int s = 1; s <= counts.steps(); ++s) {
    SCOPED_TRACE(::testing::Message() << "step " << s);
    const auto at = [&](const char* phase) { return counts.total.at(phase).at(s); };
    const int64_t engine = at("engine") - c;
    const int64_t events = at("events") - c;
    const int64_t board = at("board");
    // Forward, loss, backward and optimizer are intervals inside the step, each with a clock
    // read to take off: they fit in the engine alone, leaving its bookkeeping.
    int64_t parts = counts.timed.at(s).at("loss") - c + counts.timed.at(s).at("optimizer") - c;
    for (int64_t value : counts.forward.at(s)) parts += value - c;
    for (int64_t value : counts.backward.at(s)) {
      if (value > 0) parts += value - c;
    }
    EXPECT_GT(parts, 0);
    EXPECT_LE(parts, engine);
    EXPECT_LT(engine - parts, engine / 20) << "the bookkeeping should be a few percent";
    // Each phase adds to the one before: timing, then every event, then the agent and the link.
    EXPECT_LT(engine, at("timed") - c);
    EXPECT_LT(at("timed") - c, events);
    EXPECT_LT(events, board);
    // The engine's event work by kind: what leaving each part out saves, counted in runs of
    // their own, adds up to what leaving all three out saves, to the instruction.
    const int64_t statistics = at("events") - at("no-statistics");
    const int64_t ratios = at("events") - at("no-ratios");
    const int64_t memory = at("events") - at("no-memory");
    EXPECT_GT(statistics, 0);
    EXPECT_GT(ratios, 0);
    EXPECT_GT(memory, 0);
    EXPECT_EQ(at("events") - at("timing-only"), statistics + ratios + memory);
    EXPECT_GT(at("timing-only") - c, engine);
  }

  // A different timer, the same instructions: mps2-an386's 25 MHz CMSDK timer reads in steps of
  // 40 ns, so an interval less the clock call (itself read to 40 ns) is within two steps of
  // netduinoplus2's exact count.
  const QString mps2_log = TempPath(QStringLiteral("steps-mps2.log"));
  const ScriptResult mps2 = CountSteps(QStringLiteral("mps2-an386"), mps2_log, false);
  ASSERT_EQ(mps2.exit_code, 0) << qPrintable(mps2.err);
  const Counts other = Parse(ReadBytes(mps2_log));
  ASSERT_EQ(other.setup.at("resolution_ns"), 40);
  ASSERT_EQ(other.steps(), counts.steps());
  const int64_t tick = 2 * 40;
  for (int s = 1; s <= counts.steps(); ++s) {
    SCOPED_TRACE(::testing::Message() << "step " << s);
    EXPECT_LE(std::abs((counts.total.at("engine").at(s) - c) -
                       (other.total.at("engine").at(s) - other.clock())),
              tick);
    ASSERT_EQ(other.forward.at(s).size(), counts.forward.at(s).size());
    for (size_t k = 0; k < counts.forward.at(s).size(); ++k) {
      EXPECT_LE(std::abs((counts.forward.at(s)[k] - c) - (other.forward.at(s)[k] - other.clock())),
                tick)
          << "forward op " << k;
      if (counts.backward.at(s)[k] == 0) continue;
      EXPECT_LE(
          std::abs((counts.backward.at(s)[k] - c) - (other.backward.at(s)[k] - other.clock())),
          tick)
          << "backward op " << k;
    }
  }
}

}  // namespace
}  // namespace trainscope
