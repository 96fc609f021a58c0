// SPDX-License-Identifier: Apache-2.0
//
// Runs trainscope-cli as a child process and captures what it printed.
#pragma once

#include <QJsonDocument>
#include <QString>
#include <QStringList>

namespace trainscope::testing {

struct CliResult {
  int exit_code = -1;
  QString out;
  QString err;
  QJsonDocument json() const { return QJsonDocument::fromJson(out.toUtf8()); }
};

CliResult RunCli(const QStringList& arguments, int timeout_ms = 60000);

// A fresh file path in a temporary directory that lives as long as the test process.
QString TempPath(const QString& name);

}  // namespace trainscope::testing
