// SPDX-License-Identifier: Apache-2.0
//
// JsonLinesObserver: writes training events as JSON lines (one object per line, each with a
// "type"), the schema of docs/events.md. Lines are flushed at every optimizer step, so a killed
// run keeps everything up to its last completed step.
//
// A backward_step line waits for the MEMORY_SUMMARY that follows its end event, to carry the
// memory numbers. When that summary never comes (a lossy link dropped it), the line is written
// without current_bytes/peak_bytes at the next backward step, sample or optimizer step, or at
// Finish(); call Finish() when a stream ends.
#pragma once

#include <QJsonObject>

#include <cstdio>

#include "engine/core/events.h"
#include "serial/protocol/messages.h"

namespace trainscope::cli {

// A board's DEVICE_MEMORY as attach --json and trace dump --json print it: the message's figures,
// total_bytes, and the heap split of ui/session/device_memory.h under "heap".
QJsonObject DeviceMemoryJson(const wire::DeviceMemoryMessage& memory);

class JsonLinesObserver final : public TrainingObserver {
 public:
  explicit JsonLinesObserver(FILE* out) : out_(out) {}

  void OnSample(const SampleEvent& event) override;
  void OnOptimizerStep(const OptimizerStepEvent& event) override;
  void OnBackwardStep(const BackwardStepEvent& event) override;
  void OnMemorySummary(const MemorySummaryEvent& event) override;
  void OnGradientStats(const GradientStatsEvent& event) override;
  void OnUpdateRatio(const UpdateRatioEvent& event) override;
  void OnLoss(const LossEvent& event) override;
  void OnMetric(const MetricEvent& event) override;

  // Writes a backward step still waiting for its memory summary, and flushes.
  void Finish();

 private:
  void Write(const QJsonObject& object);
  void WritePendingBackwardStep(const MemorySummaryEvent* summary);

  FILE* out_;
  bool backward_pending_ = false;  // a finished backward step waits for its memory summary
  BackwardStepEvent pending_;
};

}  // namespace trainscope::cli
