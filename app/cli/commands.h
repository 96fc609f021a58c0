// SPDX-License-Identifier: Apache-2.0
//
// trainscope-cli subcommands. Each takes the arguments after its name (argv[0] is the
// subcommand) and returns the process exit status; errors are printed to stderr as
// "error: <what> (<where>)" and give a non-zero status.
#pragma once

#include <QStringList>

namespace trainscope::cli {

int RunInspect(const QStringList& arguments);

// Prints "error: <message>" to stderr and returns the exit status for failures (2 for usage
// errors, 1 for everything else).
int Fail(const QString& message, int status = 1);

}  // namespace trainscope::cli
