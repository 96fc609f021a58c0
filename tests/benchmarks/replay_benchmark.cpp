// SPDX-License-Identifier: Apache-2.0
//
// Replaying a long recording: records a ConvNet training run (3 optimizer steps per epoch, every
// event on), then opens the trace as the desktop app does and reports how long opening and
// seeking take and how much memory the open replay holds. A plain program, run by hand; the
// numbers go to docs/benchmarks.md.
//
// usage: replay_benchmark [--epochs N]   (default 20000: 60,000 steps, about 230 MB of trace)
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "serial/protocol/messages.h"
#include "tests/engine/exec/test_models.h"
#include "ui/session/session_store.h"
#include "ui/session/sources/local_event_source.h"
#include "ui/session/sources/replay_event_source.h"
#include "ui/session/sources/trace_recorder.h"

namespace trainscope {
namespace {

// A line of /proc/self/status in KiB ("VmRSS", "RssAnon", "VmHWM"); -1 when absent.
long StatusKib(const char* key) {
  QFile status(QStringLiteral("/proc/self/status"));
  if (!status.open(QIODevice::ReadOnly)) return -1;
  const QByteArray prefix = QByteArray(key) + ':';
  for (const QByteArray& line : status.readAll().split('\n')) {
    if (line.startsWith(prefix)) return line.mid(prefix.size()).trimmed().split(' ')[0].toLong();
  }
  return -1;
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

QString RecordRun(const QString& dir, uint32_t epochs) {
  auto live = std::make_shared<SessionStore>();
  LocalEventSource source(live);
  LocalSetup setup;
  setup.options.loss = LossKind::kSparseCrossEntropy;
  setup.options.metric = MetricKind::kSparseCrossEntropyAccuracy;
  setup.options.optimizer = OptimizerKind::kAdam;
  setup.options.batch_size = 2;
  setup.options.epochs = epochs;
  setup.train = testing::ConvNetData(6);
  Model model = testing::ConvNet();
  const Graph graph = model.graph();
  const uint64_t hash = wire::ModelHash(model.bytes().data(), model.bytes().size());
  if (!source.load(std::move(model), setup, QStringLiteral("convnet.circle")).ok()) return {};
  const QString path = TraceRecorder::MakeRecordingPath(dir, QStringLiteral("convnet.circle"));
  auto recorder = std::make_shared<TraceRecorder>(path, graph, hash, TrainingOptions());
  recorder->setMaxBytes(uint64_t{1} << 40);
  source.setRecorder(recorder);
  source.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  while (source.state() != EventSource::State::kStopped) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  source.stop();
  recorder->close();
  return path;
}

int Run(uint32_t epochs) {
  QTemporaryDir dir;
  const auto record_start = std::chrono::steady_clock::now();
  const QString path = RecordRun(dir.path(), epochs);
  if (path.isEmpty()) {
    std::fprintf(stderr, "replay_benchmark: could not record the run\n");
    return 1;
  }
  const double record_ms = MsSince(record_start);
  const double trace_mb = static_cast<double>(QFileInfo(path).size()) / (1 << 20);

  const long anon_before = StatusKib("RssAnon");
  auto store = std::make_shared<SessionStore>();
  ReplayEventSource replay(store);
  auto start = std::chrono::steady_clock::now();
  const Status opened = replay.open(path);
  const double open_ms = MsSince(start);
  if (!opened.ok()) {
    std::fprintf(stderr, "replay_benchmark: %s\n", opened.message());
    return 1;
  }
  const long anon_open = StatusKib("RssAnon");
  start = std::chrono::steady_clock::now();
  replay.seekToEvent(replay.eventCount());
  const double to_end_ms = MsSince(start);
  start = std::chrono::steady_clock::now();
  replay.seekToBackwardStep(replay.totalBackwardSteps() / 2);
  const double to_middle_ms = MsSince(start);
  start = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) replay.stepBackwardOp();
  const double steps_ms = MsSince(start);
  const long anon_end = StatusKib("RssAnon");

  std::printf("recorded %u epochs (%zu backward steps, %zu events) in %.0f ms: %.1f MB of trace\n",
              epochs, replay.totalBackwardSteps(), replay.eventCount(), record_ms, trace_mb);
  std::printf(
      "open (index) %.0f ms; heap held by the open replay %.1f MB (RssAnon %ld -> %ld "
      "KiB); peak RSS of the process %.1f MB\n",
      open_ms, static_cast<double>(anon_open - anon_before) / 1024.0, anon_before, anon_open,
      static_cast<double>(StatusKib("VmHWM")) / 1024.0);
  std::printf(
      "seek to the end %.0f ms, back to the middle %.0f ms, 1000 single backward steps "
      "%.1f ms; heap after %.1f MB\n",
      to_end_ms, to_middle_ms, steps_ms, static_cast<double>(anon_end - anon_before) / 1024.0);
  return 0;
}

}  // namespace
}  // namespace trainscope

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  uint32_t epochs = 20000;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--epochs" && i + 1 < argc) {
      epochs = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      std::fprintf(stderr, "usage: replay_benchmark [--epochs N]\n");
      return 2;
    }
  }
  return trainscope::Run(epochs);
}
