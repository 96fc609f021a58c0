// SPDX-License-Identifier: Apache-2.0
//
// trainscope-cli subcommands. Each takes the arguments after the program name (arguments[0] is
// the subcommand) and returns the process exit status: 0 on success, 1 on failure, 2 for usage
// errors; every failure prints "error: <what and where>" to stderr.
#pragma once

#include <QStringList>

namespace trainscope::cli {

int RunInspect(const QStringList& arguments);
int RunRun(const QStringList& arguments);
int RunMemory(const QStringList& arguments);
int RunTrain(const QStringList& arguments);

}  // namespace trainscope::cli
