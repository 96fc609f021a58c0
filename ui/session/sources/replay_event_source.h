// SPDX-License-Identifier: Apache-2.0
//
// ReplayEventSource: a recorded trace as an EventSource. open() indexes the whole file once
// (TraceIndex); the source then feeds its SessionStore on the GUI thread with events a
// TraceEventReader decodes from the file as they are needed, so it holds the index, not the events.
// start() plays at speed() x kBaseStepsPerSecond backward steps per second, the step commands
// advance to the next backward-step end, sample end or optimizer step and pause there, and
// seekToBackwardStep(n) rebuilds the store as it was right after the n-th backward step ended
// (clear + the prefix, decoded again in slices): going back costs as much as coming from the
// start.
//
// A damaged trace replays what is good: skips() tells what was left out, and the store gets a
// warning message first. Trainability cannot change in a recording; asking reports an error.
//
//   ReplayEventSource replay(store);
//   if (Status s = replay.open(path); !s.ok()) ShowError(s.message());
//   replay.seekToBackwardStep(replay.totalBackwardSteps() / 2);
//   replay.start();
#pragma once

#include <QElapsedTimer>
#include <QString>

#include <cstddef>
#include <memory>

#include "engine/core/status.h"
#include "ui/session/sources/event_source.h"
#include "ui/session/sources/trace_event_reader.h"
#include "ui/session/sources/trace_index.h"

class QTimer;

namespace trainscope {

class ReplayEventSource : public EventSource {
  Q_OBJECT

 public:
  static constexpr int kTickMs = 33;
  static constexpr double kBaseStepsPerSecond = 20.0;

  explicit ReplayEventSource(std::shared_ptr<SessionStore> store, QObject* parent = nullptr);
  ~ReplayEventSource() override;

  // Indexes the trace and rewinds (the store is cleared). On failure the previous trace stays.
  Status open(const QString& path);
  bool isOpen() const { return index_ != nullptr; }
  const TraceIndex* index() const { return index_.get(); }
  const ReplaySkips& skips() const;
  QString description() const override;
  QString tensorValuesUnavailable() const override {
    return QStringLiteral(
        "a recording keeps no tensor values; open its model in the embedded engine to inspect "
        "them");
  }

  // Backward steps replayed so far and in the whole trace.
  size_t position() const;
  size_t totalBackwardSteps() const;
  // Events replayed so far and in the whole trace.
  size_t cursor() const { return cursor_; }
  size_t eventCount() const;
  bool atEnd() const { return cursor_ >= eventCount(); }

  void setSpeed(double factor);  // clamped to [0.05, 1000]
  double speed() const { return speed_; }

 public Q_SLOTS:
  // Right after the n-th backward step ended (0: the very start; n >= total: the whole trace).
  void seekToBackwardStep(size_t n);
  void seekToEvent(size_t cursor);
  void start() override;  // plays from here (from the start when at the end)
  void pause() override;
  void resume() override;
  void stepBackwardOp() override;
  void stepSample() override;
  void stepBatch() override;
  void stop() override;  // stops playing; the position stays
  void setTrainability(uint32_t last_n, const std::map<uint16_t, TrainRank>& ranks) override;

 Q_SIGNALS:
  // The position changed (play, step, seek, open).
  void positionChanged();

 private:
  void onTick();
  // Moves the store to `target` events: appends when ahead, rebuilds when behind.
  void moveTo(size_t target);
  // The first boundary of `boundaries` past the cursor, or the end of the trace.
  size_t nextBoundary(const std::vector<size_t>& boundaries) const;
  void stepTo(size_t target);

  std::unique_ptr<TraceIndex> index_;
  std::unique_ptr<TraceEventReader> reader_;  // of index_, at cursor_
  size_t cursor_ = 0;
  double speed_ = 1.0;
  double step_budget_ = 0.0;
  QTimer* timer_ = nullptr;
  QElapsedTimer since_tick_;
};

}  // namespace trainscope
