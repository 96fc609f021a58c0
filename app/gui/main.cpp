// SPDX-License-Identifier: Apache-2.0
//
// trainscope: the desktop debugger. Started without a model it opens the bundled demo and is
// ready to train (F5); the training options are trainscope-cli train's. Headless (--screenshot,
// --state-json) it trains exactly --steps optimizer steps on the offscreen platform, saves a
// picture of the window or what the views show, and exits: the main job on a machine without a
// display, and the state that tests hold equal to the CLI.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QScreen>
#include <QTimer>

#include <QStandardPaths>

#include <cstdio>
#include <functional>

#include "app/common/cli_util.h"
#include "app/common/training_args.h"
#include "app/gui/app_controller.h"
#include "app/gui/state_dump.h"
#include "engine/kernels/kernel.h"
#include "ui/controllers/comparison_controller.h"
#include "ui/controllers/device_session_controller.h"
#include "ui/controllers/experiment_controller.h"
#include "ui/controllers/replay_controller.h"
#include "ui/session/session_snapshot.h"
#include "ui/widgets/experiments/experiments_view.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/main_window/view_export.h"
#include "ui/widgets/tensors/tensor_panel.h"

using trainscope::AppController;
using trainscope::MainWindow;
using trainscope::SessionFiles;

namespace {

// --help, --version and the headless modes need no display: without one, and without a platform
// chosen, they get the offscreen platform before QApplication looks for a display.
void PreferOffscreenWhenHeadless(int argc, char* argv[]) {
  if (qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) return;
  for (int i = 1; i < argc; ++i) {
    const QByteArray arg(argv[i]);
    if (arg == "--help" || arg == "-h" || arg == "--version" || arg == "-v" ||
        arg.startsWith("--state-json") || arg.startsWith("--screenshot")) {
      qputenv("QT_QPA_PLATFORM", "offscreen");
      return;
    }
  }
}

// The dump's run: exactly `steps` optimizer steps, one stepBatch() after another.
void RunSteps(trainscope::EventSource* source, const trainscope::SessionStore& store,
              uint64_t steps, const std::function<void()>& done) {
  auto* poll = new QTimer(source);
  QObject::connect(poll, &QTimer::timeout, source, [=, &store] {
    const uint64_t completed = store.snapshot()->progress.last_optimizer_step;
    const auto state = source->state();
    if (completed >= steps ||
        (state == trainscope::EventSource::State::kStopped && completed > 0)) {
      poll->stop();
      poll->deleteLater();
      done();
      return;
    }
    if (state != trainscope::EventSource::State::kRunning) source->stepBatch();
  });
  source->stepBatch();
  poll->start(10);
}

// Shows `op`'s weight gradient (its output when it has no weights) once the source paused after
// one more sample, then calls `done` when the answer is on screen (or after 10 s regardless).
void InspectOp(MainWindow* window, trainscope::EventSource* source, int op,
               const std::function<void()>& done) {
  const trainscope::Operator& node = window->graph().main().operators[static_cast<size_t>(op)];
  int32_t tensor = node.outputs.empty() ? -1 : node.outputs[0];
  for (size_t input = 0; input < node.inputs.size(); ++input) {
    if (trainscope::IsWeightInput(node, input)) {
      tensor = node.inputs[input];
      break;
    }
  }
  window->showTensorsOf(op);
  trainscope::TensorPanel* panel = window->tensorPanel();
  auto finished = std::make_shared<bool>(false);
  auto finish = [finished, done] {
    if (*finished) return;
    *finished = true;
    done();
  };
  QObject::connect(
      source, &trainscope::EventSource::tensorValuesReady, window,
      [panel, finish](const trainscope::TensorValuesPtr& values) {
        if (values && values->unavailable.isEmpty() && values->request == panel->request()) {
          finish();
        }
      });
  QTimer::singleShot(10000, window, finish);
  panel->choose(tensor, trainscope::TensorAspect::kGradient);
  source->stepSample();  // the panel asks again when the source pauses there
}

// A board (or the local engine at full speed) trains on its own: the views are captured once it
// reached `steps` optimizer steps, or after `timeout_ms` with what arrived by then.
void WaitForSteps(QObject* owner, const trainscope::SessionStore& store, uint64_t steps,
                  int timeout_ms, const std::function<void()>& done) {
  auto* poll = new QTimer(owner);
  auto* clock = new QElapsedTimer;
  clock->start();
  QObject::connect(poll, &QTimer::timeout, owner, [=, &store] {
    if (store.snapshot()->progress.last_optimizer_step < steps && clock->elapsed() < timeout_ms) {
      return;
    }
    poll->stop();
    poll->deleteLater();
    delete clock;
    done();
  });
  poll->start(20);
}

}  // namespace

int main(int argc, char* argv[]) {
  PreferOffscreenWhenHeadless(argc, argv);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("TrainScope"));
  QApplication::setApplicationName(QStringLiteral("trainscope"));
  QApplication::setApplicationVersion(QStringLiteral(TRAINSCOPE_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Visual debugger for on-device training. The training options are those of "
                     "trainscope-cli train."));
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
  trainscope::cli::AddTrainingOptions(&parser);
  parser.addOption(
      {QStringLiteral("screenshot"),
       QStringLiteral("Train headless for --steps optimizer steps, save the window as PNG, exit."),
       QStringLiteral("FILE")});
  parser.addOption(
      {QStringLiteral("state-json"),
       QStringLiteral("Train headless for exactly --steps optimizer steps, write what the views "
                      "show as JSON, exit. Saved settings are ignored and nothing is recorded."),
       QStringLiteral("FILE")});
  parser.addOption(
      {QStringLiteral("connect"),
       QStringLiteral("Attach to a board (or trainscope-board-sim, scripts/run-qemu-board.sh) at "
                      "ENDPOINT (/dev/ttyACM0, /dev/pts/N, tcp://HOST:PORT) instead of training "
                      "locally; with --screenshot, capture after --steps of its optimizer steps."),
       QStringLiteral("ENDPOINT")});
  parser.addOption(
      {QStringLiteral("experiment"),
       QStringLiteral("With --screenshot: show the Experiments dock, train its arms (all layers "
                      "against the last 2 layers, from the same initial weights) and capture "
                      "once they finished.")});
  parser.addOption(
      {QStringLiteral("inspect"),
       QStringLiteral("With --screenshot: after --steps, train one more sample and show operator "
                      "OP's weight gradient (its output when it has no weights) in the Tensor "
                      "values dock."),
       QStringLiteral("OP")});
  parser.addOption(
      {QStringLiteral("full-speed"),
       QStringLiteral("With --screenshot: train at full speed (Run) until --steps optimizer steps "
                      "have run and capture while it trains, as the views are at full speed.")});
  parser.addOption(
      {QStringLiteral("comparison"),
       QStringLiteral("Open a board-against-reference report (trainscope-cli diff --json FILE "
                      "--values) in the Comparison dock; without MODEL, its model is opened."),
       QStringLiteral("FILE")});
  parser.addOption({QStringLiteral("window-size"),
                    QStringLiteral("With --screenshot: the window's size, e.g. 1366x768."),
                    QStringLiteral("WxH")});
  parser.addOption({QStringLiteral("record"),
                    QStringLiteral("Record the session to the recordings folder even when "
                                   "headless (--screenshot records nothing unless asked).")});
  parser.addOption({QStringLiteral("steps"),
                    QStringLiteral("Optimizer steps before --screenshot or --state-json "
                                   "(default 40)."),
                    QStringLiteral("N"), QStringLiteral("40")});
  if (const int exit_status = trainscope::cli::ParseOrExit(&parser, QApplication::arguments());
      exit_status >= 0) {
    return exit_status;
  }
  const QString screenshot = parser.value(QStringLiteral("screenshot"));
  const QString state_json = parser.value(QStringLiteral("state-json"));
  const bool headless = !screenshot.isEmpty() || !state_json.isEmpty();
  bool steps_ok = false;
  const uint64_t steps = parser.value(QStringLiteral("steps")).toULongLong(&steps_ok);
  if (headless &&
      (!steps_ok || (!screenshot.isEmpty() &&
                     !screenshot.endsWith(QLatin1String(".png"), Qt::CaseInsensitive)))) {
    return trainscope::cli::Fail(
        QStringLiteral("--screenshot needs a .png path and --steps a number"), 2);
  }
  QSize window_size;
  if (parser.isSet(QStringLiteral("window-size"))) {
    const QStringList parts = parser.value(QStringLiteral("window-size")).split(QLatin1Char('x'));
    bool width_ok = false, height_ok = false;
    if (parts.size() == 2) {
      window_size = QSize(parts[0].toInt(&width_ok), parts[1].toInt(&height_ok));
    }
    if (!width_ok || !height_ok || window_size.width() < 320 || window_size.height() < 240 ||
        window_size.width() > 16384 || window_size.height() > 16384) {
      return trainscope::cli::Fail(
          QStringLiteral("--window-size '%1' is not WxH between 320x240 and 16384x16384")
              .arg(parser.value(QStringLiteral("window-size"))),
          2);
    }
  }
  const bool experiment = parser.isSet(QStringLiteral("experiment"));
  const bool inspect = parser.isSet(QStringLiteral("inspect"));
  const bool full_speed = parser.isSet(QStringLiteral("full-speed"));
  if ((experiment || inspect || full_speed || window_size.isValid()) && screenshot.isEmpty()) {
    return trainscope::cli::Fail(
        QStringLiteral("--experiment, --inspect, --full-speed and --window-size go with "
                       "--screenshot"),
        2);
  }
  bool inspect_ok = !inspect;
  const int inspect_op = inspect ? parser.value(QStringLiteral("inspect")).toInt(&inspect_ok) : -1;
  if (!inspect_ok || (inspect && inspect_op < 0)) {
    return trainscope::cli::Fail(QStringLiteral("--inspect '%1' is not an operator index")
                                     .arg(parser.value(QStringLiteral("inspect"))),
                                 2);
  }
  if (parser.isSet(QStringLiteral("connect")) && !state_json.isEmpty()) {
    return trainscope::cli::Fail(QStringLiteral("--state-json describes a local run; it does not "
                                                "go with --connect"),
                                 2);
  }
  // A dump describes this run alone: no remembered setup, layout or recent files.
  if (!state_json.isEmpty()) QStandardPaths::setTestModeEnabled(true);

  // A comparison names the model it was made with: opened instead of the demo.
  const QString comparison_path = parser.value(QStringLiteral("comparison"));
  trainscope::StepComparisonPtr comparison_file;
  if (!comparison_path.isEmpty()) {
    if (trainscope::Status read = trainscope::LoadStepComparison(comparison_path, &comparison_file);
        !read.ok()) {
      return trainscope::cli::Fail(QString::fromUtf8(read.message()), 2);
    }
  }
  SessionFiles files;
  if (parser.positionalArguments().isEmpty() && comparison_file &&
      QFileInfo::exists(comparison_file->model)) {
    files.model = comparison_file->model;
  } else if (parser.positionalArguments().isEmpty()) {
    files = trainscope::DemoSessionFiles();
    if (files.model.isEmpty())
      return trainscope::cli::Fail(QStringLiteral("the bundled demo model was not found"));
  } else {
    files.model = parser.positionalArguments().first();
  }
  files.inputs = parser.values(QStringLiteral("input"));
  files.target = parser.value(QStringLiteral("target"));
  if (files.inputs.isEmpty() != files.target.isEmpty()) {
    return trainscope::cli::Fail(QStringLiteral("--input and --target go together"), 2);
  }
  if (!state_json.isEmpty()) {
    trainscope::Model readable;
    if (trainscope::Status read = trainscope::ReadModelFile(files.model.toStdString(), &readable);
        !read.ok()) {
      return trainscope::cli::Fail(QString::fromUtf8(read.message()), 2);
    }
  }

  auto store = std::make_shared<trainscope::SessionStore>();
  MainWindow window;
  window.setStore(store);
  AppController controller(&window, store);
  // Training options on the command line set the session up as trainscope-cli train would.
  static const char* const kTrainingOptions[] = {
      "optimizer", "lr",    "beta1",  "beta2",        "epsilon",     "loss",
      "metric",    "batch", "epochs", "train-layers", "train-config"};
  bool options_given = !state_json.isEmpty();
  for (const char* option : kTrainingOptions) {
    options_given = options_given || parser.isSet(QLatin1String(option));
  }
  trainscope::SetupResolver from_command_line;
  if (options_given) {
    from_command_line = [&parser](const trainscope::Model& model,
                                  trainscope::cli::TrainingSetup* setup) {
      return trainscope::cli::ParseTrainingSetup(parser, model, setup);
    };
  }
  trainscope::Status status = controller.open(files, from_command_line);
  if (!status.ok() && status.code() == trainscope::StatusCode::kInvalidArgument && headless) {
    return trainscope::cli::Fail(QString::fromUtf8(status.message()), 2);
  }
  // Device > Connect: a board (or trainscope-board-sim) as the window's source; its model file is
  // looked up by hash next to the model opened here and among the recent files.
  trainscope::DeviceSessionController device(store);
  device.setModelSearchPaths({QFileInfo(files.model).absolutePath()});
  device.install(&window);
  // File > Open Trace / Compare Traces, the replay timeline, view exports; local sessions are
  // recorded to the per-user recordings folder as they run.
  trainscope::ReplayController replay(store);
  if (headless && !parser.isSet(QStringLiteral("record"))) replay.setRecordingEnabled(false);
  replay.install(&window);
  // Training > Compare Trainability: arms trained from the same initial weights.
  trainscope::ExperimentController experiments;
  experiments.install(&window);
  // File > Open Comparison: a diff report beside the graph.
  trainscope::ComparisonController comparison;
  comparison.install(&window);
  trainscope::InstallViewExports(&window);  // every view: PNG, SVG, PDF; tables: CSV
  // Readable but not trainable (an int8 model, an operator the engine cannot run): read-only.
  const bool read_only = !status.ok() && !window.graph().subgraphs.empty();
  if (headless && !status.ok() && !read_only) return trainscope::cli::Fail(status);
  const QString endpoint = parser.value(QStringLiteral("connect"));
  if (!endpoint.isEmpty()) {
    if (trainscope::Status connected = device.connectTo(endpoint); !connected.ok()) {
      return trainscope::cli::Fail(connected);
    }
  }
  if (!comparison_path.isEmpty()) {
    if (trainscope::Status shown = comparison.open(comparison_path); !shown.ok()) {
      return trainscope::cli::Fail(shown);
    }
  }
  if (window_size.isValid()) window.resize(window_size);
  window.show();
  if (window_size.isValid()) window.resize(window_size);  // after show() set the default size
  if (!headless) return QApplication::exec();

  int exit_status = 0;
  const auto save_screenshot = [&](uint64_t trained) {
    if (screenshot.isEmpty()) return;
    if (!window.grab().save(screenshot)) {
      std::fprintf(stderr, "error: cannot write '%s'\n", qPrintable(screenshot));
      exit_status = 1;
      return;
    }
    std::printf("trained %llu optimizer steps; window saved to %s\n",
                static_cast<unsigned long long>(trained), qPrintable(screenshot));
    std::printf("%s\n", qPrintable(window.statusText()));
  };
  if (read_only) {
    QTimer::singleShot(150, [&] {
      if (!state_json.isEmpty()) {
        const trainscope::Status written = trainscope::WriteStateJson(
            state_json,
            trainscope::DescribeUnavailable(window, QString::fromUtf8(status.message())));
        if (!written.ok()) exit_status = trainscope::cli::Fail(written);
      }
      save_screenshot(0);
      QApplication::exit(exit_status);
    });
    return QApplication::exec();
  }
  if (experiment) {
    experiments.dock()->show();
    experiments.dock()->raise();
    QObject::connect(experiments.view(), &trainscope::ExperimentsView::finished, &window, [&] {
      QTimer::singleShot(200, [&] {
        save_screenshot(0);
        std::printf("%s\n", qPrintable(experiments.view()->statusLabel()->text()));
        QApplication::exit(exit_status);
      });
    });
    if (!experiments.view()->run()) {
      return trainscope::cli::Fail(experiments.view()->statusLabel()->text());
    }
    return QApplication::exec();
  }
  if (!endpoint.isEmpty()) {
    WaitForSteps(&window, *store, steps, 60000, [&] {
      QTimer::singleShot(300, [&] {
        save_screenshot(store->snapshot()->progress.last_optimizer_step);
        QApplication::exit(exit_status);
      });
    });
    return QApplication::exec();
  }
  if (inspect) {
    const trainscope::Graph& graph = window.graph();
    const size_t op_count = graph.subgraphs.empty() ? 0 : graph.main().operators.size();
    if (static_cast<size_t>(inspect_op) >= op_count) {
      return trainscope::cli::Fail(
          QStringLiteral("--inspect %1: the model has %2 operators (0..%3)")
              .arg(inspect_op)
              .arg(op_count)
              .arg(static_cast<long long>(op_count) - 1),
          2);
    }
    RunSteps(controller.source(), *store, steps, [&] {
      InspectOp(&window, controller.source(), inspect_op, [&] {
        QTimer::singleShot(200, [&] {
          save_screenshot(store->snapshot()->progress.last_optimizer_step);
          std::printf("%s\n", qPrintable(window.tensorPanel()->summaryText()));
          controller.source()->stop();
          QApplication::exit(exit_status);
        });
      });
    });
    return QApplication::exec();
  }
  if (full_speed) {
    // Captured while training goes on: the views as they are at full speed, most steps
    // reported without their per-op detail.
    controller.source()->start();
    WaitForSteps(&window, *store, steps, 60000, [&] {
      QTimer::singleShot(300, [&] {
        save_screenshot(store->snapshot()->progress.last_optimizer_step);
        controller.source()->stop();
        QApplication::exit(exit_status);
      });
    });
    return QApplication::exec();
  }
  RunSteps(controller.source(), *store, steps, [&] {
    // Two repaint periods so every view shows the last batch.
    QTimer::singleShot(150, [&] {
      const auto snapshot = store->snapshot();
      if (!state_json.isEmpty()) {
        const trainscope::Status written = trainscope::WriteStateJson(
            state_json, trainscope::DescribeState(window, controller, *snapshot));
        if (!written.ok()) exit_status = trainscope::cli::Fail(written);
      }
      save_screenshot(snapshot->progress.last_optimizer_step);
      controller.source()->stop();
      QApplication::exit(exit_status);
    });
  });
  return QApplication::exec();
}
