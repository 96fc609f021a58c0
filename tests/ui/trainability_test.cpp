// SPDX-License-Identifier: Apache-2.0
#include "ui/session/trainability.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

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

// What a board or a recording announces (the ops whose weights train, with their ranks) turns
// back into a configuration that trains the same weights, in the form a user writes: "last N"
// where one does it (the smallest N: the announcement does not say how far the backward pass ran
// through ops without weights).
TEST_F(TrainabilityTest, AnAnnouncedTrainedSetBecomesAConfigurationTrainingTheSameWeights) {
  struct Case {
    TrainabilityConfig config;
    TrainabilityConfig want;  // the form the announcement turns into
  };
  auto last = [](uint32_t n) {
    TrainabilityConfig config;
    config.num_train_layers = n;
    return config;
  };
  auto ranks = [](std::map<uint16_t, TrainRank> map) {
    TrainabilityConfig config;
    config.op_ranks = std::move(map);
    return config;
  };
  const std::vector<Case> cases = {
      {last(0), last(0)},
      {last(4), last(0)},
      {last(1), last(1)},  // the SOFTMAX alone: no weights train
      {last(2), last(2)},
      {last(3), last(2)},  // RELU(1) has no weights: the smallest N trains the same
      {ranks({{2, TrainRank::kAll}, {3, TrainRank::kAll}}), last(2)},
      {ranks({{0, TrainRank::kAll}, {2, TrainRank::kAll}}), last(0)},
      {ranks({{2, TrainRank::kOnlyBias}, {3, TrainRank::kAll}}),
       ranks({{2, TrainRank::kOnlyBias}, {3, TrainRank::kAll}})},
      {ranks({{0, TrainRank::kUpperHalf}}), ranks({{0, TrainRank::kUpperHalf}})},
      {ranks({{0, TrainRank::kAll}}), ranks({{0, TrainRank::kAll}})},
  };
  // What a board announces: the ops with parameter gradients (a listed op without weights too).
  auto announced_by = [this](const TrainabilityConfig& config) {
    std::map<uint16_t, TrainRank> trained;
    const std::vector<OpTrainability> ops = ResolveTrainability(subgraph(), config);
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].has_parameter_gradients) trained[static_cast<uint16_t>(k)] = ops[k].rank;
    }
    return trained;
  };
  auto trained_weights = [&](const TrainabilityConfig& config) {
    std::map<uint16_t, TrainRank> trained;
    for (const auto& [op, rank] : announced_by(config)) {
      if (HasOnertTrainableWeights(subgraph().operators[op].opcode)) trained[op] = rank;
    }
    return trained;
  };
  for (const Case& c : cases) {
    const TrainabilityConfig back = TrainabilityFromTrainedOps(subgraph(), announced_by(c.config));
    SCOPED_TRACE("last " + std::to_string(c.config.num_train_layers) + ", " +
                 std::to_string(c.config.op_ranks.size()) + " ranks");
    EXPECT_EQ(back, c.want);
    EXPECT_EQ(trained_weights(back), trained_weights(c.config));
  }
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
