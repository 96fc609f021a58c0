// SPDX-License-Identifier: Apache-2.0
#include "tests/cli/cli_test_util.h"

#include <QProcess>
#include <QTemporaryDir>

namespace trainscope::testing {

CliResult RunCli(const QStringList& arguments, int timeout_ms) {
  QProcess process;
  process.start(QStringLiteral(TRAINSCOPE_CLI), arguments);
  CliResult result;
  if (!process.waitForFinished(timeout_ms)) {
    process.kill();
    process.waitForFinished();
    result.err = QStringLiteral("timed out");
    return result;
  }
  result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  result.out = QString::fromUtf8(process.readAllStandardOutput());
  result.err = QString::fromUtf8(process.readAllStandardError());
  return result;
}

QString TempPath(const QString& name) {
  static QTemporaryDir dir;
  return dir.filePath(name);
}

}  // namespace trainscope::testing
