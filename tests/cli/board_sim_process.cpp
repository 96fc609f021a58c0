// SPDX-License-Identifier: Apache-2.0
#include "tests/cli/board_sim_process.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

namespace trainscope::testing {

QString DemoFile(const char* name) {
  return QStringLiteral(TRAINSCOPE_DEMO_DIR) + QLatin1Char('/') + QLatin1String(name);
}

int DemoSampleCount() {
  return static_cast<int>(QFileInfo(DemoFile("train_target.bin")).size() / sizeof(float));
}

QString FileHashHex(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return QString();
  uint64_t hash = 14695981039346656037ull;
  for (const char c : file.readAll()) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 1099511628211ull;
  }
  return QStringLiteral("%1").arg(hash, 16, 16, QLatin1Char('0'));
}

QStringList SimRun::Arguments() const {
  return QStringList{model, QStringLiteral("--input"), input, QStringLiteral("--target"), target} +
         training;
}

SimRun DemoRun() {
  return {DemoFile("demo.circle"),
          DemoFile("train_input.bin"),
          DemoFile("train_target.bin"),
          {QStringLiteral("--loss"), QStringLiteral("sparse-ce")}};
}

BoardSimProcess::BoardSimProcess(const QStringList& extra, int timeout_ms)
    : BoardSimProcess(DemoRun(), extra, timeout_ms) {}

BoardSimProcess::BoardSimProcess(const SimRun& run, const QStringList& extra, int timeout_ms) {
  const QStringList arguments =
      run.Arguments() + QStringList{QStringLiteral("--epochs"), QStringLiteral("100000")} + extra;
  // Nobody reads the simulator's stderr; a full pipe must never stall it.
  process_.setStandardErrorFile(QProcess::nullDevice());
  process_.start(QStringLiteral(TRAINSCOPE_BOARD_SIM), arguments);
  QElapsedTimer timer;
  timer.start();
  while (!process_.canReadLine()) {
    if (timer.elapsed() > timeout_ms || process_.state() == QProcess::NotRunning) {
      error_ = QStringLiteral("the simulator did not announce its endpoint (exit %1)")
                   .arg(process_.exitCode());
      return;
    }
    process_.waitForReadyRead(100);
  }
  const QString line = QString::fromUtf8(process_.readLine()).trimmed();
  if (line.startsWith(QLatin1String("pty: "))) {
    endpoint_ = line.mid(5);
  } else if (line.startsWith(QLatin1String("tcp: "))) {
    endpoint_ = QStringLiteral("tcp://") + line.mid(5);
  } else {
    error_ = QStringLiteral("unexpected first line '%1'").arg(line);
  }
}

BoardSimProcess::~BoardSimProcess() {
  process_.kill();
  process_.waitForFinished(5000);
}

}  // namespace trainscope::testing
