// SPDX-License-Identifier: Apache-2.0
#include "ui/session/parameter_rows.h"

#include <algorithm>
#include <set>

#include "engine/plan/trainability.h"

namespace trainscope {

std::vector<TensorGradient> ParameterRows(const SessionSnapshot& snapshot, const Graph& graph) {
  std::vector<TensorGradient> rows = snapshot.tensors;
  if (!graph.subgraphs.empty()) {
    std::set<int32_t> seen;
    for (const TensorGradient& row : rows) seen.insert(row.tensor);
    const Subgraph& main = graph.main();
    for (const ParameterGradient& p :
         ListParameterGradients(main, SelectBackwardRange(main, TrainabilityConfig()))) {
      if (seen.count(p.tensor) != 0) continue;
      TensorGradient frozen;
      frozen.tensor = p.tensor;
      frozen.op_index = p.op_index;
      frozen.frozen = true;
      rows.push_back(frozen);
    }
  }
  std::sort(rows.begin(), rows.end(), [](const TensorGradient& a, const TensorGradient& b) {
    return a.op_index != b.op_index ? a.op_index < b.op_index : a.tensor < b.tensor;
  });
  return rows;
}

}  // namespace trainscope
