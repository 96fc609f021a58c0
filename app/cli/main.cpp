// SPDX-License-Identifier: Apache-2.0
//
// trainscope-cli: the headless face of TrainScope (inspect, run, memory, train, attach, ...).
#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>

#include "app/cli/commands.h"
#include "app/common/cli_util.h"

namespace {

constexpr char kUsage[] =
    "usage: trainscope-cli <command> [options]\n"
    "\n"
    "commands:\n"
    "  inspect MODEL [--json]                    summary of a .circle or .tflite model\n"
    "  run MODEL --input F... --output F...      forward passes on raw float32 files\n"
    "  memory MODEL [--train-layers N|--train-config F|--inference] [--json]\n"
    "                                            memory of one train step, per tick\n"
    "  train MODEL --input F --target F [...]    train with onert-micro semantics\n"
    "  attach PORT|tcp://HOST:PORT [...]         follow a board's training live\n"
    "  diff ENDPOINT MODEL --input F --target F [--step S] [--json F]\n"
    "                                            where a board's step first differs from the\n"
    "                                            reference engine, op by op, backward order\n"
    "  trace dump FILE [--json]                  print a recorded session\n"
    "  report MODEL --format F -o FILE [...]     memory report: json, csv, html, pdf, mondrian,\n"
    "                                            chrome-trace\n"
    "  fit MODEL --budget BYTES [...]            the most parameters that train within a budget\n"
    "  operators [--markdown]                    the operators the engine and onert-micro run\n"
    "\n"
    "trainscope-cli <command> --help shows the options of a command.\n";

}  // namespace

int main(int argc, char* argv[]) {
  const std::unique_ptr<QCoreApplication> app = trainscope::cli::CreateApplication(argc, argv);
  QCoreApplication::setApplicationName(QStringLiteral("trainscope-cli"));
  QCoreApplication::setApplicationVersion(QStringLiteral(TRAINSCOPE_VERSION));
  QStringList arguments = QCoreApplication::arguments();
  arguments.removeFirst();
  if (arguments.isEmpty() || arguments.first() == QLatin1String("--help") ||
      arguments.first() == QLatin1String("-h")) {
    std::fputs(kUsage, arguments.isEmpty() ? stderr : stdout);
    return arguments.isEmpty() ? 2 : 0;
  }
  if (arguments.first() == QLatin1String("--version")) {
    std::printf("trainscope-cli %s\n", TRAINSCOPE_VERSION);
    return 0;
  }
  const QString command = arguments.first();
  if (command == QLatin1String("inspect")) return trainscope::cli::RunInspect(arguments);
  if (command == QLatin1String("run")) return trainscope::cli::RunRun(arguments);
  if (command == QLatin1String("memory")) return trainscope::cli::RunMemory(arguments);
  if (command == QLatin1String("train")) return trainscope::cli::RunTrain(arguments);
  if (command == QLatin1String("attach")) return trainscope::cli::RunAttach(arguments);
  if (command == QLatin1String("diff")) return trainscope::cli::RunDiff(arguments);
  if (command == QLatin1String("trace")) return trainscope::cli::RunTrace(arguments);
  if (command == QLatin1String("report")) return trainscope::cli::RunReport(arguments);
  if (command == QLatin1String("fit")) return trainscope::cli::RunFit(arguments);
  if (command == QLatin1String("operators")) return trainscope::cli::RunOperators(arguments);
  return trainscope::cli::Fail(
      QStringLiteral("unknown command '%1' (see trainscope-cli --help)").arg(command), 2);
}
