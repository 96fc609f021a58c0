// SPDX-License-Identifier: Apache-2.0
//
// SyntheticEventSource: an EventSource that replays a SyntheticStream on a QTimer, for the demo
// without a model, screenshots and tests. Running, it emits `unitsPerTick` units per timer tick;
// the step commands generate synchronously up to the requested boundary and then pause, so tests
// see the result as soon as the call returns.
//
//   auto store = std::make_shared<SessionStore>();
//   SyntheticEventSource source(graph, store);
//   source.start();   // state Running; events arrive every interval()
//   source.pause();
//   source.stepBackwardOp();  // exactly one more backward step in the store
#pragma once

#include <QTimer>

#include <memory>

#include "engine/model/graph.h"
#include "tests/common/synthetic/synthetic_stream.h"
#include "ui/session/sources/event_source.h"

namespace trainscope {

class SyntheticEventSource : public EventSource {
  Q_OBJECT

 public:
  SyntheticEventSource(const Graph& graph, std::shared_ptr<SessionStore> store,
                       const SyntheticOptions& options = {}, QObject* parent = nullptr);
  ~SyntheticEventSource() override;

  QString description() const override;
  void setInterval(int milliseconds) { timer_.setInterval(milliseconds); }
  int interval() const { return timer_.interval(); }
  void setUnitsPerTick(int units) { units_per_tick_ = units > 0 ? units : 1; }
  const SyntheticStream* stream() const { return stream_.get(); }

 public Q_SLOTS:
  void start() override;
  void pause() override;
  void resume() override;
  void stepBackwardOp() override;
  void stepSample() override;
  void stepBatch() override;
  void stop() override;
  void setTrainability(uint32_t last_n, const std::map<uint16_t, TrainRank>& ranks) override;

 private:
  // Generates until a unit of kind `target` was produced (or a safety bound), then pauses.
  void runUntil(SyntheticStream::Unit target);
  bool ensureStream();
  void onTick();

  Graph graph_;
  SyntheticOptions options_;
  std::unique_ptr<SyntheticStream> stream_;
  TrainabilityConfig trainability_;
  QTimer timer_;
  int units_per_tick_ = 2;
};

}  // namespace trainscope
