// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/compare_data.h"

#include <algorithm>
#include <map>
#include <utility>

#include "ui/session/sources/trace_event_reader.h"

namespace trainscope {
namespace {

// Events decoded and folded at a time when a whole trace goes into a store.
constexpr size_t kCompareSlice = size_t{1} << 16;

std::vector<XY> MemoryCurve(const SessionSnapshot& snapshot) {
  std::vector<XY> curve;
  for (const TickSample& tick : snapshot.memory->ticks()) {
    curve.push_back({static_cast<double>(tick.tick), static_cast<double>(tick.total())});
  }
  return curve;
}

std::vector<XY> LossCurve(const SessionSnapshot& snapshot) {
  std::vector<XY> curve;
  for (const SeriesBucket& bucket : snapshot.loss->buckets()) {
    if (!bucket.hasFinite()) continue;
    curve.push_back({(bucket.x_first + bucket.x_last) / 2.0, bucket.mean()});
  }
  return curve;
}

// Linear interpolation inside the curve's x range (the curve is sorted by x).
bool ValueAt(const std::vector<XY>& curve, double x, double* y) {
  if (curve.empty() || x < curve.front().x || x > curve.back().x) return false;
  const auto after = std::lower_bound(curve.begin(), curve.end(), x,
                                      [](const XY& p, double v) { return p.x < v; });
  if (after->x == x || after == curve.begin()) {
    *y = after->y;
    return true;
  }
  const XY& left = *(after - 1);
  const double t = (x - left.x) / (after->x - left.x);
  *y = left.y + t * (after->y - left.y);
  return true;
}

}  // namespace

TraceComparison CompareSnapshots(const SessionSnapshot& a, const SessionSnapshot& b) {
  TraceComparison c;
  c.memory_a = MemoryCurve(a);
  c.memory_b = MemoryCurve(b);
  c.step_peak_a = a.memory->peakBytes();
  c.step_peak_b = b.memory->peakBytes();
  c.run_peak_a = a.peakBytes();
  c.run_peak_b = b.peakBytes();
  c.loss_a = LossCurve(a);
  c.loss_b = LossCurve(b);
  for (const XY& point : c.loss_a) {
    double y = 0.0;
    if (ValueAt(c.loss_b, point.x, &y)) c.loss_difference.push_back({point.x, y - point.y});
  }
  std::map<std::pair<uint32_t, int32_t>, LayerGradientRow> rows;
  for (const TensorGradient& t : a.tensors) {
    if (!t.has_stats) continue;
    LayerGradientRow& row = rows[{t.op_index, t.tensor}];
    row.tensor = t.tensor;
    row.op_index = t.op_index;
    row.in_a = true;
    row.l2_a = t.stats.l2;
  }
  for (const TensorGradient& t : b.tensors) {
    if (!t.has_stats) continue;
    LayerGradientRow& row = rows[{t.op_index, t.tensor}];
    row.tensor = t.tensor;
    row.op_index = t.op_index;
    row.in_b = true;
    row.l2_b = t.stats.l2;
  }
  for (auto& [key, row] : rows) c.layers.push_back(row);
  return c;
}

Status LoadTraceSnapshot(const QString& path, std::shared_ptr<const SessionSnapshot>* out,
                         ReplaySkips* skips) {
  TraceIndex index;
  TS_RETURN_IF_ERROR(IndexTrace(path, &index));
  SessionStore store;
  TraceEventReader reader(index);
  for (EventBatch slice = reader.Read(kCompareSlice); !slice.order.empty();
       slice = reader.Read(kCompareSlice)) {
    store.append(slice);
  }
  *out = store.snapshot();
  if (skips) *skips = index.skips;
  return Status::Ok();
}

}  // namespace trainscope
