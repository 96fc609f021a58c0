// SPDX-License-Identifier: Apache-2.0
#include "tests/firmware/qemu_board_process.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcessEnvironment>
#include <QStandardPaths>

#include "tests/cli/board_sim_process.h"
#include "tests/cli/cli_test_util.h"

namespace trainscope::testing {
namespace {

constexpr int kBuildAndStartMs = 600000;  // a cold cross build of the engine on 2 cores

QString ReadAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

}  // namespace

QString MissingQemuTool() {
  for (const char* tool : {"qemu-system-arm", "arm-none-eabi-g++", "flock"}) {
    if (QStandardPaths::findExecutable(QLatin1String(tool)).isEmpty()) return QLatin1String(tool);
  }
  return QString();
}

QStringList DemoRunFor(int epochs) {
  return DemoRun().Arguments() + QStringList{QStringLiteral("--epochs"), QString::number(epochs)};
}

QemuBoard::QemuBoard(const QStringList& run, const QString& board) {
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("TRAINSCOPE_HOST_BUILD"),
                     QStringLiteral(TRAINSCOPE_HOST_BUILD_DIR));
  environment.insert(QStringLiteral("TRAINSCOPE_FIRMWARE_BUILD"),
                     QStringLiteral(TRAINSCOPE_FIRMWARE_BUILD_DIR));
  process_.setProcessEnvironment(environment);
  log_ = TempPath(QStringLiteral("uart1-%1.log").arg(board));
  const QString err = TempPath(QStringLiteral("run-qemu-board-%1.err").arg(board));
  process_.setStandardErrorFile(err);
  process_.start(QStringLiteral(TRAINSCOPE_RUN_QEMU_BOARD),
                 run + QStringList{QStringLiteral("--board"), board, QStringLiteral("--tcp"),
                                   QStringLiteral("0"), QStringLiteral("--log"), log_});
  QElapsedTimer timer;
  timer.start();
  while (!process_.canReadLine()) {
    if (timer.elapsed() > kBuildAndStartMs || process_.state() == QProcess::NotRunning) {
      error_ = QStringLiteral("the board did not start (exit %1): %2")
                   .arg(process_.exitCode())
                   .arg(ReadAll(err).right(2000));
      return;
    }
    process_.waitForReadyRead(200);
  }
  const QString line = QString::fromUtf8(process_.readLine()).trimmed();
  if (line.startsWith(QLatin1String("tcp: "))) {
    endpoint_ = QStringLiteral("tcp://") + line.mid(5);
  } else {
    error_ = QStringLiteral("unexpected first line '%1'").arg(line);
  }
}

QemuBoard::~QemuBoard() {
  process_.terminate();  // the script's trap stops QEMU
  if (!process_.waitForFinished(10000)) process_.kill();
}

QString QemuBoard::log() const {
  return ReadAll(log_);
}

}  // namespace trainscope::testing
