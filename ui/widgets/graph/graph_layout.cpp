// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/graph/graph_layout.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>

namespace trainscope {
namespace {

bool ValidEdge(const LayoutEdgeInput& edge, size_t node_count) {
  return edge.from >= 0 && edge.to >= 0 && static_cast<size_t>(edge.from) < node_count &&
         static_cast<size_t>(edge.to) < node_count;
}

// The layout problem with virtual nodes: every edge joins two neighbouring layers.
struct Work {
  std::vector<int> layer;
  std::vector<double> width;
  std::vector<std::vector<int>> up;    // neighbours in the layer above
  std::vector<std::vector<int>> down;  // neighbours in the layer below
  std::vector<std::vector<int>> order;
  std::vector<int> position;
  std::vector<double> x;

  int addNode(int node_layer, double node_width) {
    layer.push_back(node_layer);
    width.push_back(node_width);
    up.emplace_back();
    down.emplace_back();
    return static_cast<int>(layer.size()) - 1;
  }
  void link(int a, int b) {  // a and b on neighbouring layers, either way round
    if (layer[a] > layer[b]) std::swap(a, b);
    down[a].push_back(b);
    up[b].push_back(a);
  }
  void indexPositions() {
    position.assign(layer.size(), 0);
    for (const std::vector<int>& row : order) {
      for (size_t i = 0; i < row.size(); ++i) position[row[i]] = static_cast<int>(i);
    }
  }
};

// Crossings between layer `upper` and the next, counted with a Fenwick tree over positions.
int CountCrossingsBelow(const Work& work, size_t upper) {
  std::vector<std::pair<int, int>> pairs;
  for (int node : work.order[upper]) {
    for (int below : work.down[node]) pairs.emplace_back(work.position[node], work.position[below]);
  }
  std::sort(pairs.begin(), pairs.end());
  const size_t size = upper + 1 < work.order.size() ? work.order[upper + 1].size() : 0;
  std::vector<int> tree(size + 1, 0);
  int crossings = 0;
  int seen = 0;
  for (const auto& [top, bottom] : pairs) {
    int not_greater = 0;
    for (size_t i = static_cast<size_t>(bottom) + 1; i > 0; i -= i & (~i + 1))
      not_greater += tree[i];
    crossings += seen - not_greater;
    for (size_t i = static_cast<size_t>(bottom) + 1; i <= size; i += i & (~i + 1)) ++tree[i];
    ++seen;
  }
  return crossings;
}

int CountCrossings(const Work& work) {
  int total = 0;
  for (size_t l = 0; l + 1 < work.order.size(); ++l) total += CountCrossingsBelow(work, l);
  return total;
}

void SortByBarycenter(Work& work, size_t l, bool use_up) {
  std::vector<int>& row = work.order[l];
  std::vector<double> key(work.layer.size(), 0.0);
  for (int node : row) {
    const std::vector<int>& neighbours = use_up ? work.up[node] : work.down[node];
    if (neighbours.empty()) {
      key[node] = work.position[node];
      continue;
    }
    double sum = 0.0;
    for (int other : neighbours) sum += work.position[other];
    key[node] = sum / static_cast<double>(neighbours.size());
  }
  std::stable_sort(row.begin(), row.end(), [&](int a, int b) { return key[a] < key[b]; });
  for (size_t i = 0; i < row.size(); ++i) work.position[row[i]] = static_cast<int>(i);
}

// Least-squares placement of one layer: x as close to `desired` as possible, in the given order,
// neighbours at least their half widths plus `gap` apart (isotonic regression after shifting).
void PlaceRow(Work& work, const std::vector<int>& row, const std::vector<double>& desired,
              double gap) {
  const size_t n = row.size();
  if (n == 0) return;
  std::vector<double> offset(n, 0.0);
  for (size_t i = 1; i < n; ++i) {
    offset[i] = offset[i - 1] + (work.width[row[i - 1]] + work.width[row[i]]) / 2.0 + gap;
  }
  struct Block {
    double sum;
    size_t count;
  };
  std::vector<Block> blocks;
  for (size_t i = 0; i < n; ++i) {
    blocks.push_back(Block{desired[i] - offset[i], 1});
    while (blocks.size() > 1) {
      const Block& top = blocks.back();
      const Block& previous = blocks[blocks.size() - 2];
      if (previous.sum / static_cast<double>(previous.count) <=
          top.sum / static_cast<double>(top.count)) {
        break;
      }
      const Block merged{previous.sum + top.sum, previous.count + top.count};
      blocks.pop_back();
      blocks.back() = merged;
    }
  }
  size_t i = 0;
  for (const Block& block : blocks) {
    const double value = block.sum / static_cast<double>(block.count);
    for (size_t k = 0; k < block.count; ++k, ++i) work.x[row[i]] = value + offset[i];
  }
}

void AssignCoordinates(Work& work, const LayoutOptions& options) {
  work.x.assign(work.layer.size(), 0.0);
  for (const std::vector<int>& row : work.order) {
    std::vector<double> desired(row.size(), 0.0);
    PlaceRow(work, row, desired, options.node_gap);
  }
  const int passes = std::max(2, options.sweeps * 2);
  for (int pass = 0; pass < passes; ++pass) {
    const bool downward = pass % 2 == 0;
    const size_t layers = work.order.size();
    for (size_t step = 0; step < layers; ++step) {
      const size_t l = downward ? step : layers - 1 - step;
      const std::vector<int>& row = work.order[l];
      std::vector<double> desired(row.size());
      for (size_t i = 0; i < row.size(); ++i) {
        const int node = row[i];
        // The last pass balances between both sides.
        std::vector<int> neighbours = downward ? work.up[node] : work.down[node];
        if (pass == passes - 1) {
          neighbours = work.up[node];
          neighbours.insert(neighbours.end(), work.down[node].begin(), work.down[node].end());
        }
        if (neighbours.empty()) {
          desired[i] = work.x[node];
          continue;
        }
        double sum = 0.0;
        for (int other : neighbours) sum += work.x[other];
        desired[i] = sum / static_cast<double>(neighbours.size());
      }
      PlaceRow(work, row, desired, options.node_gap);
    }
  }
}

}  // namespace

std::vector<int> LongestPathLayers(const LayoutInput& input) {
  const size_t n = input.node_count;
  std::vector<int> layer(n, 0);
  std::vector<std::vector<int>> predecessors(n);
  std::vector<std::vector<int>> successors(n);
  for (const LayoutEdgeInput& edge : input.edges) {
    if (!ValidEdge(edge, n) || edge.from >= edge.to) continue;
    predecessors[static_cast<size_t>(edge.to)].push_back(edge.from);
    successors[static_cast<size_t>(edge.from)].push_back(edge.to);
  }
  for (size_t v = 0; v < n; ++v) {
    for (int u : predecessors[v]) layer[v] = std::max(layer[v], layer[static_cast<size_t>(u)] + 1);
  }
  // A node fed only by constants or graph inputs sits right above its first consumer, not at 0.
  for (size_t v = n; v-- > 0;) {
    if (!predecessors[v].empty() || successors[v].empty()) continue;
    int lowest = layer[static_cast<size_t>(successors[v].front())];
    for (int w : successors[v]) lowest = std::min(lowest, layer[static_cast<size_t>(w)]);
    layer[v] = std::max(0, lowest - 1);
  }
  return layer;
}

GraphLayout ComputeLayout(const LayoutInput& input, const LayoutOptions& options) {
  const size_t n = input.node_count;
  GraphLayout layout;
  if (n == 0) return layout;

  std::vector<int> layers = LongestPathLayers(input);
  const int max_layer = *std::max_element(layers.begin(), layers.end());
  if (options.order == LayoutOrder::kBackward) {
    for (int& l : layers) l = max_layer - l;
  }

  Work work;
  for (size_t v = 0; v < n; ++v) {
    const double width = v < input.widths.size() ? input.widths[v] : options.node_width;
    work.addNode(layers[v], width);
  }
  // Chains of work nodes per input edge (virtual nodes on the layers it skips).
  std::vector<std::vector<int>> chains(input.edges.size());
  std::vector<int> chain_owner;  // input node that orders a virtual node initially
  chain_owner.resize(n);
  std::iota(chain_owner.begin(), chain_owner.end(), 0);
  for (size_t e = 0; e < input.edges.size(); ++e) {
    const LayoutEdgeInput& edge = input.edges[e];
    if (!ValidEdge(edge, n)) continue;
    std::vector<int>& chain = chains[e];
    chain.push_back(edge.from);
    const int a = layers[static_cast<size_t>(edge.from)];
    const int b = layers[static_cast<size_t>(edge.to)];
    if (a != b && edge.from < edge.to) {
      const int direction = b > a ? 1 : -1;
      for (int l = a + direction; l != b; l += direction) {
        const int virtual_node = work.addNode(l, options.virtual_width);
        chain_owner.push_back(std::min(edge.from, edge.to));
        work.link(chain.back(), virtual_node);
        chain.push_back(virtual_node);
      }
      work.link(chain.back(), edge.to);
    }
    chain.push_back(edge.to);
  }

  const int layer_count = max_layer + 1;
  work.order.assign(static_cast<size_t>(layer_count), {});
  for (size_t node = 0; node < work.layer.size(); ++node) {
    work.order[static_cast<size_t>(work.layer[node])].push_back(static_cast<int>(node));
  }
  for (std::vector<int>& row : work.order) {
    std::stable_sort(row.begin(), row.end(),
                     [&](int a, int b) { return chain_owner[a] < chain_owner[b]; });
  }
  work.indexPositions();

  std::vector<std::vector<int>> best_order = work.order;
  int best = CountCrossings(work);
  for (int sweep = 0; sweep < options.sweeps && best > 0; ++sweep) {
    const bool downward = sweep % 2 == 0;
    for (size_t step = 1; step < work.order.size(); ++step) {
      const size_t l = downward ? step : work.order.size() - 1 - step;
      SortByBarycenter(work, l, downward);
    }
    const int crossings = CountCrossings(work);
    if (crossings < best) {
      best = crossings;
      best_order = work.order;
    }
  }
  work.order = best_order;
  work.indexPositions();
  AssignCoordinates(work, options);

  double min_x = 0.0;
  double max_x = 0.0;
  for (size_t node = 0; node < work.layer.size(); ++node) {
    const double left = work.x[node] - work.width[node] / 2.0;
    const double right = work.x[node] + work.width[node] / 2.0;
    min_x = node == 0 ? left : std::min(min_x, left);
    max_x = node == 0 ? right : std::max(max_x, right);
  }
  const double pitch = options.node_height + options.layer_gap;
  auto centre_y = [&](int l) { return l * pitch + options.node_height / 2.0; };

  layout.crossings = best;
  layout.width = max_x - min_x;
  layout.height = layer_count * pitch - options.layer_gap;
  layout.layers.assign(static_cast<size_t>(layer_count), {});
  layout.nodes.resize(n);
  for (size_t v = 0; v < n; ++v) {
    NodePlacement& placement = layout.nodes[v];
    placement.layer = work.layer[v];
    placement.position = work.position[v];
    placement.x = work.x[v] - min_x;
    placement.y = centre_y(work.layer[v]);
    placement.width = work.width[v];
    placement.height = options.node_height;
  }
  for (const std::vector<int>& row : work.order) {
    for (int node : row) {
      if (static_cast<size_t>(node) < n)
        layout.layers[static_cast<size_t>(work.layer[node])].push_back(node);
    }
  }

  layout.edges.resize(input.edges.size());
  const double half = options.node_height / 2.0;
  for (size_t e = 0; e < input.edges.size(); ++e) {
    EdgeRoute& route = layout.edges[e];
    route.from = input.edges[e].from;
    route.to = input.edges[e].to;
    route.tensor = input.edges[e].tensor;
    const std::vector<int>& chain = chains[e];
    if (chain.size() < 2) continue;
    const int first_layer = work.layer[chain.front()];
    const int last_layer = work.layer[chain.back()];
    const double sign = last_layer > first_layer ? 1.0 : (last_layer < first_layer ? -1.0 : 0.0);
    for (size_t i = 0; i < chain.size(); ++i) {
      const int node = chain[i];
      const double x = work.x[node] - min_x;
      const double y = centre_y(work.layer[node]);
      if (i == 0) {
        route.points.push_back(LayoutPoint{x, y + sign * half});
      } else if (i + 1 == chain.size()) {
        route.points.push_back(LayoutPoint{x, y - sign * half});
      } else {  // pass straight through the virtual node's layer
        route.points.push_back(LayoutPoint{x, y - sign * half});
        route.points.push_back(LayoutPoint{x, y + sign * half});
      }
    }
  }
  return layout;
}

LayoutInput LayoutInputFromSubgraph(const Subgraph& subgraph, size_t collapse_prefix,
                                    std::vector<int>* node_of_op) {
  const size_t op_count = subgraph.operators.size();
  const size_t collapsed = collapse_prefix > 1 ? std::min(collapse_prefix, op_count) : 0;
  std::vector<int> node(op_count);
  for (size_t k = 0; k < op_count; ++k) {
    node[k] = k < collapsed ? 0 : static_cast<int>(k - collapsed + (collapsed > 0 ? 1 : 0));
  }
  LayoutInput input;
  input.node_count = op_count == 0 ? 0 : static_cast<size_t>(node.back()) + 1;

  std::vector<int> producer(subgraph.tensors.size(), -1);
  for (size_t k = 0; k < op_count; ++k) {
    for (int32_t tensor : subgraph.operators[k].outputs) {
      if (tensor >= 0 && static_cast<size_t>(tensor) < producer.size() &&
          producer[static_cast<size_t>(tensor)] < 0) {
        producer[static_cast<size_t>(tensor)] = static_cast<int>(k);
      }
    }
  }
  std::set<std::tuple<int, int, int32_t>> seen;
  for (size_t k = 0; k < op_count; ++k) {
    for (int32_t tensor : subgraph.operators[k].inputs) {
      if (tensor < 0 || static_cast<size_t>(tensor) >= producer.size()) continue;
      if (subgraph.tensors[static_cast<size_t>(tensor)].constant) continue;
      const int from_op = producer[static_cast<size_t>(tensor)];
      if (from_op < 0) continue;
      const int from = node[static_cast<size_t>(from_op)];
      const int to = node[k];
      if (from == to || !seen.insert({from, to, tensor}).second) continue;
      input.edges.push_back(LayoutEdgeInput{from, to, tensor});
    }
  }
  if (node_of_op) *node_of_op = std::move(node);
  return input;
}

}  // namespace trainscope
