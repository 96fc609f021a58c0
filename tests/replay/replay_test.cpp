// SPDX-License-Identifier: Apache-2.0
//
// Recording an embedded run and replaying it: the replayed store shows what the live one showed,
// seeking equals stepping, and a damaged trace replays its good part and says what it skipped.
#include <gtest/gtest.h>

#include <QFile>

#include <random>

#include "tests/replay/recording_fixture.h"
#include "ui/session/session_snapshot.h"
#include "ui/session/sources/replay_event_source.h"

namespace trainscope {
namespace {

using testing::RecordConvNetRun;
using testing::RecordedRun;

// Everything the views read that the wire carries (durations are left out: the wire rounds them).
void ExpectSameSnapshot(const SessionSnapshot& a, const SessionSnapshot& b) {
  EXPECT_EQ(a.progress.epoch, b.progress.epoch);
  EXPECT_EQ(a.progress.optimizer_step, b.progress.optimizer_step);
  EXPECT_EQ(a.progress.last_optimizer_step, b.progress.last_optimizer_step);
  EXPECT_EQ(a.progress.samples_started, b.progress.samples_started);
  EXPECT_EQ(a.progress.backward_step, b.progress.backward_step);
  EXPECT_EQ(a.progress.op_index, b.progress.op_index);
  EXPECT_EQ(a.progress.done_ops, b.progress.done_ops);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t k = 0; k < a.ops.size(); ++k) {
    EXPECT_EQ(a.ops[k].seen_backward, b.ops[k].seen_backward) << "op " << k;
    EXPECT_EQ(a.ops[k].trainable, b.ops[k].trainable) << "op " << k;
  }
  EXPECT_EQ(a.run_peak_bytes, b.run_peak_bytes);
  EXPECT_EQ(a.peakBytes(), b.peakBytes());
  EXPECT_EQ(a.currentBytes(), b.currentBytes());
  EXPECT_EQ(a.memory->ticks().size(), b.memory->ticks().size());
  EXPECT_EQ(a.memory->events().size(), b.memory->events().size());
  ASSERT_EQ(a.loss->buckets().size(), b.loss->buckets().size());
  for (size_t i = 0; i < a.loss->buckets().size(); ++i) {
    EXPECT_EQ(a.loss->buckets()[i].y_sum, b.loss->buckets()[i].y_sum) << "bucket " << i;
    EXPECT_EQ(a.loss->buckets()[i].x_last, b.loss->buckets()[i].x_last) << "bucket " << i;
  }
  EXPECT_EQ(a.metrics.size(), b.metrics.size());
  ASSERT_EQ(a.gradients->columns().size(), b.gradients->columns().size());
  ASSERT_EQ(a.gradients->rows().size(), b.gradients->rows().size());
  for (size_t c = 0; c < a.gradients->columns().size(); ++c) {
    const GradientColumn& ca = a.gradients->columns()[c];
    const GradientColumn& cb = b.gradients->columns()[c];
    EXPECT_EQ(ca.first_step, cb.first_step);
    ASSERT_EQ(ca.cells.size(), cb.cells.size());
    for (size_t r = 0; r < ca.cells.size(); ++r) {
      EXPECT_EQ(ca.cells[r].l2, cb.cells[r].l2) << "column " << c << " row " << r;
      EXPECT_EQ(ca.cells[r].update_ratio, cb.cells[r].update_ratio);
    }
  }
}

size_t CountBackwardEnds(const EventBatch& batch) {
  size_t count = 0;
  for (const BackwardStepEvent& e : batch.backward_steps) count += e.begin ? 0 : 1;
  return count;
}

class ReplayTest : public testing::RecordedRunTest<ReplayTest> {};

TEST_F(ReplayTest, RecordingWritesTheWireStreamOfTheWholeRun) {
  ASSERT_TRUE(run_->recorder_status.ok()) << run_->recorder_status.message();
  ASSERT_TRUE(QFile::exists(run_->path));
  EXPECT_TRUE(run_->path.endsWith(QLatin1String(".tstrace")));
  TraceIndex index;
  ASSERT_TRUE(IndexTrace(run_->path, &index).ok());
  EXPECT_FALSE(index.skips.any()) << index.skips.describe().toStdString();
  EXPECT_EQ(index.modelHash(), run_->model_hash);
  EXPECT_TRUE(index.announced());
  EXPECT_EQ(index.announcement.model().ops.size(), 6u);
  EXPECT_EQ(index.agent_name, QStringLiteral("trainscope-local"));
  // 2 epochs x 6 samples, each running backward through all 6 ops.
  EXPECT_EQ(CountBackwardEnds(run_->published), 2u * 6u * 6u);
  EXPECT_EQ(index.backward_ends.size(), CountBackwardEnds(run_->published));
  EXPECT_EQ(index.sample_ends.size(), 12u);
  EXPECT_EQ(index.optimizer_steps.size(), 6u);
  const EventBatch events = ReadTraceEvents(index, 0, index.eventCount());
  ASSERT_EQ(events.size(), index.eventCount());
  ASSERT_EQ(events.losses.size(), run_->published.losses.size());
  for (size_t i = 0; i < events.losses.size(); ++i) {
    EXPECT_EQ(events.losses[i].value, run_->published.losses[i].value) << "loss " << i;
  }
  ASSERT_EQ(events.backward_steps.size(), run_->published.backward_steps.size());
  for (size_t i = 0; i < events.backward_steps.size(); ++i) {
    const BackwardStepEvent& a = events.backward_steps[i];
    const BackwardStepEvent& b = run_->published.backward_steps[i];
    EXPECT_TRUE(a.step == b.step && a.op_index == b.op_index && a.begin == b.begin &&
                a.trainable == b.trainable && a.rank == b.rank)
        << "backward event " << i;
  }
}

TEST_F(ReplayTest, ReplayedStoreEqualsTheLiveStore) {
  auto store = std::make_shared<SessionStore>();
  ReplayEventSource replay(store);
  ASSERT_TRUE(replay.open(run_->path).ok());
  EXPECT_EQ(replay.position(), 0u);
  replay.seekToEvent(replay.eventCount());
  EXPECT_TRUE(replay.atEnd());
  EXPECT_EQ(replay.position(), replay.totalBackwardSteps());
  ExpectSameSnapshot(*run_->live->snapshot(), *store->snapshot());
  EXPECT_GT(store->snapshot()->peakBytes(), 0u);
}

TEST_F(ReplayTest, SeekingToAStepEqualsSteppingThere) {
  auto stepped_store = std::make_shared<SessionStore>();
  ReplayEventSource stepped(stepped_store);
  ASSERT_TRUE(stepped.open(run_->path).ok());
  auto seeked_store = std::make_shared<SessionStore>();
  ReplayEventSource seeked(seeked_store);
  ASSERT_TRUE(seeked.open(run_->path).ok());
  seeked.seekToBackwardStep(seeked.totalBackwardSteps());  // then back: a rebuild
  for (size_t n : {size_t{1}, size_t{7}, size_t{40}}) {
    while (stepped.position() < n) stepped.stepBackwardOp();
    EXPECT_EQ(stepped.state(), EventSource::State::kPaused);
    seeked.seekToBackwardStep(n);
    EXPECT_EQ(seeked.position(), n);
    EXPECT_EQ(seeked.cursor(), stepped.cursor());
    const auto a = stepped_store->snapshot();
    const auto b = seeked_store->snapshot();
    EXPECT_EQ(a->progress.backward_step, (n - 1) % 6) << "the n-th backward step of a sample";
    ExpectSameSnapshot(*a, *b);
  }
}

TEST_F(ReplayTest, StepCommandsStopAtTheirBoundaries) {
  auto store = std::make_shared<SessionStore>();
  ReplayEventSource replay(store);
  ASSERT_TRUE(replay.open(run_->path).ok());
  replay.stepSample();
  EXPECT_EQ(replay.position(), 6u) << "one sample runs backward through all six ops";
  EXPECT_FALSE(store->snapshot()->progress.in_sample);
  replay.stepBatch();
  EXPECT_EQ(store->snapshot()->progress.last_optimizer_step, 1u);
  EXPECT_EQ(replay.position(), 12u);
  replay.seekToBackwardStep(0);
  EXPECT_EQ(store->snapshot()->events_total, 0u);
}

TEST_F(ReplayTest, PlayingRunsToTheEndAtTheChosenSpeed) {
  auto store = std::make_shared<SessionStore>();
  ReplayEventSource replay(store);
  ASSERT_TRUE(replay.open(run_->path).ok());
  replay.setSpeed(1000.0);
  replay.start();
  EXPECT_EQ(replay.state(), EventSource::State::kRunning);
  QElapsedTimer timer;
  timer.start();
  while (!replay.atEnd() && timer.elapsed() < 5000) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
  EXPECT_TRUE(replay.atEnd());
  EXPECT_EQ(replay.state(), EventSource::State::kStopped);
  ExpectSameSnapshot(*run_->live->snapshot(), *store->snapshot());
}

TEST_F(ReplayTest, TruncatedTraceReplaysItsGoodPrefixAndReportsTheTornFrame) {
  QFile file(run_->path);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  const QByteArray bytes = file.readAll();
  TraceIndex full;
  ASSERT_TRUE(IndexTrace(run_->path, &full).ok());
  const EventBatch full_events = ReadTraceEvents(full, 0, full.eventCount());
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> cut_at(static_cast<int>(kTraceHeaderBytes) + 200,
                                            static_cast<int>(bytes.size()) - 2);
  for (int trial = 0; trial < 5; ++trial) {
    const int cut = cut_at(rng);
    const QByteArray prefix = bytes.left(cut);
    const int last_delimiter = static_cast<int>(prefix.lastIndexOf('\0'));
    const size_t expected_torn = static_cast<size_t>(cut - 1 - last_delimiter);
    TraceIndex index;
    ASSERT_TRUE(IndexTraceBytes(reinterpret_cast<const uint8_t*>(prefix.constData()),
                                static_cast<size_t>(prefix.size()), QStringLiteral("cut"), &index)
                    .ok());
    EXPECT_EQ(index.skips.torn_tail_bytes, expected_torn) << "cut at " << cut;
    EXPECT_EQ(index.skips.frames_bad, 0u);
    // The good prefix: every event before the torn frame, in the same order (the first event is
    // the warning about the torn frame when there is one).
    const size_t offset = expected_torn > 0 ? 1 : 0;
    ASSERT_LE(index.eventCount() - offset, full.eventCount());
    const EventBatch events = ReadTraceEvents(index, 0, index.eventCount());
    ASSERT_EQ(events.size(), index.eventCount());
    for (size_t i = offset; i < index.eventCount(); ++i) {
      ASSERT_EQ(events.order[i].kind, full_events.order[i - offset].kind) << i;
    }
    if (expected_torn > 0) {
      ASSERT_FALSE(events.messages.empty());
      EXPECT_TRUE(events.messages.front().text.contains(QStringLiteral("torn frame")));
    }
  }
}

TEST_F(ReplayTest, CorruptedFrameIsSkippedAndTheRestStillReplays) {
  QFile file(run_->path);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  QByteArray bytes = file.readAll();
  TraceIndex full;
  ASSERT_TRUE(IndexTrace(run_->path, &full).ok());
  const int middle = static_cast<int>(bytes.size() / 2);
  bytes[middle] = static_cast<char>(bytes[middle] == '\x55' ? '\x56' : '\x55');
  TraceIndex index;
  ASSERT_TRUE(IndexTraceBytes(reinterpret_cast<const uint8_t*>(bytes.constData()),
                              static_cast<size_t>(bytes.size()), QStringLiteral("noisy"), &index)
                  .ok());
  EXPECT_GE(index.skips.frames_bad, 1u);
  EXPECT_TRUE(index.skips.any());
  // One or two frames lost (a delimiter hit merges two), everything else replayed; the first
  // event is the warning.
  EXPECT_GE(index.eventCount() - 1 + 2, full.eventCount());
  EXPECT_LE(index.eventCount() - 1, full.eventCount());
  const EventBatch events = ReadTraceEvents(index, 0, 1);
  ASSERT_EQ(events.messages.size(), 1u);
  EXPECT_EQ(events.messages.front().level, MessageLevel::kWarning);
}

TEST_F(ReplayTest, NotATraceIsRefusedAndKeepsThePreviousTrace) {
  QTemporaryDir dir;
  const QString bogus = dir.filePath(QStringLiteral("bogus.tstrace"));
  QFile file(bogus);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write("hello, not a trace at all, definitely longer than a header");
  file.close();
  auto store = std::make_shared<SessionStore>();
  ReplayEventSource replay(store);
  ASSERT_TRUE(replay.open(run_->path).ok());
  const Status status = replay.open(bogus);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("TSTRACE1"), std::string::npos);
  EXPECT_TRUE(replay.isOpen());
  EXPECT_EQ(replay.totalBackwardSteps(), 72u);
}

}  // namespace
}  // namespace trainscope
