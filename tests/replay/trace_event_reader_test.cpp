// SPDX-License-Identifier: Apache-2.0
//
// The index keeps no events; TraceEventReader decodes them again from the trace's bytes. From any
// position, in reads of any size, with or without a skip warning, it must give exactly the events
// that were recorded.
#include <gtest/gtest.h>

#include <QFile>
#include <QTemporaryDir>

#include <string>
#include <vector>

#include "tests/replay/recording_fixture.h"
#include "ui/session/sources/trace_event_reader.h"

namespace trainscope {
namespace {

// Same kinds in the same order, and the fields that tell the events apart equal.
void ExpectSameEvents(const EventBatch& a, const EventBatch& b, const std::string& where) {
  SCOPED_TRACE(where);
  ASSERT_EQ(a.order.size(), b.order.size());
  for (size_t i = 0; i < a.order.size(); ++i) {
    ASSERT_EQ(a.order[i].kind, b.order[i].kind) << "event " << i;
  }
  ASSERT_EQ(a.backward_steps.size(), b.backward_steps.size());
  for (size_t i = 0; i < a.backward_steps.size(); ++i) {
    EXPECT_EQ(a.backward_steps[i].op_index, b.backward_steps[i].op_index);
    EXPECT_EQ(a.backward_steps[i].begin, b.backward_steps[i].begin);
    EXPECT_EQ(a.backward_steps[i].duration_ns, b.backward_steps[i].duration_ns);
  }
  ASSERT_EQ(a.gradient_stats.size(), b.gradient_stats.size());
  for (size_t i = 0; i < a.gradient_stats.size(); ++i) {
    EXPECT_EQ(a.gradient_stats[i].optimizer_step, b.gradient_stats[i].optimizer_step);
    EXPECT_EQ(a.gradient_stats[i].l2, b.gradient_stats[i].l2);
  }
  ASSERT_EQ(a.losses.size(), b.losses.size());
  for (size_t i = 0; i < a.losses.size(); ++i) EXPECT_EQ(a.losses[i].value, b.losses[i].value);
  ASSERT_EQ(a.optimizer_steps.size(), b.optimizer_steps.size());
  for (size_t i = 0; i < a.optimizer_steps.size(); ++i) {
    EXPECT_EQ(a.optimizer_steps[i].optimizer_step, b.optimizer_steps[i].optimizer_step);
  }
  ASSERT_EQ(a.messages.size(), b.messages.size());
  for (size_t i = 0; i < a.messages.size(); ++i) EXPECT_EQ(a.messages[i].text, b.messages[i].text);
}

class TraceEventReaderTest : public ::testing::Test {
 protected:
  // 400 optimizer steps of 28 events: 11,200 events, so several resume points.
  void SetUp() override {
    testing::TestApp();
    ASSERT_TRUE(dir_.isValid());
    path_ = dir_.filePath(QStringLiteral("long.tstrace"));
    Model model = testing::ConvNet();
    TraceRecorder recorder(path_, model.graph(), 7u, TrainingOptions());
    recorder.setDetailRate(0.0);  // every event, as the reader is compared with what was sent
    for (uint32_t step = 0; step < 400; ++step) {
      const EventBatch batch = testing::StepBatch(step);
      recorder.record(batch);
      AppendEvents(batch, 0, batch.order.size(), &recorded_);
    }
    recorder.close();
    ASSERT_TRUE(IndexTrace(path_, &index_).ok());
    ASSERT_EQ(index_.eventCount(), recorded_.order.size());
    ASSERT_GE(index_.resume_points.size(), 3u);
  }
  QTemporaryDir dir_;
  QString path_;
  EventBatch recorded_;
  TraceIndex index_;
};

TEST_F(TraceEventReaderTest, ReadingEverythingGivesTheRecordedEvents) {
  ExpectSameEvents(ReadTraceEvents(index_, 0, index_.eventCount()), recorded_, "all at once");
  // Reads of odd sizes, one after the other, end to end.
  TraceEventReader reader(index_);
  EventBatch pieces;
  for (size_t size : {1u, 7u, 4095u, 2u, 5000u, 3u}) {
    const EventBatch piece = reader.Read(size);
    AppendEvents(piece, 0, piece.order.size(), &pieces);
  }
  const EventBatch rest = reader.Read(index_.eventCount());
  AppendEvents(rest, 0, rest.order.size(), &pieces);
  EXPECT_EQ(reader.position(), index_.eventCount());
  EXPECT_TRUE(reader.Read(10).order.empty()) << "nothing after the end";
  ExpectSameEvents(pieces, recorded_, "in pieces");
}

TEST_F(TraceEventReaderTest, SeekingAnywhereGivesTheEventsFromThere) {
  const size_t n = index_.eventCount();
  std::vector<size_t> positions = {0, 1, n / 2, n - 1, n};
  for (const TraceIndex::ResumePoint& point : index_.resume_points) {
    for (size_t p : {point.position - 1, point.position, point.position + 1}) {
      if (p <= n) positions.push_back(p);
    }
  }
  for (size_t p : index_.backward_ends) {
    if (p % 997 == 0) positions.push_back(p);
  }
  TraceEventReader reader(index_);
  for (size_t p : positions) {
    reader.Seek(p);
    ASSERT_EQ(reader.position(), p);
    const size_t count = std::min<size_t>(300, n - p);
    ExpectSameEvents(reader.Read(count), SliceEvents(recorded_, p, p + count),
                     "from " + std::to_string(p));
  }
  reader.Seek(n + 50);
  EXPECT_EQ(reader.position(), n) << "clamped";
}

// A torn last frame: the warning is event 0 and every position moves by one.
TEST_F(TraceEventReaderTest, TheSkipWarningComesFirstAndShiftsEveryPosition) {
  QFile file(path_);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  const QByteArray bytes = file.readAll();
  const QByteArray torn = bytes.left(bytes.size() - 3);
  TraceIndex index;
  ASSERT_TRUE(IndexTraceBytes(reinterpret_cast<const uint8_t*>(torn.constData()),
                              static_cast<size_t>(torn.size()), QStringLiteral("torn"), &index)
                  .ok());
  ASSERT_TRUE(index.has_skip_warning);
  const EventBatch first = ReadTraceEvents(index, 0, 1);
  ASSERT_EQ(first.messages.size(), 1u);
  EXPECT_TRUE(first.messages[0].text.contains(QStringLiteral("torn frame")));
  // The last event was in the torn frame: everything before it, one position later.
  const size_t kept = recorded_.order.size() - 1;
  ASSERT_EQ(index.eventCount(), kept + 1);
  for (size_t p : {size_t{1}, index.resume_points[1].position, kept - 5}) {
    ExpectSameEvents(ReadTraceEvents(index, p, p + 5), SliceEvents(recorded_, p - 1, p + 4),
                     "from " + std::to_string(p));
  }
  EXPECT_EQ(index.backward_ends.front(), 4u)
      << "after the warning, the sample's begin and the first step's begin and end";
}

}  // namespace
}  // namespace trainscope
