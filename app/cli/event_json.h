// SPDX-License-Identifier: Apache-2.0
//
// JsonLinesObserver: writes training events as JSON lines (one object per line, each with a
// "type"), the schema of docs/events.md. Lines are flushed at every optimizer step, so a killed
// run keeps everything up to its last completed step.
#pragma once

#include <QJsonObject>

#include <cstdio>

#include "engine/core/events.h"

namespace trainscope::cli {

class JsonLinesObserver final : public TrainingObserver {
 public:
  explicit JsonLinesObserver(FILE* out) : out_(out) {}

  void OnOptimizerStep(const OptimizerStepEvent& event) override;
  void OnBackwardStep(const BackwardStepEvent& event) override;
  void OnMemorySummary(const MemorySummaryEvent& event) override;
  void OnGradientStats(const GradientStatsEvent& event) override;
  void OnUpdateRatio(const UpdateRatioEvent& event) override;
  void OnLoss(const LossEvent& event) override;
  void OnMetric(const MetricEvent& event) override;

 private:
  void Write(const QJsonObject& object);

  FILE* out_;
  bool backward_pending_ = false;  // a finished backward step waits for its memory summary
  BackwardStepEvent pending_;
};

}  // namespace trainscope::cli
