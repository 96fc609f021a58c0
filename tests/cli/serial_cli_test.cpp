// SPDX-License-Identifier: Apache-2.0
//
// trainscope-board-sim, `trainscope-cli attach` and `trainscope-cli trace dump` end to end: the
// real executables talk the real protocol over a pty or TCP, with and without injected faults.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QProcess>
#include <QThread>

#include "tests/cli/board_sim_process.h"
#include "tests/cli/cli_test_util.h"

namespace trainscope {
namespace {

using testing::BoardSimProcess;
using testing::CliResult;
using testing::RunCli;
using testing::TempPath;

const QString kJson = QStringLiteral("--json");

CliResult Attach(const QString& endpoint, const QStringList& options) {
  return RunCli(QStringList{QStringLiteral("attach"), endpoint} + options, 20000);
}

qint64 Field(const CliResult& result, const char* key) {
  return result.json().object().value(QLatin1String(key)).toVariant().toLongLong();
}

QStringList JsonLinesOfType(const QString& text, const QString& type) {
  QStringList lines;
  const QString marker = QStringLiteral("\"type\":\"%1\"").arg(type);
  for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
    if (line.contains(marker)) lines.append(line);
  }
  return lines;
}

void ExpectCleanRun(const CliResult& result, qint64 steps) {
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString() << result.out.toStdString();
  EXPECT_GE(Field(result, "backward_steps"), steps);
  EXPECT_GT(Field(result, "frames_ok"), 0);
  EXPECT_EQ(Field(result, "frames_bad"), 0);
  EXPECT_EQ(result.json().object().value(QStringLiteral("model_hash")).toString(),
            testing::FileHashHex(testing::DemoFile("demo.circle")));
  EXPECT_EQ(result.json().object().value(QStringLiteral("agent")).toString(),
            QStringLiteral("trainscope-board-sim"));
}

TEST(BoardSimAttach, OverAPtyCountsBackwardStepsAndReportsTheModelFileHash) {
  BoardSimProcess sim({QStringLiteral("--pty")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  EXPECT_TRUE(sim.endpoint().startsWith(QLatin1String("/dev/pts/")))
      << sim.endpoint().toStdString();
  ExpectCleanRun(Attach(sim.endpoint(), {QStringLiteral("--steps"), QStringLiteral("30"), kJson}),
                 30);
  // The pty outlives a desktop session: a second attach works the same.
  ExpectCleanRun(Attach(sim.endpoint(), {QStringLiteral("--steps"), QStringLiteral("30"), kJson}),
                 30);
}

TEST(BoardSimAttach, OverTcpCountsBackwardStepsAndReportsTheModelFileHash) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  ExpectCleanRun(Attach(sim.endpoint(), {QStringLiteral("--steps"), QStringLiteral("30"), kJson}),
                 30);
}

TEST(BoardSimAttach, TheSimulatorReportsItsOwnAccountingOfTheMemoryItUsed) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  const CliResult attach =
      Attach(sim.endpoint(), {QStringLiteral("--steps"), QStringLiteral("12"), kJson});
  ExpectCleanRun(attach, 12);
  const QJsonObject memory =
      attach.json().object().value(QStringLiteral("device_memory")).toObject();
  ASSERT_FALSE(memory.isEmpty()) << attach.out.toStdString();
  const auto bytes = [](const QJsonObject& object, const char* key) {
    return object.value(QLatin1String(key)).toVariant().toLongLong();
  };
  EXPECT_EQ(memory.value(QStringLiteral("source")).toString(), QStringLiteral("accounted"));
  // The plan is the one `trainscope-cli memory` shows for the run the simulator trains.
  const CliResult plan = RunCli({QStringLiteral("memory"), testing::DemoFile("demo.circle"),
                                 QStringLiteral("--optimizer"), QStringLiteral("adam"), kJson});
  ASSERT_EQ(plan.exit_code, 0) << plan.err.toStdString();
  EXPECT_EQ(bytes(memory, "predicted_heap_peak_bytes"), Field(plan, "arena_bytes"));
  // A simulator's heap is the sum of what it allocated: nothing is left unexplained.
  const QJsonObject heap = memory.value(QStringLiteral("heap")).toObject();
  EXPECT_EQ(bytes(heap, "other"), 0);
  EXPECT_EQ(bytes(heap, "data"), QFileInfo(testing::DemoFile("train_input.bin")).size() +
                                     QFileInfo(testing::DemoFile("train_target.bin")).size());
  EXPECT_GT(bytes(heap, "model"), QFileInfo(testing::DemoFile("demo.circle")).size());
  EXPECT_GT(bytes(heap, "agent"), 8192);  // the TX ring and the agent
  EXPECT_EQ(bytes(memory, "stack_peak_bytes"), 0);
  EXPECT_EQ(bytes(memory, "total_bytes"), bytes(memory, "heap_peak_bytes"));
}

TEST(BoardSimAttach, WaitForDesktopKeepsAShortScheduleForTheFirstDesktop) {
  // One epoch of the demo trains in well under a second: without waiting it would be over
  // before the desktop came.
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"), QStringLiteral("--epochs"),
                       QStringLiteral("1"), QStringLiteral("--wait-for-desktop")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  QThread::msleep(1500);
  const int samples = testing::DemoSampleCount();
  const int every_step = samples * 6;  // 6 backward steps per sample
  const CliResult attach =
      Attach(sim.endpoint(), {QStringLiteral("--steps"), QString::number(every_step), kJson});
  ExpectCleanRun(attach, every_step);
  // Every step from the first: attach stops at the last backward step, which comes before the
  // last OPTIMIZER_STEP.
  EXPECT_EQ(Field(attach, "backward_steps"), every_step);
  EXPECT_GE(Field(attach, "optimizer_steps"), samples - 1);
}

TEST(BoardSimAttach, LoopTrainsTheScheduleAgainInsteadOfFinishing) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"), QStringLiteral("--epochs"),
                       QStringLiteral("1"), QStringLiteral("--wait-for-desktop"),
                       QStringLiteral("--loop")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  // Two and a half schedules of backward steps: only a looping board has that many.
  const int steps = testing::DemoSampleCount() * 6 * 5 / 2;
  const CliResult attach =
      Attach(sim.endpoint(), {QStringLiteral("--steps"), QString::number(steps), kJson});
  ExpectCleanRun(attach, steps);
  EXPECT_EQ(attach.json().object().value(QStringLiteral("board_activity")).toString(),
            QStringLiteral("training"));
  QProcess refused;
  refused.start(
      QStringLiteral(TRAINSCOPE_BOARD_SIM),
      {testing::DemoFile("demo.circle"), QStringLiteral("--input"),
       testing::DemoFile("train_input.bin"), QStringLiteral("--target"),
       testing::DemoFile("train_target.bin"), QStringLiteral("--tcp"), QStringLiteral("0"),
       QStringLiteral("--loop"), QStringLiteral("--exit-when-done")});
  ASSERT_TRUE(refused.waitForFinished(10000));
  EXPECT_EQ(refused.exitCode(), 2);
  EXPECT_TRUE(refused.readAllStandardError().contains("--loop"));
}

TEST(BoardSimAttach, ACorruptedLineStillDeliversStepsAndCountsBadFrames) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"),
                       QStringLiteral("--corrupt-rate"), QStringLiteral("0.001"),
                       QStringLiteral("--seed"), QStringLiteral("7")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  const CliResult result =
      Attach(sim.endpoint(), {QStringLiteral("--steps"), QStringLiteral("200"), kJson});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  EXPECT_GE(Field(result, "backward_steps"), 200);
  EXPECT_GT(Field(result, "frames_bad"), 0);
  EXPECT_GT(Field(result, "frames_ok"), Field(result, "frames_bad"));
}

TEST(BoardSimAttach, DroppedFramesShowAsSequenceGaps) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"), QStringLiteral("--drop-rate"),
                       QStringLiteral("0.05")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  const CliResult result =
      Attach(sim.endpoint(), {QStringLiteral("--steps"), QStringLiteral("100"), kJson});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  EXPECT_EQ(Field(result, "frames_bad"), 0);  // whole frames vanish; nothing is torn
  EXPECT_GT(Field(result, "frames_dropped"), 0);
  EXPECT_EQ(Field(result, "agent_drops"), 0);  // the line lost them, not the board
}

void ExpectDisconnectThenRecovery(const QStringList& sim_options) {
  BoardSimProcess sim(sim_options +
                      QStringList{QStringLiteral("--disconnect-after"), QStringLiteral("200")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  const CliResult first =
      Attach(sim.endpoint(), {QStringLiteral("--steps"), QStringLiteral("1000000"),
                              QStringLiteral("--timeout"), QStringLiteral("15"), kJson});
  EXPECT_EQ(first.exit_code, 1) << first.out.toStdString();
  EXPECT_TRUE(first.err.contains(QStringLiteral("link lost"))) << first.err.toStdString();
  EXPECT_TRUE(first.json().object().value(QStringLiteral("link_lost")).toBool());
  EXPECT_GT(Field(first, "frames_ok"), 0);
  EXPECT_LE(Field(first, "frames_ok"), 200);
  ExpectCleanRun(Attach(sim.endpoint(), {QStringLiteral("--steps"), QStringLiteral("30"), kJson}),
                 30);
}

TEST(BoardSimAttach, DisconnectAfterClosesTheTcpLinkAndTheNextAttachWorks) {
  ExpectDisconnectThenRecovery({QStringLiteral("--tcp"), QStringLiteral("0")});
}

TEST(BoardSimAttach, DisconnectAfterSilencesThePtyAndTheNextAttachWorks) {
  ExpectDisconnectThenRecovery({QStringLiteral("--pty")});
}

TEST(BoardSimAttach, PauseThenStepDeliversExactlyTheSteppedBackwardOps) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  for (const int steps : {3, 0}) {
    const CliResult result =
        Attach(sim.endpoint(), {QStringLiteral("--pause-after"), QStringLiteral("10"),
                                QStringLiteral("--step"), QString::number(steps), kJson});
    ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
    EXPECT_EQ(Field(result, "paused_backward_steps"), steps);
    EXPECT_EQ(Field(result, "board_steps_while_paused"), steps);
    EXPECT_EQ(Field(result, "commands_resent"), 0);  // a clean link needs no second try
    EXPECT_GE(Field(result, "backward_steps"), 10);
    EXPECT_FALSE(result.json().object().value(QStringLiteral("paused")).toBool());  // resumed
  }
}

TEST(BoardSimAttach, OnALossyLinkPauseAndStepAreRetriedUntilTheBoardDidExactlyThem) {
  // A fifth of the board's frames and a third of the commands vanish: commands go out again
  // under their ids, the board answers repeats without stepping twice, lost run-state reports
  // come again with the heartbeat, and a lost model announcement is asked for again.
  qint64 resent = 0;
  for (const char* seed : {"1", "3", "5"}) {
    BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"),
                         QStringLiteral("--drop-rate"), QStringLiteral("0.2"),
                         QStringLiteral("--command-drop-rate"), QStringLiteral("0.3"),
                         QStringLiteral("--seed"), QLatin1String(seed)});
    ASSERT_TRUE(sim.started()) << sim.error().toStdString();
    const CliResult result =
        Attach(sim.endpoint(), {QStringLiteral("--pause-after"), QStringLiteral("10"),
                                QStringLiteral("--step"), QStringLiteral("3"), kJson});
    ASSERT_EQ(result.exit_code, 0) << "seed " << seed << ": " << result.err.toStdString();
    EXPECT_EQ(Field(result, "board_steps_while_paused"), 3) << "seed " << seed;
    EXPECT_LE(Field(result, "paused_backward_steps"), 3) << "seed " << seed;  // some were lost
    EXPECT_FALSE(result.json().object().value(QStringLiteral("paused")).toBool()) << seed;
    EXPECT_TRUE(result.json().object().value(QStringLiteral("model_hash")).isString()) << seed;
    resent += Field(result, "commands_resent");
  }
  EXPECT_GT(resent, 0);  // the faults did reach the commands
}

TEST(BoardSimAttach, BadEndpointsFailFastWithAnError) {
  QElapsedTimer timer;
  timer.start();
  for (const QString& endpoint :
       {QStringLiteral("/dev/pts/987654"), QStringLiteral("tcp://127.0.0.1:1"),
        QStringLiteral("tcp://127.0.0.1"), QStringLiteral("tcp-listen://:0")}) {
    const CliResult result = Attach(endpoint, {QStringLiteral("--steps"), QStringLiteral("5")});
    EXPECT_NE(result.exit_code, 0) << endpoint.toStdString();
    EXPECT_TRUE(result.err.startsWith(QLatin1String("error: "))) << result.err.toStdString();
  }
  const QString not_a_tty = TempPath(QStringLiteral("plain.txt"));
  QFile file(not_a_tty);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.close();
  const CliResult result = Attach(not_a_tty, {QStringLiteral("--steps"), QStringLiteral("5")});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(result.err.contains(QStringLiteral("not a terminal"))) << result.err.toStdString();
  EXPECT_LT(timer.elapsed(), 10000);
}

TEST(TraceDump, ARecordingHoldsExactlyTheBackwardStepsTheAttachCounted) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  const QString trace = TempPath(QStringLiteral("session.tstrace"));
  const CliResult attach = Attach(sim.endpoint(), {QStringLiteral("--steps"), QStringLiteral("50"),
                                                   QStringLiteral("--record"), trace, kJson});
  ASSERT_EQ(attach.exit_code, 0) << attach.err.toStdString();

  const CliResult dump = RunCli({QStringLiteral("trace"), QStringLiteral("dump"), trace, kJson});
  ASSERT_EQ(dump.exit_code, 0) << dump.err.toStdString();
  EXPECT_EQ(JsonLinesOfType(dump.out, QStringLiteral("backward_step")).size(),
            Field(attach, "backward_steps"));
  EXPECT_GE(JsonLinesOfType(dump.out, QStringLiteral("hello")).size(), 1);
  EXPECT_GE(JsonLinesOfType(dump.out, QStringLiteral("optimizer_step")).size(),
            Field(attach, "optimizer_steps"));
  const QStringList end = JsonLinesOfType(dump.out, QStringLiteral("trace"));
  ASSERT_EQ(end.size(), 1);
  const QJsonObject summary = QJsonDocument::fromJson(end.first().toUtf8()).object();
  EXPECT_EQ(summary.value(QStringLiteral("frames_ok")).toInteger(), Field(attach, "frames_ok"));
  EXPECT_EQ(summary.value(QStringLiteral("model_hash")).toString(),
            testing::FileHashHex(testing::DemoFile("demo.circle")));

  const CliResult text = RunCli({QStringLiteral("trace"), QStringLiteral("dump"), trace});
  ASSERT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_EQ(text.out.count(QStringLiteral("BACKWARD_STEP   end")), Field(attach, "backward_steps"));
  EXPECT_TRUE(text.out.contains(QStringLiteral("HELLO           agent 'trainscope-board-sim'")));
}

TEST(TraceDump, AKilledRecorderLeavesATraceThatDumpsUpToTheKill) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0"), QStringLiteral("--baud"),
                       QStringLiteral("460800")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  const QString trace = TempPath(QStringLiteral("killed.tstrace"));
  QProcess attach;
  attach.start(QStringLiteral(TRAINSCOPE_CLI),
               {QStringLiteral("attach"), sim.endpoint(), QStringLiteral("--timeout"),
                QStringLiteral("20"), QStringLiteral("--record"), trace});
  QElapsedTimer timer;
  timer.start();
  while (QFileInfo(trace).size() < 20000 && timer.elapsed() < 10000) QThread::msleep(20);
  attach.kill();  // SIGKILL: no chance to close anything
  attach.waitForFinished(5000);
  ASSERT_GE(QFileInfo(trace).size(), 20000);

  const CliResult dump = RunCli({QStringLiteral("trace"), QStringLiteral("dump"), trace, kJson});
  ASSERT_EQ(dump.exit_code, 0) << dump.err.toStdString();
  EXPECT_GT(JsonLinesOfType(dump.out, QStringLiteral("backward_step")).size(), 0);
  const QJsonObject summary =
      QJsonDocument::fromJson(JsonLinesOfType(dump.out, QStringLiteral("trace")).value(0).toUtf8())
          .object();
  EXPECT_EQ(summary.value(QStringLiteral("frames_bad")).toInteger(), 0);
  const bool torn = summary.value(QStringLiteral("torn_tail_bytes")).toInteger() > 0;
  EXPECT_EQ(dump.err.contains(QStringLiteral("warning:")), torn) << dump.err.toStdString();

  // Cut the same trace inside a frame: always a warning, never an error.
  QFile file(trace);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  QByteArray bytes = file.readAll();
  file.close();
  const qsizetype last_delimiter = bytes.lastIndexOf('\0');
  ASSERT_GT(last_delimiter, 100);
  bytes.truncate(last_delimiter - 3);
  const QString cut = TempPath(QStringLiteral("cut.tstrace"));
  QFile out(cut);
  ASSERT_TRUE(out.open(QIODevice::WriteOnly));
  out.write(bytes);
  out.close();
  const CliResult torn_dump = RunCli({QStringLiteral("trace"), QStringLiteral("dump"), cut, kJson});
  EXPECT_EQ(torn_dump.exit_code, 0);
  EXPECT_TRUE(torn_dump.err.startsWith(QLatin1String("warning:"))) << torn_dump.err.toStdString();
}

TEST(TraceDump, ABadHeaderOrAMissingFileIsAnError) {
  const QString bad = TempPath(QStringLiteral("bad.tstrace"));
  QFile file(bad);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write("NOTATRACE-------------------------------------------");
  file.close();
  CliResult result = RunCli({QStringLiteral("trace"), QStringLiteral("dump"), bad});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(result.err.startsWith(QLatin1String("error: "))) << result.err.toStdString();
  result = RunCli({QStringLiteral("trace"), QStringLiteral("dump"),
                   TempPath(QStringLiteral("missing.tstrace"))});
  EXPECT_EQ(result.exit_code, 1);
  result = RunCli({QStringLiteral("trace"), QStringLiteral("list"), bad});
  EXPECT_EQ(result.exit_code, 2);
}

}  // namespace
}  // namespace trainscope
