// SPDX-License-Identifier: Apache-2.0
//
// Records a short embedded training run of the test ConvNet to a trace, keeping the live store
// and every event the source published, so replay tests can compare against the real thing.
#pragma once

#include <gtest/gtest.h>

#include <QApplication>
#include <QByteArray>
#include <QSettings>
#include <QTemporaryDir>

#include <chrono>
#include <memory>
#include <thread>

#include "tests/engine/exec/test_models.h"
#include "ui/session/session_store.h"
#include "ui/session/sources/local_event_source.h"
#include "ui/session/sources/trace_index.h"
#include "ui/session/sources/trace_recorder.h"

namespace trainscope::testing {

// Widgets need an application; created once per test binary, offscreen.
inline QApplication* TestApp() {
  static int argc = 1;
  static char name[] = "replay_test";
  static char* argv[] = {name, nullptr};
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static QApplication* app = new QApplication(argc, argv);
  return app;
}

// Keeps QSettings (the recording limits, MainWindow's state) out of the user's real files; one
// scratch folder per test binary.
inline const QTemporaryDir& ScratchSettingsDir() {
  static QTemporaryDir* dir = [] {
    auto* made = new QTemporaryDir;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, made->path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, made->path());
    return made;
  }();
  return *dir;
}

// Keeps every published batch in order, then hands it on to the real recorder.
class TeeRecorder final : public BatchRecorder {
 public:
  explicit TeeRecorder(std::shared_ptr<TraceRecorder> next) : next_(std::move(next)) {}
  void record(const EventBatch& batch) override {
    AppendEvents(batch, 0, batch.order.size(), &all);
    next_->record(batch);
  }
  EventBatch all;

 private:
  std::shared_ptr<TraceRecorder> next_;
};

struct RecordedRun {
  QString path;
  std::shared_ptr<SessionStore> live;
  EventBatch published;  // every event the source published after the recorder was attached
  Status recorder_status;
  uint64_t model_hash = 0;
};

// One optimizer step of a 6-op model as the engine publishes it: a sample running backward through
// every op, gradient stats of the trainable ops, its loss, then the step.
inline EventBatch StepBatch(uint32_t step) {
  EventBatch batch;
  batch.add(SampleEvent{0, step, 0, true});
  for (uint32_t i = 0; i < 6; ++i) {
    BackwardStepEvent event;
    event.step = i;
    event.op_index = 5 - i;
    event.trainable = true;
    batch.add(event);
    event.begin = false;
    event.duration_ns = 1000u + i;
    batch.add(event);
  }
  for (uint32_t op = 0; op < 6; ++op) {
    GradientStatsEvent stats;
    stats.optimizer_step = step;
    stats.op_index = op;
    stats.l2 = 0.5f + static_cast<float>(op);
    batch.add(stats);
  }
  batch.add(SampleEvent{0, step, 0, false});
  batch.add(LossEvent{step, 0, 2.0f / static_cast<float>(step + 1)});
  batch.add(OptimizerStepEvent{0, step, 1});
  return batch;
}

// Trains `epochs` epochs over 6 samples (batch 2) with the trainability given, to the end.
inline RecordedRun RecordConvNetRun(const QString& dir, const QString& name,
                                    TrainabilityConfig trainability = TrainabilityConfig(),
                                    uint32_t epochs = 2) {
  RecordedRun run;
  run.live = std::make_shared<SessionStore>();
  LocalEventSource source(run.live);
  LocalSetup setup;
  setup.options.loss = LossKind::kSparseCrossEntropy;
  setup.options.metric = MetricKind::kSparseCrossEntropyAccuracy;
  setup.options.optimizer = OptimizerKind::kAdam;
  setup.options.batch_size = 2;
  setup.options.epochs = epochs;
  setup.trainability = trainability;
  setup.train = ConvNetData(6);
  Model model = ConvNet();
  const Graph graph = model.graph();
  run.model_hash = wire::ModelHash(model.bytes().data(), model.bytes().size());
  if (!source.load(std::move(model), setup, name).ok()) return run;
  run.path = TraceRecorder::MakeRecordingPath(dir, name);
  auto recorder = std::make_shared<TraceRecorder>(run.path, graph, run.model_hash, setup.options);
  auto tee = std::make_shared<TeeRecorder>(recorder);
  source.setRecorder(tee);
  source.start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  // The worker sets kStopped as its very last step; join() in stop() then waits for it.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  while (source.state() != EventSource::State::kStopped &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  source.stop();
  recorder->close();
  run.recorder_status = recorder->status();
  run.published = tee->all;
  return run;
}

// A test suite sharing one recorded ConvNet run, made once before its first test. `Suite` is the
// derived fixture, so every suite gets its own run even inside one test binary.
template <typename Suite>
class RecordedRunTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    TestApp();
    dir_ = new QTemporaryDir;
    run_ = new RecordedRun(RecordConvNetRun(dir_->path(), QStringLiteral("convnet.circle")));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
    run_ = nullptr;
    dir_ = nullptr;
  }
  static inline QTemporaryDir* dir_ = nullptr;
  static inline RecordedRun* run_ = nullptr;
};

}  // namespace trainscope::testing
