// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/graph/graph_layout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "engine/model/model.h"
#include "tests/common/fixtures.h"
#include "tests/ui/test_models.h"

namespace trainscope {
namespace {

// "4: 0>1 1>2 0>2" = four nodes and three edges.
LayoutInput Parse(const std::string& text) {
  LayoutInput input;
  std::istringstream in(text);
  char colon = 0;
  in >> input.node_count >> colon;
  std::string edge;
  while (in >> edge) {
    const size_t arrow = edge.find('>');
    input.edges.push_back(
        LayoutEdgeInput{std::stoi(edge.substr(0, arrow)), std::stoi(edge.substr(arrow + 1)), -1});
  }
  return input;
}

std::vector<int> Layers(const GraphLayout& layout) {
  std::vector<int> layers;
  for (const NodePlacement& node : layout.nodes) layers.push_back(node.layer);
  return layers;
}

void ExpectNoOverlaps(const GraphLayout& layout, const LayoutOptions& options) {
  for (const std::vector<int>& row : layout.layers) {
    for (size_t i = 1; i < row.size(); ++i) {
      const NodePlacement& a = layout.nodes[static_cast<size_t>(row[i - 1])];
      const NodePlacement& b = layout.nodes[static_cast<size_t>(row[i])];
      EXPECT_GE(b.x - a.x, (a.width + b.width) / 2 + options.node_gap - 1e-6)
          << "nodes " << row[i - 1] << " and " << row[i];
    }
  }
  for (const NodePlacement& node : layout.nodes) {
    EXPECT_GE(node.x - node.width / 2, -1e-6);
    EXPECT_LE(node.x + node.width / 2, layout.width + 1e-6);
  }
}

TEST(GraphLayout, AChainTakesOneLayerPerOperator) {
  const GraphLayout layout = ComputeLayout(Parse("3: 0>1 1>2"), LayoutOptions{});
  EXPECT_EQ(Layers(layout), (std::vector<int>{0, 1, 2}));
  EXPECT_LT(layout.nodes[0].y, layout.nodes[2].y);
  EXPECT_NEAR(layout.nodes[0].x, layout.nodes[2].x, 1e-6);  // a chain is a straight column
}

TEST(GraphLayout, ANodeSitsBelowItsDeepestInput) {
  EXPECT_EQ(LongestPathLayers(Parse("4: 0>1 1>2 0>2 2>3")), (std::vector<int>{0, 1, 2, 3}));
}

TEST(GraphLayout, ANodeWithoutInputsSitsRightAboveItsConsumer) {
  // Node 1 only feeds node 3 (layer 2), so it belongs on layer 1, not 0.
  EXPECT_EQ(LongestPathLayers(Parse("4: 0>2 1>3 2>3")), (std::vector<int>{0, 1, 1, 2}));
}

TEST(GraphLayout, OrderingRemovesAvoidableCrossings) {
  const GraphLayout layout = ComputeLayout(Parse("4: 0>3 1>2"), LayoutOptions{});
  EXPECT_EQ(layout.crossings, 0);
  EXPECT_LT(layout.nodes[3].x, layout.nodes[2].x);
}

TEST(GraphLayout, AnUnavoidableCrossingIsCounted) {
  const GraphLayout layout = ComputeLayout(Parse("4: 0>2 0>3 1>2 1>3"), LayoutOptions{});
  EXPECT_EQ(layout.crossings, 1);
}

TEST(GraphLayout, ALongEdgeBendsAroundTheNodesItSkips) {
  LayoutOptions options;
  const GraphLayout layout = ComputeLayout(Parse("3: 0>1 1>2 0>2"), options);
  const EdgeRoute& skip = layout.edges[2];
  ASSERT_EQ(skip.points.size(), 4u);  // leave 0, pass layer 1 (two points), enter 2
  const NodePlacement& middle = layout.nodes[1];
  EXPECT_GE(std::fabs(skip.points[1].x - middle.x), middle.width / 2);
  EXPECT_DOUBLE_EQ(skip.points.front().y, layout.nodes[0].y + options.node_height / 2);
  EXPECT_DOUBLE_EQ(skip.points.back().y, layout.nodes[2].y - options.node_height / 2);
}

TEST(GraphLayout, BackwardOrderPutsTheLastOperatorOnTop) {
  LayoutOptions options;
  options.order = LayoutOrder::kBackward;
  const GraphLayout layout = ComputeLayout(Parse("4: 0>1 1>2 0>2 2>3"), options);
  EXPECT_EQ(Layers(layout), (std::vector<int>{3, 2, 1, 0}));
  for (const EdgeRoute& edge : layout.edges) {
    ASSERT_GE(edge.points.size(), 2u);
    EXPECT_GT(edge.points.front().y, edge.points.back().y);  // producers below consumers
  }
}

TEST(GraphLayout, RandomDagsNeverOverlap) {
  std::mt19937 random(3);
  for (int round = 0; round < 20; ++round) {
    LayoutInput input;
    input.node_count = 30;
    for (int to = 1; to < 30; ++to) {
      std::uniform_int_distribution<int> pick(0, to - 1);
      const int fan_in = 1 + to % 3;
      for (int e = 0; e < fan_in; ++e) input.edges.push_back(LayoutEdgeInput{pick(random), to, -1});
    }
    for (size_t node = 0; node < input.node_count; ++node)
      input.widths.push_back(100.0 + 10.0 * static_cast<double>(node % 5));
    LayoutOptions options;
    options.order = round % 2 ? LayoutOrder::kBackward : LayoutOrder::kForward;
    const GraphLayout layout = ComputeLayout(input, options);
    ExpectNoOverlaps(layout, options);
    size_t placed = 0;
    for (const auto& row : layout.layers) placed += row.size();
    EXPECT_EQ(placed, input.node_count);
  }
}

TEST(GraphLayout, BadEdgesAreToleratedWithoutCrashing) {
  const GraphLayout layout = ComputeLayout(Parse("3: 0>1 1>1 2>0 7>1 -1>2"), LayoutOptions{});
  EXPECT_EQ(layout.nodes.size(), 3u);
  EXPECT_EQ(layout.edges.size(), 5u);
  EXPECT_TRUE(layout.edges[3].points.empty());
  EXPECT_TRUE(ComputeLayout(LayoutInput{}, LayoutOptions{}).nodes.empty());
}

TEST(GraphLayout, SubgraphEdgesFollowNonConstantTensors) {
  const Graph graph = testing::MakeConvNet();
  // CONV MAXPOOL CONV ADD RESHAPE FC FC SOFTMAX; ADD reads CONV2 and MAXPOOL.
  ASSERT_EQ(graph.main().operators.size(), 8u);
  std::vector<int> node_of_op;
  const LayoutInput input = LayoutInputFromSubgraph(graph.main(), 0, &node_of_op);
  EXPECT_EQ(input.node_count, 8u);
  EXPECT_EQ(input.edges.size(), 8u);  // 7 along the chain + the skip connection
  const GraphLayout layout = ComputeLayout(input, LayoutOptions{});
  EXPECT_EQ(Layers(layout), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(GraphLayout, ACollapsedPrefixBecomesOneNode) {
  const Graph graph = testing::MakeConvNet();
  std::vector<int> node_of_op;
  const LayoutInput input = LayoutInputFromSubgraph(graph.main(), 4, &node_of_op);
  EXPECT_EQ(input.node_count, 5u);
  EXPECT_EQ(node_of_op, (std::vector<int>{0, 0, 0, 0, 1, 2, 3, 4}));
  for (const LayoutEdgeInput& edge : input.edges) EXPECT_NE(edge.from, edge.to);
  EXPECT_EQ(input.edges.size(), 4u);
}

TEST(GraphLayout, ARealThirtyOneOperatorModelIsOneStraightColumn) {
  TS_REQUIRE_FIXTURES();
  Model model;
  ASSERT_TRUE(
      ReadModelFile(::trainscope::testing::ModelsDir() + "/tflite/person_detect.tflite", &model)
          .ok());
  const LayoutInput input = LayoutInputFromSubgraph(model.graph().main(), 0, nullptr);
  ASSERT_EQ(input.node_count, 31u);
  LayoutOptions options;
  options.order = LayoutOrder::kBackward;
  const GraphLayout layout = ComputeLayout(input, options);
  EXPECT_EQ(layout.layers.size(), 31u);  // a chain: one operator per layer
  EXPECT_EQ(layout.crossings, 0);
  EXPECT_EQ(layout.nodes[30].layer, 0);  // the last operator on top in backward order
  ExpectNoOverlaps(layout, options);
}

}  // namespace
}  // namespace trainscope
