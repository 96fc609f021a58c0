// SPDX-License-Identifier: Apache-2.0
//
// trainscope: the desktop debugger. Started without a model it opens the bundled demo and is
// ready to train (F5). Headless (--screenshot) it trains for a while on the offscreen platform,
// saves a picture of the window and exits: the main job on a machine without a display.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QScreen>
#include <QTimer>

#include <cstdio>

#include "app/common/cli_util.h"
#include "app/gui/app_controller.h"
#include "ui/device/device_session_controller.h"
#include "ui/replay/replay_controller.h"
#include "ui/session/trace_snapshot.h"
#include "ui/views/main_window.h"

using trainscope::AppController;
using trainscope::MainWindow;
using trainscope::SessionFiles;

int main(int argc, char* argv[]) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("TrainScope"));
  QApplication::setApplicationName(QStringLiteral("trainscope"));
  QApplication::setApplicationVersion(QStringLiteral(TRAINSCOPE_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Visual debugger for on-device training."));
  parser.addVersionOption();
  parser.addPositionalArgument(
      QStringLiteral("MODEL"),
      QStringLiteral(".circle or .tflite model (default: the bundled demo)"),
      QStringLiteral("[MODEL]"));
  parser.addOption({QStringLiteral("input"),
                    QStringLiteral("Training inputs (raw float32), one per graph input."),
                    QStringLiteral("FILE")});
  parser.addOption({QStringLiteral("target"), QStringLiteral("Training targets (raw float32)."),
                    QStringLiteral("FILE")});
  parser.addOption(
      {QStringLiteral("screenshot"),
       QStringLiteral("Train headless for --steps optimizer steps, save the window as PNG, exit."),
       QStringLiteral("FILE")});
  parser.addOption({QStringLiteral("steps"),
                    QStringLiteral("Optimizer steps before --screenshot (default 40)."),
                    QStringLiteral("N"), QStringLiteral("40")});
  if (const int exit_status = trainscope::cli::ParseOrExit(&parser, QApplication::arguments());
      exit_status >= 0) {
    return exit_status;
  }

  SessionFiles files;
  if (parser.positionalArguments().isEmpty()) {
    files = trainscope::DemoSessionFiles();
    if (files.model.isEmpty())
      return trainscope::cli::Fail(QStringLiteral("the bundled demo model was not found"));
  } else {
    files.model = parser.positionalArguments().first();
    files.inputs = parser.values(QStringLiteral("input"));
    files.target = parser.value(QStringLiteral("target"));
    if (files.inputs.isEmpty() != files.target.isEmpty()) {
      return trainscope::cli::Fail(QStringLiteral("--input and --target go together"), 2);
    }
  }

  auto store = std::make_shared<trainscope::TraceStore>();
  MainWindow window;
  window.setStore(store);
  AppController controller(&window, store);
  trainscope::Status status = controller.open(files);
  // Device > Connect: a board (or trainscope-board-sim) as the window's source; its model file is
  // looked up by hash next to the model opened here and among the recent files.
  trainscope::DeviceSessionController device(store);
  device.setModelSearchPaths({QFileInfo(files.model).absolutePath()});
  device.install(&window);
  // File > Open Trace / Compare Traces, the replay timeline, view exports; embedded sessions are
  // recorded to the per-user recordings folder as they run.
  trainscope::ReplayController replay(store);
  replay.install(&window);
  const QString screenshot = parser.value(QStringLiteral("screenshot"));
  if (!status.ok() && !screenshot.isEmpty()) return trainscope::cli::Fail(status);
  window.show();
  if (screenshot.isEmpty()) return QApplication::exec();

  bool steps_ok = false;
  const uint64_t steps = parser.value(QStringLiteral("steps")).toULongLong(&steps_ok);
  if (!steps_ok || !screenshot.endsWith(QLatin1String(".png"), Qt::CaseInsensitive)) {
    return trainscope::cli::Fail(
        QStringLiteral("--screenshot needs a .png path and --steps a number"), 2);
  }
  controller.source()->start();
  QTimer poll;
  int exit_status = 0;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    const auto snapshot = store->snapshot();
    if (snapshot->progress.optimizer_step < steps &&
        controller.source()->state() != trainscope::EventSource::State::kStopped) {
      return;
    }
    controller.source()->pause();
    poll.stop();
    // Two repaint periods so every view shows the last batch.
    QTimer::singleShot(150, [&] {
      if (!window.grab().save(screenshot)) {
        std::fprintf(stderr, "error: cannot write '%s'\n", qPrintable(screenshot));
        exit_status = 1;
      } else {
        std::printf("trained %llu optimizer steps; window saved to %s\n",
                    static_cast<unsigned long long>(store->snapshot()->progress.optimizer_step),
                    qPrintable(screenshot));
        std::printf("%s\n", qPrintable(window.statusText()));
      }
      controller.source()->stop();
      QApplication::exit(exit_status);
    });
  });
  poll.start(50);
  return QApplication::exec();
}
