// SPDX-License-Identifier: Apache-2.0
//
// SessionSnapshot: an immutable picture of everything the views show, taken by SessionStore. The
// GUI thread holds it through std::shared_ptr<const SessionSnapshot>; producers keep appending to
// the store meanwhile without touching it. Large parts (memory timeline, gradient matrix, series,
// messages) are shared between consecutive snapshots until the store changes them.
//
// `generation` grows with every appended batch, so a view repaints only when it changed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "engine/core/events.h"
#include "ui/session/decimated_series.h"
#include "ui/session/event_batch.h"
#include "ui/session/gradient_matrix.h"
#include "ui/session/live_memory_timeline.h"

namespace trainscope {

// Where the run is: the sample in flight and the backward loop inside it.
struct BackwardProgress {
  uint32_t epoch = 0;
  uint32_t optimizer_step = 0;  // the step the current sample contributes to
  uint32_t sample = 0;          // index within the batch
  bool in_sample = false;
  Phase phase = Phase::kForward;
  uint32_t forward_ops_done = 0;
  bool has_backward_step = false;      // a backward step began in this sample
  bool backward_step_running = false;  // its end event has not arrived yet
  uint32_t backward_step = 0;          // i
  uint32_t op_index = 0;               // k = n-1-i
  int32_t opcode = 0;
  std::vector<uint32_t> done_ops;    // ops whose backward finished in this sample, in order
  uint32_t last_optimizer_step = 0;  // the latest optimizer update applied
  uint64_t samples_started = 0;
};

// What the stream told about one operator (latest values).
struct OpActivity {
  bool seen_forward = false;
  bool seen_backward = false;
  bool trainable = false;
  TrainRank rank = TrainRank::kAll;
  bool is_last_layer = false;
  uint64_t forward_ns = 0;
  uint64_t backward_ns = 0;
};

// Latest gradient statistics and update ratio of one trainable tensor.
struct TensorGradient {
  int32_t tensor = -1;
  uint32_t op_index = 0;
  bool has_stats = false;
  GradientStatsEvent stats;
  bool has_ratio = false;
  UpdateRatioEvent ratio;
  uint64_t nan_total = 0;  // over the whole run
  uint64_t inf_total = 0;
  // The latest completed optimizer step that reported gradient statistics did not train it (a
  // trainability change froze it, or its operator left the backward range): its statistics are
  // history. Steps reported without their per-op detail say nothing either way.
  bool frozen = false;
};

struct SessionSnapshot {
  uint64_t generation = 0;
  uint64_t events_total = 0;

  BackwardProgress progress;
  std::vector<OpActivity> ops;  // indexed by op index, as far as events named them

  std::shared_ptr<const LiveMemoryTimeline> memory;  // the latest train step; never null
  uint64_t previous_step_peak_bytes = 0;
  uint32_t previous_step_last_tick = 0;  // how long the previous train step's timeline was
  uint64_t run_peak_bytes = 0;           // over every train step so far

  std::shared_ptr<const GradientMatrix> gradients;  // never null
  std::vector<TensorGradient> tensors;              // sorted by (op index, tensor)
  uint32_t latest_gradient_step = 0;
  uint64_t gradient_nan_total = 0;
  uint64_t gradient_inf_total = 0;

  std::shared_ptr<const DecimatedSeries> loss;  // x = sample number from 1; never null
  std::map<uint8_t, std::shared_ptr<const DecimatedSeries>> metrics;  // by metric kind, x = epoch

  std::shared_ptr<const std::vector<StatusMessage>> messages;  // oldest first; never null
  uint64_t messages_dropped = 0;

  // The engine's own heap accounting when it sent summaries, else the sum of live buffers.
  uint64_t currentBytes() const;
  uint64_t peakBytes() const;
  const TensorGradient* findTensor(int32_t tensor) const;
};

}  // namespace trainscope
