// SPDX-License-Identifier: Apache-2.0
#include "tests/common/synthetic/synthetic_stream.h"

#include <gtest/gtest.h>

#include <map>

#include "tests/ui/test_models.h"
#include "ui/session/session_store.h"

namespace trainscope {
namespace {

using Unit = SyntheticStream::Unit;

EventBatch RunUntil(SyntheticStream& stream, Unit target) {
  EventBatch batch;
  for (int i = 0; i < 100000 && stream.next(&batch) != target;) ++i;
  return batch;
}

TEST(SyntheticStream, BackwardRunsFromTheLastOperatorToTheFirst) {
  const Graph graph = testing::MakeConvNet();
  const size_t n = graph.main().operators.size();
  ASSERT_GT(n, 0u);
  SyntheticStream stream(graph.main(), SyntheticOptions{});
  const EventBatch batch = RunUntil(stream, Unit::kSampleEnd);
  std::vector<uint32_t> begun;
  for (const BackwardStepEvent& event : batch.backward_steps) {
    EXPECT_EQ(event.op_index, n - 1 - event.step);
    if (event.begin) begun.push_back(event.op_index);
  }
  ASSERT_EQ(begun.size(), n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(begun[i], n - 1 - i);
  EXPECT_TRUE(batch.backward_steps.back().is_last_layer);
}

TEST(SyntheticStream, EveryBufferIsFreedBySampleEndAndLiveBuffersNeverOverlap) {
  const Graph graph = testing::MakeConvNet();
  SyntheticStream stream(graph.main(), SyntheticOptions{});
  const EventBatch batch = RunUntil(stream, Unit::kSampleEnd);
  struct Interval {
    uint64_t begin, end;
  };
  std::map<std::pair<int32_t, int>, Interval> live;
  for (const MemoryEvent& event : batch.memory) {
    const auto key = std::make_pair(event.tensor, int(event.category));
    if (event.alloc) {
      const Interval fresh{event.offset, event.offset + event.bytes};
      for (const auto& [other_key, other] : live) {
        EXPECT_TRUE(fresh.end <= other.begin || other.end <= fresh.begin)
            << "tensor " << event.tensor << " overlaps tensor " << other_key.first;
      }
      EXPECT_TRUE(live.emplace(key, fresh).second);
    } else {
      EXPECT_EQ(live.erase(key), 1u) << "free without alloc, tensor " << event.tensor;
    }
  }
  EXPECT_TRUE(live.empty());
}

TEST(SyntheticStream, TrainabilityChangesWaitForTheNextOptimizerStep) {
  const Graph graph = testing::MakeMlp({16, 8, 4});  // 4 ops
  SyntheticOptions options;
  options.batch_size = 2;
  SyntheticStream stream(graph.main(), options);
  RunUntil(stream, Unit::kSampleEnd);  // first sample of the batch, all 4 ops backward
  TrainabilityConfig last_two;
  last_two.num_train_layers = 2;
  stream.setTrainability(last_two);
  EventBatch rest_of_batch = RunUntil(stream, Unit::kOptimizerStep);
  size_t steps = 0;
  for (const BackwardStepEvent& event : rest_of_batch.backward_steps) steps += event.begin;
  EXPECT_EQ(steps, 4u);  // the old configuration finishes the batch
  ASSERT_FALSE(rest_of_batch.messages.empty());
  EventBatch next_sample = RunUntil(stream, Unit::kSampleEnd);
  steps = 0;
  for (const BackwardStepEvent& event : next_sample.backward_steps) steps += event.begin;
  EXPECT_EQ(steps, 2u);
  EXPECT_EQ(stream.appliedTrainability(), last_two);
}

TEST(SyntheticStream, GradientStatsOnlyForTrainedWeights) {
  const Graph graph = testing::MakeMlp({16, 8, 4});
  SyntheticOptions options;
  options.batch_size = 1;
  SyntheticStream stream(graph.main(), options);
  TrainabilityConfig config;
  config.op_ranks[2] = TrainRank::kOnlyBias;
  stream.setTrainability(config);
  const EventBatch batch = RunUntil(stream, Unit::kOptimizerStep);
  ASSERT_EQ(batch.gradient_stats.size(), 1u);  // op 2's bias only
  EXPECT_EQ(batch.gradient_stats[0].op_index, 2u);
  EXPECT_EQ(batch.gradient_stats[0].tensor, graph.main().operators[2].inputs[2]);
  EXPECT_EQ(batch.update_ratios.size(), 1u);
  ASSERT_EQ(batch.optimizer_steps.size(), 1u);
  EXPECT_EQ(batch.optimizer_steps[0].optimizer_step, 1u);
}

TEST(SyntheticStream, TheSameSeedGivesTheSameStream) {
  const Graph graph = testing::MakeMlp({16, 8, 4});
  SyntheticStream a(graph.main(), SyntheticOptions{});
  SyntheticStream b(graph.main(), SyntheticOptions{});
  const EventBatch batch_a = RunUntil(a, Unit::kOptimizerStep);
  const EventBatch batch_b = RunUntil(b, Unit::kOptimizerStep);
  ASSERT_EQ(batch_a.losses.size(), batch_b.losses.size());
  for (size_t i = 0; i < batch_a.losses.size(); ++i) {
    EXPECT_EQ(batch_a.losses[i].value, batch_b.losses[i].value);
  }
}

TEST(SyntheticStream, FeedsAStoreThatSeesRisingAndFallingMemory) {
  const Graph graph = testing::MakeConvNet();
  SyntheticStream stream(graph.main(), SyntheticOptions{});
  SessionStore store;
  store.append(RunUntil(stream, Unit::kSampleEnd));
  std::shared_ptr<const SessionSnapshot> snapshot = store.snapshot();
  ASSERT_FALSE(snapshot->memory->ticks().empty());
  EXPECT_GT(snapshot->peakBytes(), 0u);
  EXPECT_EQ(snapshot->memory->currentBytes(), 0u);
  EXPECT_EQ(snapshot->memory->unmatchedFrees(), 0u);
  EXPECT_EQ(snapshot->progress.done_ops.size(), graph.main().operators.size());
}

}  // namespace
}  // namespace trainscope
