// SPDX-License-Identifier: Apache-2.0
//
// Desktop app responsiveness, offscreen (QT_QPA_PLATFORM=offscreen is set unless the caller chose
// a platform). Not a ctest test: run it by hand and record the numbers in docs/benchmarks.md.
//
// 1. Stalls while training: simple_mnist (from the fixtures) trains at full speed on the embedded
//    engine inside the real MainWindow with every view open. A 5 ms timer on the GUI thread
//    records the gap between consecutive timeouts; a gap far above 5 ms is a stall a user feels.
//    Prints max, 99th percentile and the number of gaps over 50 ms, and the backward steps per
//    second the worker achieved meanwhile. An idle window is measured the same way first, as the
//    baseline of the machine's own noise.
// 2. Opening a large model: a generated chain of 150 FULLY_CONNECTED + RELU blocks (300 ops) is
//    opened through AppController (read, trainer build, graph layout, layers panel, memory
//    estimate) and the window painted; median of 5. Also MainWindow::setGraph + paint alone.
//
//    --detail every runs it with every step's per-op detail (LocalEventSource::setDetailLimits
//    0, 0: what a breakpoint on gradients asks for) instead of the app's DetailBudget.
//
// usage: ui_benchmark [--seconds S] [--models DIR] [--part open|stalls] [--detail budget|every]
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/app_controller.h"
#include "engine/exec/trainer.h"
#include "engine/memory/memory_report.h"
#include "engine/model/model.h"
#include "tests/common/chain_model.h"
#include "ui/session/session_snapshot.h"
#include "ui/session/trainability.h"
#include "ui/widgets/gradients/gradients_view.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/loss/loss_view.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {
namespace {

struct GapStats {
  size_t ticks = 0;
  double max_ms = 0.0;
  double p99_ms = 0.0;
  double median_ms = 0.0;
  size_t over_50ms = 0;
};

// Runs the event loop for `seconds` with a 5 ms timer and summarizes the gaps between timeouts.
GapStats MeasureGaps(double seconds) {
  std::vector<double> gaps;
  gaps.reserve(static_cast<size_t>(seconds * 250.0));
  QElapsedTimer clock;
  QTimer timer;
  timer.setTimerType(Qt::PreciseTimer);
  timer.setInterval(5);
  qint64 last = -1;
  QObject::connect(&timer, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    if (last >= 0) gaps.push_back(static_cast<double>(now - last) / 1e6);
    last = now;
  });
  QEventLoop loop;
  QTimer::singleShot(static_cast<int>(seconds * 1000.0), &loop, &QEventLoop::quit);
  clock.start();
  timer.start();
  loop.exec();
  timer.stop();

  GapStats stats;
  stats.ticks = gaps.size();
  if (gaps.empty()) return stats;
  std::sort(gaps.begin(), gaps.end());
  stats.max_ms = gaps.back();
  stats.median_ms = gaps[gaps.size() / 2];
  stats.p99_ms = gaps[std::min(gaps.size() - 1, gaps.size() * 99 / 100)];
  stats.over_50ms =
      static_cast<size_t>(gaps.end() - std::upper_bound(gaps.begin(), gaps.end(), 50.0));
  return stats;
}

void PrintGaps(const char* label, const GapStats& stats) {
  std::printf(
      "%-9s timer ticks %6zu | gap median %6.2f ms, p99 %7.2f ms, max %7.2f ms, "
      "gaps > 50 ms: %zu\n",
      label, stats.ticks, stats.median_ms, stats.p99_ms, stats.max_ms, stats.over_50ms);
}

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// What main() builds: a window sharing a store with the controller that opens models in it.
struct AppSession {
  std::shared_ptr<SessionStore> store = std::make_shared<SessionStore>();
  MainWindow window;
  AppController controller{&window, store};

  AppSession() {
    window.setStore(store);
    window.resize(1600, 1000);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
      std::fprintf(stderr, "warning: window not exposed\n");
  }
  ~AppSession() {
    if (controller.source()) controller.source()->stop();
  }
};

int TrainingStalls(const QString& models_dir, double seconds, bool every_step_detail) {
  const QString dir = models_dir + QStringLiteral("/onert-micro/simple_mnist");
  SessionFiles files;
  files.model = dir + QStringLiteral("/model.circle");
  files.inputs = {dir + QStringLiteral("/train_input.bin")};
  files.target = dir + QStringLiteral("/train_target.bin");
  if (!QFileInfo::exists(files.model)) {
    std::printf("training stalls: skipped, %s not found (the third-party fixtures)\n",
                qPrintable(files.model));
    return 0;
  }
  AppSession session;
  // The app's defaults for the model, with epochs enough to keep the worker busy for the whole
  // measurement.
  const SetupResolver busy = [](const Model& model, cli::TrainingSetup* setup) {
    TS_RETURN_IF_ERROR(cli::DefaultTrainingSetup(model, setup));
    // simple_mnist's targets are class indices; the model carries no training metadata.
    setup->options.loss = LossKind::kSparseCrossEntropy;
    setup->options.metric = MetricKind::kSparseCrossEntropyAccuracy;
    setup->options.epochs = 100000000;
    return Status::Ok();
  };
  if (Status status = session.controller.open(files, busy); !status.ok()) {
    std::fprintf(stderr, "error: %s\n", status.message());
    return 1;
  }
  const Subgraph& main = session.controller.source()->model()->graph().main();
  size_t backward_per_sample = 0;
  for (const OpTrainability& op : ResolveTrainability(main, TrainabilityConfig())) {
    backward_per_sample += op.in_backward_range ? 1 : 0;
  }
  if (every_step_detail) session.controller.source()->setDetailLimits(0.0, 0.0);
  std::printf(
      "training stalls: simple_mnist (%zu ops, %zu backward steps per sample, batch 1), "
      "window 1600x1000, all views open, %.0f s each, per-op detail %s\n",
      main.operators.size(), backward_per_sample, seconds,
      every_step_detail ? "at every step" : "within the app's budget");
  PrintGaps("idle", MeasureGaps(std::min(seconds, 3.0)));

  session.window.action(MainWindow::Command::kRun)->trigger();
  QElapsedTimer wall;
  wall.start();
  const uint32_t first_step = session.store->snapshot()->progress.optimizer_step;
  MemoryView* memory_view = session.window.memoryView();
  LossView* loss_view = session.window.lossView();
  GradientsView* gradients_view = session.window.gradientsView();
  const uint64_t memory_rebuilds = memory_view->rebuildCount();
  const uint64_t loss_rebuilds = loss_view->rebuildCount();
  const uint64_t gradient_rebuilds = gradients_view->rebuildCount();
  const double gui_cpu_before = ThreadCpuSeconds();
  const GapStats training = MeasureGaps(seconds);
  const double gui_cpu = ThreadCpuSeconds() - gui_cpu_before;
  const uint32_t steps = session.store->snapshot()->progress.optimizer_step - first_step;
  const double elapsed = static_cast<double>(wall.nsecsElapsed()) / 1e9;
  session.controller.source()->stop();
  PrintGaps("training", training);
  std::printf("          %u optimizer steps in %.2f s: %.0f samples/s, %.0f backward steps/s\n",
              steps, elapsed, steps / elapsed,
              static_cast<double>(steps) * static_cast<double>(backward_per_sample) / elapsed);
  // Near 100 %: the views' work fills the GUI thread. Far below while gaps are long: the thread
  // waited for a core (the machine's load), not for its own work.
  std::printf("          GUI thread CPU time %.2f s of %.2f s wall (%.0f %%)\n", gui_cpu, elapsed,
              100.0 * gui_cpu / elapsed);
  // How often the views redrew: the rate the user sees, and what the CPU above paid for.
  auto rate = [elapsed](uint64_t now, uint64_t before) {
    return static_cast<double>(now - before) / elapsed;
  };
  std::printf("          view rebuilds per second: memory %.1f, loss %.1f, gradients %.1f\n",
              rate(memory_view->rebuildCount(), memory_rebuilds),
              rate(loss_view->rebuildCount(), loss_rebuilds),
              rate(gradients_view->rebuildCount(), gradient_rebuilds));
  return 0;
}

// 150 blocks of FULLY_CONNECTED 32->32 + RELU: 300 operators, 601 tensors.
Status WriteChainModel(const QString& path, int blocks) {
  std::vector<uint8_t> bytes;
  TS_RETURN_IF_ERROR(testing::FcReluChainBytes(blocks, &bytes));
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly) ||
      file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size())) !=
          static_cast<qint64>(bytes.size())) {
    return Status::Error(StatusCode::kIoError, "cannot write %s", qPrintable(path));
  }
  return Status::Ok();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0.0 : values[values.size() / 2];
}

// Posted layout and fit requests first, then a synchronous paint of the whole window.
void PaintNow(MainWindow& window) {
  QCoreApplication::processEvents();
  window.repaint();
}

int OpenLargeModel() {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("chain300.circle"));
  if (Status status = WriteChainModel(path, 150); !status.ok()) {
    std::fprintf(stderr, "error: %s\n", status.message());
    return 1;
  }
  Model model;
  if (Status status = ReadModelFile(path.toStdString(), &model); !status.ok()) {
    std::fprintf(stderr, "error: %s\n", status.message());
    return 1;
  }
  std::printf("open large model: %zu operators, %zu tensors, %lld bytes; median of 5\n",
              model.graph().main().operators.size(), model.graph().main().tensors.size(),
              static_cast<long long>(QFileInfo(path).size()));
  std::vector<double> open_ms, paint_ms, set_graph_ms;
  int nodes = 0;
  for (int run = 0; run < 5; ++run) {
    AppSession session;
    SessionFiles files;
    files.model = path;
    QElapsedTimer clock;
    clock.start();
    if (Status status = session.controller.open(files); !status.ok()) {
      std::fprintf(stderr, "error: %s\n", status.message());
      return 1;
    }
    const double opened = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    PaintNow(session.window);
    const double painted = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    open_ms.push_back(opened);
    paint_ms.push_back(painted - opened);
    nodes = session.window.graphView()->nodeCount();
  }
  for (int run = 0; run < 5; ++run) {
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
      std::fprintf(stderr, "warning: window not exposed\n");
    QElapsedTimer clock;
    clock.start();
    window.setGraph(model.graph(), path);
    PaintNow(window);
    set_graph_ms.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
  }
  // Where open's time goes: the engine work it runs on the GUI thread, timed alone. The trainer
  // plans its arena once; the layers panel's preview plans the applied and the pending choice.
  std::vector<double> report_ms, init_ms;
  for (int run = 0; run < 5; ++run) {
    QElapsedTimer clock;
    clock.start();
    MemoryReport report;
    if (!ComputeMemoryReport(model.graph(), TrainabilityConfig(), OptimizerKind::kAdam, false,
                             &report)
             .ok()) {
      return 1;
    }
    report_ms.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
    Model copy;
    if (!ReadModelFile(path.toStdString(), &copy).ok()) return 1;
    TrainingOptions options;
    options.optimizer = OptimizerKind::kAdam;
    options.loss = LossKind::kMse;
    options.metric = MetricKind::kMse;
    clock.restart();
    Trainer trainer;
    if (!trainer.Init(&copy, options, TrainabilityConfig()).ok()) return 1;
    init_ms.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
  }
  const double total = Median(open_ms) + Median(paint_ms);
  std::printf(
      "          AppController::open %.1f ms + first paint %.1f ms = %.1f ms (%d graph "
      "nodes; goal < 300 ms: %s)\n",
      Median(open_ms), Median(paint_ms), total, nodes, total < 300.0 ? "met" : "MISSED");
  std::printf("          MainWindow::setGraph + paint alone: %.1f ms\n", Median(set_graph_ms));
  std::printf(
      "          engine parts alone: ComputeMemoryReport (Adam) %.1f ms, Trainer::Init "
      "%.1f ms\n",
      Median(report_ms), Median(init_ms));
  return 0;
}

}  // namespace
}  // namespace trainscope

int main(int argc, char* argv[]) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  double seconds = 10.0;
  QString part;  // empty: both
  bool every_step_detail = false;
  QString models = QStringLiteral(TRAINSCOPE_MODELS_DIR);
  const QStringList args = QApplication::arguments();
  for (int i = 1; i < args.size(); i += 2) {
    if (i + 1 < args.size() && args[i] == QStringLiteral("--seconds")) {
      seconds = args[i + 1].toDouble();
    } else if (i + 1 < args.size() && args[i] == QStringLiteral("--models")) {
      models = args[i + 1];
    } else if (i + 1 < args.size() && args[i] == QStringLiteral("--part") &&
               (args[i + 1] == QStringLiteral("open") || args[i + 1] == QStringLiteral("stalls"))) {
      part = args[i + 1];
    } else if (i + 1 < args.size() && args[i] == QStringLiteral("--detail") &&
               (args[i + 1] == QStringLiteral("budget") || args[i + 1] == QStringLiteral("every"))) {
      every_step_detail = args[i + 1] == QStringLiteral("every");
    } else {
      std::fprintf(stderr,
                   "usage: ui_benchmark [--seconds S] [--models DIR] [--part open|stalls] "
                   "[--detail budget|every]\n");
      return 2;
    }
  }
  if (seconds <= 0.0) seconds = 10.0;
  const int open_status = part == QStringLiteral("stalls") ? 0 : trainscope::OpenLargeModel();
  const int train_status =
      part == QStringLiteral("open") ? 0 : trainscope::TrainingStalls(models, seconds, every_step_detail);
  return open_status != 0 ? open_status : train_status;
}
