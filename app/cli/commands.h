// SPDX-License-Identifier: Apache-2.0
//
// trainscope-cli subcommands. Each takes the arguments after the program name (arguments[0] is
// the subcommand) and returns the process exit status: 0 on success, 1 on failure, 2 for usage
// errors; every failure prints "error: <what and where>" to stderr.
#pragma once

#include <QCoreApplication>
#include <QStringList>

#include <memory>

namespace trainscope::cli {

int RunInspect(const QStringList& arguments);
int RunRun(const QStringList& arguments);
int RunMemory(const QStringList& arguments);
int RunTrain(const QStringList& arguments);
int RunAttach(const QStringList& arguments);
int RunTrace(const QStringList& arguments);
int RunReport(const QStringList& arguments);
int RunFit(const QStringList& arguments);
int RunOperators(const QStringList& arguments);
int RunDiff(const QStringList& arguments);

// QGuiApplication (offscreen unless QT_QPA_PLATFORM says otherwise) for `report`, whose PDF
// draws text; QCoreApplication for every other command.
std::unique_ptr<QCoreApplication> CreateApplication(int& argc, char** argv);

}  // namespace trainscope::cli
