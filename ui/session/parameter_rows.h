// SPDX-License-Identifier: Apache-2.0
//
// ParameterRows: the rows the per-layer gradient views show (and the state dump reports), one per
// parameter tensor of the model in operator order: the latest statistics of the tensors the
// session trains, and the others marked frozen with none, so freezing a layer shows as such
// instead of the layer dropping out of the chart or keeping its last bars.
//
//   for (const TensorGradient& row : ParameterRows(snapshot, graph))
//     if (!row.frozen) Draw(row.stats.l2);
#pragma once

#include <vector>

#include "engine/model/graph.h"
#include "ui/session/session_snapshot.h"

namespace trainscope {

// Every tensor of `snapshot` (trained now or frozen since), plus every float parameter of the
// operators onert-micro trains (FULLY_CONNECTED, CONV_2D, GRU) that never trained, sorted by
// (op index, tensor). Without a graph, the snapshot's tensors alone.
std::vector<TensorGradient> ParameterRows(const SessionSnapshot& snapshot, const Graph& graph);

}  // namespace trainscope
