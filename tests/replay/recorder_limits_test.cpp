// SPDX-License-Identifier: Apache-2.0
//
// The recorder's limits: one write per batch, a batch is in the file as soon as record() returns,
// a size cap ends the recording on a whole batch and says so, and the user hears about an ended
// recording once, through the store's messages.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryDir>

#include <atomic>
#include <map>
#include <string>

#include "tests/replay/recording_fixture.h"
#include "ui/controllers/replay_controller.h"
#include "ui/session/sources/replay_event_source.h"
#include "ui/session/sources/trace_event_reader.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"

namespace trainscope {
namespace {

class RecorderLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TestApp();
    testing::ScratchSettingsDir();
    ASSERT_TRUE(dir_.isValid());
    path_ = dir_.filePath(QStringLiteral("run.tstrace"));
  }
  // Every event kept: these tests count what was written (the detail rate has its own test).
  std::shared_ptr<TraceRecorder> MakeRecorder() {
    Model model = testing::ConvNet();
    auto recorder = std::make_shared<TraceRecorder>(path_, model.graph(), 42u, TrainingOptions());
    recorder->setDetailRate(0.0);
    return recorder;
  }
  QTemporaryDir dir_;
  QString path_;
};

// The announced operators carry the session's trainability; a change that takes effect mid-run
// is announced again at once, between the batch before it and the batch after it.
TEST_F(RecorderLimitsTest, TrainabilityIsAnnouncedAtTheStartAndAgainWhenItChanges) {
  Model model = testing::ConvNet();
  const Subgraph& main = model.graph().main();
  auto expect_announced = [&main](const TraceIndex& index, const TrainabilityConfig& config) {
    const BackwardSelection selection = SelectBackwardRange(main, config);
    const std::vector<wire::OpSummary>& ops = index.announcement.model().ops;
    ASSERT_EQ(ops.size(), main.operators.size());
    for (size_t k = 0; k < ops.size(); ++k) {
      EXPECT_EQ(ops[k].trainable, selection.ops[k].has_parameter_gradients) << "op " << k;
    }
  };
  auto recorder = std::make_shared<TraceRecorder>(path_, model.graph(), 42u, TrainingOptions());
  TrainabilityConfig last_one;
  last_one.num_train_layers = 1;
  recorder->trainabilityApplied(last_one);  // before the file exists: the opening announcement
  recorder->record(testing::StepBatch(1));
  TraceIndex first;
  ASSERT_TRUE(IndexTrace(path_, &first).ok());
  expect_announced(first, last_one);

  const qint64 after_first_batch = QFileInfo(path_).size();
  const TrainabilityConfig everything;
  recorder->trainabilityApplied(everything);
  EXPECT_GT(QFileInfo(path_).size(), after_first_batch) << "announced when it took effect";
  TraceIndex changed;
  ASSERT_TRUE(IndexTrace(path_, &changed).ok());
  expect_announced(changed, everything);
  EXPECT_EQ(changed.optimizer_steps.size(), 1u) << "before the next batch";
  recorder->record(testing::StepBatch(2));
  TraceIndex second;
  ASSERT_TRUE(IndexTrace(path_, &second).ok());
  expect_announced(second, everything);
  EXPECT_EQ(second.optimizer_steps.size(), 2u);
  EXPECT_FALSE(second.skips.any());
}

// A replay shows the trainability the recording announced for its position: the first setting
// before the change, the second after it, the first again when seeking back.
TEST_F(RecorderLimitsTest, ReplayShowsTheTrainabilityInForceAtItsPosition) {
  Model model = testing::ConvNet();
  auto recorder = std::make_shared<TraceRecorder>(path_, model.graph(), 42u, TrainingOptions());
  TrainabilityConfig only_bias;
  only_bias.op_ranks[4] = TrainRank::kOnlyBias;
  TrainabilityConfig upper_half;
  upper_half.op_ranks[0] = TrainRank::kUpperHalf;
  recorder->trainabilityApplied(only_bias);
  for (uint32_t step = 0; step < 3; ++step) recorder->record(testing::StepBatch(step));
  recorder->trainabilityApplied(upper_half);
  for (uint32_t step = 3; step < 5; ++step) recorder->record(testing::StepBatch(step));
  recorder->close();

  TraceIndex index;
  ASSERT_TRUE(IndexTrace(path_, &index).ok());
  ASSERT_EQ(index.trained_sets.size(), 2u);
  EXPECT_EQ(index.trained_sets[1].position, index.optimizer_steps[2]) << "between steps 3 and 4";
  const std::map<uint16_t, TrainRank> first = {{4, TrainRank::kOnlyBias}};
  const std::map<uint16_t, TrainRank> second = {{0, TrainRank::kUpperHalf}};
  EXPECT_EQ(*TrainedOpsAt(index, 0), first);
  EXPECT_EQ(*TrainedOpsAt(index, index.optimizer_steps[2]), second);
  EXPECT_EQ(*TrainedOpsAt(index, index.optimizer_steps[2] - 1), first);
  EXPECT_EQ(*TrainedOpsAt(index, index.eventCount()), second);

  auto store = std::make_shared<SessionStore>();
  MainWindow window;
  window.setStore(store);
  ReplayController controller(store);
  controller.install(&window);
  ASSERT_TRUE(controller.openTrace(path_).ok());
  ReplayEventSource* replay = controller.replaySource();
  EXPECT_EQ(window.layersPanel()->appliedTrainability(), only_bias);
  replay->seekToEvent(index.eventCount());
  EXPECT_EQ(window.layersPanel()->appliedTrainability(), upper_half);
  replay->seekToBackwardStep(6);  // inside the first step
  EXPECT_EQ(window.layersPanel()->appliedTrainability(), only_bias);
  window.setEventSource(nullptr);
}

TEST_F(RecorderLimitsTest, RecordedBatchIsInTheFileBeforeClose) {
  auto recorder = MakeRecorder();
  for (uint32_t step = 0; step < 3; ++step) {
    const EventBatch batch = testing::StepBatch(step);
    recorder->record(batch);
    // No close(): what a killed app would leave behind.
    TraceIndex index;
    ASSERT_TRUE(IndexTrace(path_, &index).ok());
    EXPECT_FALSE(index.skips.any()) << index.skips.describe().toStdString();
    EXPECT_TRUE(index.announced());
    ASSERT_EQ(index.optimizer_steps.size(), step + 1);
    const EventBatch events = ReadTraceEvents(index, 0, index.eventCount());
    ASSERT_EQ(events.optimizer_steps.back().optimizer_step, step);
    // Every event of the batch, in order, ends the file.
    ASSERT_GE(index.eventCount(), batch.order.size());
    const EventBatch tail =
        SliceEvents(events, index.eventCount() - batch.order.size(), index.eventCount());
    ASSERT_EQ(tail.backward_steps.size(), batch.backward_steps.size());
    for (size_t i = 0; i < tail.backward_steps.size(); ++i) {
      EXPECT_EQ(tail.backward_steps[i].op_index, batch.backward_steps[i].op_index);
      EXPECT_EQ(tail.backward_steps[i].begin, batch.backward_steps[i].begin);
    }
    ASSERT_EQ(tail.gradient_stats.size(), batch.gradient_stats.size());
    for (size_t i = 0; i < tail.gradient_stats.size(); ++i) {
      EXPECT_EQ(tail.gradient_stats[i].l2, batch.gradient_stats[i].l2);
    }
    ASSERT_EQ(tail.samples.size(), batch.samples.size());
    ASSERT_EQ(tail.losses.size(), 1u);
    EXPECT_EQ(tail.losses[0].value, batch.losses[0].value);
  }
  EXPECT_TRUE(recorder->status().ok()) << recorder->status().message();
}

TEST_F(RecorderLimitsTest, BatchOfManyFramesIsOneAppend) {
  auto recorder = MakeRecorder();
  EventBatch big;
  for (uint32_t step = 0; step < 100; ++step) {
    const EventBatch one = testing::StepBatch(step);
    AppendEvents(one, 0, one.order.size(), &big);
  }
  recorder->record(big);
  EXPECT_EQ(recorder->appendsIssued(), 1u) << "HELLO and MODEL_ANNOUNCE go with the first batch";
  const uint64_t frames_before = recorder->framesWritten();
  EXPECT_GT(frames_before, 500u);
  recorder->record(big);
  EXPECT_EQ(recorder->appendsIssued(), 2u);
  EXPECT_GT(recorder->framesWritten() - frames_before, 500u);
  EXPECT_EQ(static_cast<uint64_t>(QFileInfo(path_).size()),
            kTraceHeaderBytes + recorder->bytesWritten());
  recorder->record(EventBatch());
  EXPECT_EQ(recorder->appendsIssued(), 2u) << "an empty batch writes nothing";
}

TEST_F(RecorderLimitsTest, CapEndsTheRecordingOnAWholeBatchAndSaysWhere) {
  constexpr uint64_t kCap = 64 * 1024;
  auto recorder = MakeRecorder();
  recorder->setMaxBytes(kCap);
  std::atomic<int> stops{0};
  bool stop_was_cap = false;
  recorder->setOnStopped([&](const Status& why, bool capped) {
    ++stops;
    stop_was_cap = capped;
    EXPECT_FALSE(why.ok());
  });
  uint32_t written = 0;  // batches recorded before the cap
  for (uint32_t step = 0; step < 5000 && !recorder->capped(); ++step) {
    recorder->record(testing::StepBatch(step));
    if (!recorder->capped()) written = step + 1;
  }
  ASSERT_TRUE(recorder->capped());
  ASSERT_GT(written, 10u) << "64 KiB holds more than a few steps";
  const int64_t size_at_cap = QFileInfo(path_).size();
  EXPECT_LE(static_cast<uint64_t>(size_at_cap), kCap);
  recorder->record(testing::StepBatch(written + 1));
  EXPECT_EQ(QFileInfo(path_).size(), size_at_cap) << "nothing is written after the cap";
  EXPECT_EQ(stops.load(), 1);
  EXPECT_TRUE(stop_was_cap);

  const std::string message = recorder->status().message();
  EXPECT_NE(message.find("64.0 KiB limit"), std::string::npos) << message;
  EXPECT_NE(message.find("after optimizer step " + std::to_string(written - 1) + " "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("recording/maxMegabytes"), std::string::npos) << message;

  TraceIndex index;
  ASSERT_TRUE(IndexTrace(path_, &index).ok());
  EXPECT_FALSE(index.skips.any()) << index.skips.describe().toStdString();
  ASSERT_EQ(index.optimizer_steps.size(), written);
  // Whole batches: the file ends exactly on the last recorded step's OPTIMIZER_STEP.
  EXPECT_EQ(index.optimizer_steps.back(), index.eventCount());
  EXPECT_EQ(ReadTraceEvents(index, 0, index.eventCount()).losses.size(), written);
  EXPECT_EQ(index.backward_ends.size(), 6u * written);
}

TEST_F(RecorderLimitsTest, FailedWriteEndsTheRecordingOnceWithoutCap) {
  Model model = testing::ConvNet();
  auto recorder = std::make_shared<TraceRecorder>(
      QStringLiteral("/dev/null/not-a-folder/run.tstrace"), model.graph(), 42u, TrainingOptions());
  int stops = 0;
  recorder->setOnStopped([&](const Status&, bool capped) {
    ++stops;
    EXPECT_FALSE(capped);
  });
  recorder->record(testing::StepBatch(0));
  recorder->record(testing::StepBatch(1));
  EXPECT_EQ(stops, 1);
  EXPECT_FALSE(recorder->capped());
  EXPECT_EQ(recorder->status().code(), StatusCode::kIoError);
}

TEST_F(RecorderLimitsTest, CapSettingIsReadInMegabytes) {
  QSettings settings(QStringLiteral("TrainScope"), QStringLiteral("TrainScope"));
  settings.remove(QStringLiteral("recording/maxMegabytes"));
  settings.sync();
  EXPECT_EQ(ReplayController::RecordingMaxBytesSetting(), kDefaultMaxRecordingBytes);
  EXPECT_EQ(kDefaultMaxRecordingBytes, uint64_t{256} * 1024 * 1024);
  settings.setValue(QStringLiteral("recording/maxMegabytes"), 3);
  settings.sync();
  EXPECT_EQ(ReplayController::RecordingMaxBytesSetting(), uint64_t{3} * 1024 * 1024);
  settings.setValue(QStringLiteral("recording/maxMegabytes"), QStringLiteral("lots"));
  settings.sync();
  EXPECT_EQ(ReplayController::RecordingMaxBytesSetting(), kDefaultMaxRecordingBytes);
  settings.remove(QStringLiteral("recording/maxMegabytes"));
}

// Faster than the detail rate, a step keeps its loss and optimizer step but not its backward
// steps and memory events; the file says so when the thinning starts and, on close, how much.
TEST_F(RecorderLimitsTest, DetailBeyondTheRateIsLeftOutCountedAndSaid) {
  Model model = testing::ConvNet();
  auto recorder = std::make_shared<TraceRecorder>(path_, model.graph(), 42u, TrainingOptions());
  recorder->setDetailRate(10.0);  // a burst of 10 steps, then 10 per second
  const uint32_t steps = 200;     // recorded in milliseconds
  for (uint32_t step = 0; step < steps; ++step) recorder->record(testing::StepBatch(step));
  recorder->close();
  EXPECT_GE(recorder->thinnedSteps(), steps - 20);
  EXPECT_GT(recorder->thinnedEvents(), recorder->thinnedSteps());
  TraceIndex index;
  ASSERT_TRUE(IndexTrace(path_, &index).ok());
  const EventBatch events = ReadTraceEvents(index, 0, index.eventCount());
  EXPECT_EQ(events.losses.size(), steps) << "every loss is kept";
  EXPECT_EQ(index.optimizer_steps.size(), steps) << "every optimizer step is kept";
  EXPECT_LE(index.backward_ends.size(), 6u * 20) << "detail only for the steps within the rate";
  EXPECT_GE(index.backward_ends.size(), 6u * 10) << "the first second's burst keeps its detail";
  int notes = 0;
  for (const StatusMessage& message : events.messages) {
    if (message.text.contains(QStringLiteral("faster than 10 optimizer steps/s"))) ++notes;
    if (message.text.contains(QStringLiteral("per-event detail of %1 optimizer step(s) left out")
                                  .arg(recorder->thinnedSteps()))) {
      ++notes;
    }
  }
  EXPECT_EQ(notes, 2);
}

size_t CountMessagesContaining(const SessionStore& store, const QString& needle) {
  size_t count = 0;
  for (const StatusMessage& message : *store.snapshot()->messages) {
    if (message.level == MessageLevel::kWarning && message.text.contains(needle)) ++count;
  }
  return count;
}

TEST_F(RecorderLimitsTest, ControllerWarnsOnceWhenTheCapEndsARecording) {
  auto store = std::make_shared<SessionStore>();
  LocalEventSource embedded(store);
  LocalSetup setup;
  setup.train = testing::ConvNetData(4);
  setup.options.loss = LossKind::kSparseCrossEntropy;
  setup.options.batch_size = 1;
  setup.options.epochs = 3;
  ASSERT_TRUE(embedded.load(testing::ConvNet(), setup, QStringLiteral("convnet.circle")).ok());
  MainWindow window;
  window.setStore(store);
  window.setEventSource(&embedded);
  ReplayController controller(store);
  controller.setRecordingDir(dir_.path());
  controller.setRecordingMaxBytes(4 * 1024);
  controller.install(&window);
  const std::shared_ptr<TraceRecorder> recorder = controller.currentRecorder();
  ASSERT_NE(recorder, nullptr);
  EXPECT_EQ(recorder->maxBytes(), 4u * 1024u);
  embedded.start();
  QElapsedTimer timer;
  timer.start();
  while (embedded.state() != EventSource::State::kStopped && timer.elapsed() < 8000) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  }
  embedded.stop();
  for (int i = 0; i < 20; ++i) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  ASSERT_TRUE(recorder->capped()) << "12 optimizer steps do not fit in 4 KiB";
  EXPECT_LE(QFileInfo(recorder->path()).size(), 4 * 1024);
  EXPECT_EQ(CountMessagesContaining(*store, QStringLiteral("4.0 KiB limit")), 1u);
  EXPECT_EQ(CountMessagesContaining(*store, QStringLiteral("recording/maxMegabytes")), 1u);
  window.setEventSource(nullptr);
}

}  // namespace
}  // namespace trainscope
