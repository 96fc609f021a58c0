// SPDX-License-Identifier: Apache-2.0
#include "ui/session/trainability.h"

#include <gtest/gtest.h>

#include "tests/ui/test_models.h"

namespace trainscope {
namespace {

using testing::MakeMlp;

// MakeMlp({16, 8, 4}) is FC(0) RELU(1) FC(2) SOFTMAX(3).
class TrainabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    graph_ = MakeMlp({16, 8, 4});
    ASSERT_EQ(graph_.main().operators.size(), 4u);
  }
  const Subgraph& subgraph() const { return graph_.main(); }
  Graph graph_;
};

TEST_F(TrainabilityTest, LastNLayersRunBackwardFromTheEnd) {
  TrainabilityConfig config;
  config.num_train_layers = 2;
  const std::vector<OpTrainability> ops = ResolveTrainability(subgraph(), config);
  EXPECT_FALSE(ops[0].in_backward_range);
  EXPECT_FALSE(ops[1].in_backward_range);
  EXPECT_TRUE(ops[3].in_backward_range);
  EXPECT_EQ(ops[3].backward_step, 0u);
  EXPECT_EQ(ops[2].backward_step, 1u);
  EXPECT_TRUE(ops[2].is_last_layer);
  EXPECT_FALSE(ops[3].is_last_layer);
  EXPECT_TRUE(ops[2].trainable);
  EXPECT_EQ(ops[2].rank, TrainRank::kAll);
}

TEST_F(TrainabilityTest, ZeroOrTooManyLayersMeansTheWholeModel) {
  for (uint32_t last_n : {0u, 4u, 99u}) {
    TrainabilityConfig config;
    config.num_train_layers = last_n;
    EXPECT_EQ(BackwardLayerCount(subgraph(), config), 4u) << "last_n " << last_n;
    const std::vector<OpTrainability> ops = ResolveTrainability(subgraph(), config);
    EXPECT_TRUE(ops[0].in_backward_range);
    EXPECT_TRUE(ops[0].is_last_layer);
  }
}

TEST_F(TrainabilityTest, ARankMapOverridesLastNAndTrainsOnlyListedOps) {
  TrainabilityConfig config;
  config.num_train_layers = 1;
  config.op_ranks[1] = TrainRank::kOnlyBias;
  const std::vector<OpTrainability> ops = ResolveTrainability(subgraph(), config);
  EXPECT_FALSE(ops[0].in_backward_range);
  EXPECT_TRUE(ops[1].in_backward_range);
  EXPECT_TRUE(ops[1].is_last_layer);
  EXPECT_TRUE(ops[1].trainable);
  EXPECT_EQ(ops[1].rank, TrainRank::kOnlyBias);
  EXPECT_TRUE(ops[2].in_backward_range);
  EXPECT_FALSE(ops[2].trainable);  // gradients flow through it, its weights stay
}

TEST_F(TrainabilityTest, RankEntriesBeyondTheModelAreIgnored) {
  TrainabilityConfig config;
  config.op_ranks[99] = TrainRank::kAll;
  EXPECT_EQ(BackwardLayerCount(subgraph(), config), 0u);
  const std::vector<OpTrainability> ops = ResolveTrainability(subgraph(), config);
  for (const OpTrainability& op : ops) EXPECT_FALSE(op.in_backward_range);
}

TEST_F(TrainabilityTest, TrainedParametersFollowTheRanks) {
  // FC0: 8x16 weights + 8 bias; FC2: 4x8 weights + 4 bias.
  TrainabilityConfig all;
  EXPECT_EQ(TrainedParameterCount(subgraph(), ResolveTrainability(subgraph(), all)),
            128u + 8u + 32u + 4u);
  TrainabilityConfig ranked;
  ranked.op_ranks[0] = TrainRank::kUpperHalf;  // rows [0, 4) of 8: 4 x 16, plus the bias
  ranked.op_ranks[2] = TrainRank::kOnlyBias;   // bias only
  EXPECT_EQ(TrainedParameterCount(subgraph(), ResolveTrainability(subgraph(), ranked)),
            64u + 8u + 4u);
  EXPECT_EQ(OperatorParameterCount(subgraph(), 0), 136u);
  EXPECT_EQ(OperatorParameterCount(subgraph(), 1), 0u);
  EXPECT_EQ(OperatorParameterCount(subgraph(), 42), 0u);
}

TEST(Trainability, HalvesOfAnOddRowCountSplitLikeOnertMicro) {
  const Graph graph = MakeMlp({3, 5, 2});  // FC0 weights 5x3
  TrainabilityConfig upper;
  upper.op_ranks[0] = TrainRank::kUpperHalf;  // rows [0, 2)
  TrainabilityConfig lower;
  lower.op_ranks[0] = TrainRank::kLowerHalf;  // rows [2, 5)
  EXPECT_EQ(TrainedParameterCount(graph.main(), ResolveTrainability(graph.main(), upper)),
            2u * 3u + 5u);
  EXPECT_EQ(TrainedParameterCount(graph.main(), ResolveTrainability(graph.main(), lower)),
            3u * 3u + 5u);
}

}  // namespace
}  // namespace trainscope
