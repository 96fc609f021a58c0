// SPDX-License-Identifier: Apache-2.0
//
// trainscope-board-sim: a board that trains with onert-micro and runs the TrainScope agent,
// simulated on the desktop behind a pty or a TCP port (see docs/cli.md). The first stdout line
// names the endpoint ("pty: /dev/pts/N" or "tcp: 127.0.0.1:PORT"); everything else goes to
// stderr.
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>

#include <cstdio>
#include <memory>

#include "app/board-sim/board_port.h"
#include "app/board-sim/board_simulator.h"
#include "app/board-sim/firmware_source.h"
#include "app/common/cli_util.h"
#include "app/common/training_args.h"

namespace trainscope::cli {
namespace {

void AddOptions(QCommandLineParser* parser) {
  AddTrainingDataOptions(parser);
  AddTrainingOptions(parser);
  // Only the simulator serves a link; only `trainscope-cli train` has test data and outputs.
  AddOption(parser, "pty",
            "Serve the link on a new pseudo-terminal (first line: 'pty: /dev/pts/N').");
  AddOption(parser, "tcp",
            "Serve the link on 127.0.0.1:PORT (0 = any free port; first line: 'tcp: ...').",
            "PORT");
  AddOption(parser, "baud",
            "Line rate in baud (10 bits per byte); default: as fast as the port goes.", "N");
  AddOption(parser, "corrupt-rate", "Flip one random bit in an outgoing byte with probability P.",
            "P");
  AddOption(parser, "drop-rate", "Drop an outgoing frame with probability P.", "P");
  AddOption(parser, "command-drop-rate",
            "Drop a frame from the desktop (a command) with probability P.", "P");
  AddOption(parser, "disconnect-after", "Pull the cable once, after N frames reached a desktop.",
            "N");
  AddOption(parser, "disconnect-in-tensor",
            "Pull the cable once, after N TENSOR_CHUNK frames reached a desktop: a cut in the "
            "middle of a tensor's values.",
            "N");
  AddOption(parser, "seed", "Seed of the fault injection (default 1).", "N");
  AddOption(parser, "exit-when-done", "Exit once training is done instead of serving commands.");
  AddOption(parser, "wait-for-desktop",
            "Start training only once a desktop is there (TCP: connected; pty: it wrote).");
  AddOption(parser, "loop",
            "Train the schedule again, from the weights reached, whenever it ends (a board that "
            "never finishes).");
  AddOption(parser, "firmware-source",
            "Write the model, data and resolved training options as the firmware's embedded run "
            "(a C++ source for app/firmware) to FILE, then exit.",
            "FILE");
}

Status ParseProbability(const QCommandLineParser& parser, const QString& option, double* value) {
  if (!parser.isSet(option)) return Status::Ok();
  bool ok = false;
  const double parsed = parser.value(option).toDouble(&ok);
  if (!ok || !(parsed >= 0.0 && parsed <= 1.0)) {
    return Status::Error(StatusCode::kInvalidArgument, "--%s '%s': expected a probability 0..1",
                         qPrintable(option), qPrintable(parser.value(option)));
  }
  *value = parsed;
  return Status::Ok();
}

Status ParseCount(const QCommandLineParser& parser, const QString& option, uint64_t minimum,
                  uint64_t maximum, uint64_t* value) {
  if (!parser.isSet(option)) return Status::Ok();
  bool ok = false;
  const qulonglong parsed = parser.value(option).toULongLong(&ok);
  if (!ok || parsed < minimum || parsed > maximum) {
    return Status::Error(StatusCode::kInvalidArgument, "--%s '%s': expected a number %llu..%llu",
                         qPrintable(option), qPrintable(parser.value(option)),
                         static_cast<unsigned long long>(minimum),
                         static_cast<unsigned long long>(maximum));
  }
  *value = parsed;
  return Status::Ok();
}

Status ParseLinkOptions(const QCommandLineParser& parser, SimulatorOptions* options,
                        uint64_t* tcp_port) {
  uint64_t baud = 0;
  TS_RETURN_IF_ERROR(ParseCount(parser, QStringLiteral("baud"), 300, 100000000, &baud));
  options->baud_rate = static_cast<uint32_t>(baud);
  LineFaults& faults = options->faults;
  TS_RETURN_IF_ERROR(
      ParseProbability(parser, QStringLiteral("corrupt-rate"), &faults.corrupt_rate));
  TS_RETURN_IF_ERROR(ParseProbability(parser, QStringLiteral("drop-rate"), &faults.drop_rate));
  TS_RETURN_IF_ERROR(
      ParseProbability(parser, QStringLiteral("command-drop-rate"), &faults.command_drop_rate));
  TS_RETURN_IF_ERROR(ParseCount(parser, QStringLiteral("disconnect-after"), 1, UINT64_MAX,
                                &faults.disconnect_after));
  TS_RETURN_IF_ERROR(ParseCount(parser, QStringLiteral("disconnect-in-tensor"), 1, UINT64_MAX,
                                &faults.disconnect_in_tensor));
  TS_RETURN_IF_ERROR(ParseCount(parser, QStringLiteral("seed"), 0, UINT64_MAX, &faults.seed));
  TS_RETURN_IF_ERROR(ParseCount(parser, QStringLiteral("tcp"), 0, 65535, tcp_port));
  options->board.exit_when_done = parser.isSet(QStringLiteral("exit-when-done"));
  options->wait_for_desktop = parser.isSet(QStringLiteral("wait-for-desktop"));
  options->board.loop = parser.isSet(QStringLiteral("loop"));
  if (options->board.loop && options->board.exit_when_done) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "--loop never finishes, so it does not go with --exit-when-done");
  }
  return Status::Ok();
}

int Main(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Simulate a board that trains a model and streams it over the TrainScope "
                     "protocol."));
  AddOptions(&parser);
  parser.addVersionOption();
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) {
    return exit_status;
  }
  Status status = CheckTrainingArguments(parser, QStringLiteral("trainscope-board-sim"));
  if (!status.ok()) return Fail(status);
  const bool pty = parser.isSet(QStringLiteral("pty"));
  const bool firmware_source = parser.isSet(QStringLiteral("firmware-source"));
  if (!firmware_source && pty == parser.isSet(QStringLiteral("tcp"))) {
    return Fail(QStringLiteral("give exactly one of --pty and --tcp PORT"), 2);
  }
  SimulatorOptions options;
  uint64_t tcp_port = 0;
  status = ParseLinkOptions(parser, &options, &tcp_port);
  if (!status.ok()) return Fail(status);

  Model model;
  TrainingSetup setup;
  DataSet data;
  status = LoadTrainingRun(parser, &model, &setup, &data);
  if (status.ok()) status = CheckBatchFits(data, setup.options);
  if (!status.ok()) return Fail(status);
  options.board.training = setup.options;
  options.board.trainability = setup.trainability;
  if (firmware_source) {
    const QString path = parser.value(QStringLiteral("firmware-source"));
    const QString label = QFileInfo(parser.positionalArguments().value(0)).fileName();
    status = WriteFirmwareSource(path, label, model, setup, data);
    if (!status.ok()) return Fail(status);
    std::printf("firmware source: %s (%zu model bytes, %u samples)\n", qPrintable(path),
                model.bytes().size(), data.sample_count);
    return 0;
  }

  std::unique_ptr<BoardPort> port =
      pty ? CreatePtyPort() : CreateTcpPort(static_cast<uint16_t>(tcp_port));
  status = port->Open();
  if (!status.ok()) return Fail(status);
  std::printf("%s\n", port->Address().c_str());
  std::fflush(stdout);

  BoardSimulator simulator(&model, std::move(data), options, port.get());
  status = simulator.Start();
  if (!status.ok()) return Fail(status);
  status = simulator.Run();
  return status.ok() ? 0 : Fail(status);
}

}  // namespace
}  // namespace trainscope::cli

int main(int argc, char* argv[]) {
  QCoreApplication app(argc, argv);
  QCoreApplication::setApplicationName(QStringLiteral("trainscope-board-sim"));
  QCoreApplication::setApplicationVersion(QStringLiteral(TRAINSCOPE_VERSION));
  return trainscope::cli::Main(QCoreApplication::arguments());
}
