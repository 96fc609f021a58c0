// SPDX-License-Identifier: Apache-2.0
//
// Comparing two sessions, without widgets: CompareSnapshots() lines up what the CompareWindow
// overlays - live bytes over the latest train step, the loss per sample, and the latest gradient
// L2 norm of every trained tensor - and the differences (B minus A). LoadTraceSnapshot() replays
// a whole trace into a fresh SessionStore, so tests and the window share one path.
//
//   std::shared_ptr<const SessionSnapshot> a, b;
//   TS_RETURN_IF_ERROR(LoadTraceSnapshot(path_a, &a));
//   TS_RETURN_IF_ERROR(LoadTraceSnapshot(path_b, &b));
//   TraceComparison c = CompareSnapshots(*a, *b);
//   int64_t more = c.peakDifference();   // bytes B needs beyond A
#pragma once

#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/status.h"
#include "ui/session/session_snapshot.h"
#include "ui/session/session_store.h"
#include "ui/session/sources/trace_index.h"

namespace trainscope {

struct XY {
  double x = 0.0;
  double y = 0.0;
};

// One trained tensor's latest gradient norm in both sessions.
struct LayerGradientRow {
  int32_t tensor = -1;
  uint32_t op_index = 0;
  bool in_a = false;
  bool in_b = false;
  double l2_a = 0.0;
  double l2_b = 0.0;
  double difference() const { return l2_b - l2_a; }
};

struct TraceComparison {
  std::vector<XY> memory_a, memory_b;         // (tick, live bytes) of the latest train step
  uint64_t step_peak_a = 0, step_peak_b = 0;  // peak of that train step
  uint64_t run_peak_a = 0, run_peak_b = 0;    // over the whole session
  std::vector<XY> loss_a, loss_b;             // (sample number, mean loss of a bucket)
  // Over the samples both sessions have: (sample number, loss B - loss A), B interpolated.
  std::vector<XY> loss_difference;
  std::vector<LayerGradientRow> layers;  // union of the tensors, by (op index, tensor)

  int64_t peakDifference() const {
    return static_cast<int64_t>(run_peak_b) - static_cast<int64_t>(run_peak_a);
  }
};

TraceComparison CompareSnapshots(const SessionSnapshot& a, const SessionSnapshot& b);

// Replays the whole trace into a new store; `skips` (optional) tells what was left out.
Status LoadTraceSnapshot(const QString& path, std::shared_ptr<const SessionSnapshot>* out,
                         ReplaySkips* skips = nullptr);

}  // namespace trainscope
