// SPDX-License-Identifier: Apache-2.0
//
// Layered layout of an operator graph (no widgets, unit-tested): longest-path layering over the
// tensor edges, virtual nodes on edges that skip layers, barycentric ordering sweeps that keep
// the ordering with the fewest crossings, and x coordinates that pull every node towards its
// neighbours while keeping a minimum gap (least squares, pool-adjacent-violators).
//
// Forward order puts the first operator at the top; backward order flips the layers so the last
// operator (backward step 0) is at the top, the way runBackward walks the graph.
//
//   std::vector<int> node_of_op;
//   LayoutInput input = LayoutInputFromSubgraph(graph.main(), 0, &node_of_op);
//   GraphLayout layout = ComputeLayout(input, LayoutOptions{});
//   QPointF centre(layout.nodes[node_of_op[k]].x, layout.nodes[node_of_op[k]].y);
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/model/graph.h"

namespace trainscope {

struct LayoutEdgeInput {
  int from = 0;
  int to = 0;
  int32_t tensor = -1;  // for labels; not used by the layout
};

struct LayoutInput {
  size_t node_count = 0;
  std::vector<LayoutEdgeInput> edges;
  std::vector<double> widths;  // per node; empty = LayoutOptions::node_width for all
};

enum class LayoutOrder { kForward, kBackward };

struct LayoutOptions {
  LayoutOrder order = LayoutOrder::kForward;
  double node_width = 180.0;
  double node_height = 56.0;
  double layer_gap = 48.0;  // vertical space between layers
  double node_gap = 32.0;   // horizontal space between neighbours
  double virtual_width = 8.0;
  int sweeps = 12;
};

struct LayoutPoint {
  double x = 0.0;
  double y = 0.0;
};

struct NodePlacement {
  int layer = 0;     // after the order was applied (0 = top)
  int position = 0;  // left to right among the real and virtual nodes of the layer
  double x = 0.0;    // centre
  double y = 0.0;
  double width = 0.0;
  double height = 0.0;
};

struct EdgeRoute {
  int from = 0;
  int to = 0;
  int32_t tensor = -1;
  std::vector<LayoutPoint> points;  // from the source node's border to the target's
};

struct GraphLayout {
  std::vector<NodePlacement> nodes;      // one per input node
  std::vector<EdgeRoute> edges;          // one per input edge, same order
  std::vector<std::vector<int>> layers;  // real nodes per layer, left to right
  int crossings = 0;                     // edge crossings of the chosen ordering
  double width = 0.0;                    // bounding box; coordinates start at 0
  double height = 0.0;
};

// Layer of every node in forward order: sources at 0, each node one below its deepest
// predecessor; nodes without predecessors sink to just above their first successor. Edges that
// point backwards in node order (not a DAG in execution order) are ignored.
std::vector<int> LongestPathLayers(const LayoutInput& input);

GraphLayout ComputeLayout(const LayoutInput& input, const LayoutOptions& options);

// One node per operator, one edge per (producer, consumer) pair of a non-constant tensor.
// Operators [0, collapse_prefix) become a single node 0 when collapse_prefix > 1.
// `node_of_op` (optional) receives the node of every operator.
LayoutInput LayoutInputFromSubgraph(const Subgraph& subgraph, size_t collapse_prefix,
                                    std::vector<int>* node_of_op);

}  // namespace trainscope
