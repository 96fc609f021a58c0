// SPDX-License-Identifier: Apache-2.0
//
// The train-step timeline of simple_mnist, accounted as heap blocks, against byte counts worked
// out by hand from the plans (see tests/engine/plan/plans_test.cpp for the lists and sizes):
//   tensors: input 0 = 484, conv out 6 = 1600, pool out 7 = 400, reshape out 8 = 400,
//            fc1 out 9 = 16, fc2 out 10 = 8, softmax out 11 = 8 bytes;
//   weights: conv 4 = 64, conv bias 5 = 16, fc1 2 = 1600, fc2 1 = 32 bytes;
//   SOFTMAX backward temporary (Jacobian row) = 2 floats = 8 bytes when it is not the last layer.
#include <gtest/gtest.h>

#include "engine/memory/heap_accounting.h"
#include "engine/memory/memory_events.h"
#include "engine/memory/memory_timeline.h"
#include "engine/model/model.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

Subgraph SimpleMnist() {
  Model model;
  const Status status =
      ReadModelFile(testing::ModelsDir() + "/onert-micro/simple_mnist/model.circle", &model);
  EXPECT_TRUE(status.ok()) << status.message();
  return status.ok() ? model.graph().main() : Subgraph();
}

MemoryTimeline Training(const Subgraph& graph, const TrainabilityConfig& config,
                        OptimizerKind optimizer = OptimizerKind::kSgd, uint32_t batch_size = 1) {
  TimelineOptions options;
  options.optimizer = optimizer;
  options.batch_size = batch_size;
  options.backward_temporary_bytes = &OnertBackwardTemporaryBytes;
  MemoryTimeline timeline;
  const Status status =
      BuildTrainingTimeline(graph, SelectBackwardRange(graph, config), options, &timeline);
  EXPECT_TRUE(status.ok()) << status.message();
  return timeline;
}

HeapAccounting Account(const MemoryTimeline& timeline) {
  HeapAccounting heap;
  EXPECT_TRUE(AddTimeline(timeline, &heap).ok());
  EXPECT_TRUE(heap.Plan().ok());
  return heap;
}

std::vector<uint64_t> LivePerTick(const MemoryTimeline& timeline, const HeapAccounting& heap) {
  std::vector<uint64_t> live;
  for (uint32_t t = 0; t < timeline.ticks.size(); ++t) live.push_back(heap.current_bytes(t));
  return live;
}

TEST(TrainingTimeline, AllLayersHeapMatchesTheHandCount) {
  TS_REQUIRE_FIXTURES();
  const MemoryTimeline timeline = Training(SimpleMnist(), TrainabilityConfig{});
  // Ticks: forward 0-5, loss, backward 0-5, optimizer.
  ASSERT_EQ(timeline.ticks.size(), 14u);
  EXPECT_EQ(timeline.ticks[6].kind, TickKind::kLossGradient);
  EXPECT_EQ(timeline.ticks[13].kind, TickKind::kOptimizerStep);
  const HeapAccounting heap = Account(timeline);
  // Forward keeps everything: f0 484+1600 = 2084, f1 +400 = 2484, f2 +400 = 2884,
  // f3 +16 = 2900, f4 +8 = 2908, f5 +8 = 2916. Loss gradient of 11: +8 = 2924.
  // b0 (SOFTMAX): +8 grad 10 +8 temporary = 2940; frees temp, grad 11, act 11 (-24) -> 2916
  // b1 (FC 4):    +16 grad 9 +32 grad w1 = 2964; frees grad/act 10 (-16) -> 2948
  // b2 (FC 3):    +400 grad 8 +1600 grad w2 = 4948; frees grad/act 9 (-32) -> 4916
  // b3 (RESHAPE): +400 grad 7 = 5316; frees grad/act 8 (-800) -> 4516
  // b4 (MAXPOOL): +1600 grad 6 = 6116; frees grad/act 7 (-800) -> 5316
  // b5 (CONV):    +64 +16 weight/bias grads = 5396; frees act 0, grad/act 6 (-3684) -> 1712
  // optimizer:    the weight gradients 32 + 1600 + 64 + 16 = 1712.
  const std::vector<uint64_t> expected = {2084, 2484, 2884, 2900, 2908, 2916, 2924,
                                          2940, 2964, 4948, 5316, 6116, 5396, 1712};
  EXPECT_EQ(LivePerTick(timeline, heap), expected);
  EXPECT_EQ(heap.peak_bytes(), 6116u);
  EXPECT_EQ(timeline.ticks[heap.peak_tick()].kind, TickKind::kBackwardStep);
  EXPECT_EQ(timeline.ticks[heap.peak_tick()].step, 4u);
}

TEST(TrainingTimeline, LastTwoLayersPeaksAtTheFirstConvolution) {
  TS_REQUIRE_FIXTURES();
  TrainabilityConfig config;
  config.num_train_layers = 2;
  const MemoryTimeline timeline = Training(SimpleMnist(), config);
  const HeapAccounting heap = Account(timeline);
  // f0: input 484 + conv out 1600 = 2084 (then the input is freed); later ticks hold less:
  // f1 1600+400, f2 400+400, f3 400+16, f4 16+8, f5 24+8, loss 40, b0 48+8 temp, b1 32+32.
  const std::vector<uint64_t> expected = {2084, 2000, 800, 416, 24, 32, 40, 56, 64, 32};
  EXPECT_EQ(LivePerTick(timeline, heap), expected);
  EXPECT_EQ(heap.peak_bytes(), 2084u);
  EXPECT_EQ(heap.peak_tick(), 0u);
}

TEST(TrainingTimeline, OnlyBiasConfigSkipsTheConvWeightsGradient) {
  TS_REQUIRE_FIXTURES();
  TrainabilityConfig config;
  config.op_ranks = {{0, TrainRank::kOnlyBias}, {3, TrainRank::kAll}};
  const MemoryTimeline timeline = Training(SimpleMnist(), config);
  const HeapAccounting heap = Account(timeline);
  // f0 2084 -> 1600 (input freed), f1 2000, f2 2400 -> 2000 (7 freed), f3 2016, f4 2024,
  // f5 2032, loss 2040, b0 2048+8 = 2056 -> 2032, b1 +16 = 2048 -> 2032,
  // b2 +1600 +400 = 4032 -> 4000, b3 +400 = 4400 -> 3600, b4 +1600 = 5200 -> 4800 (7 was
  // already freed in the forward pass), b5 +16 bias = 4816 -> 1616; optimizer 1600 + 16.
  const std::vector<uint64_t> expected = {2084, 2000, 2400, 2016, 2024, 2032, 2040,
                                          2056, 2048, 4032, 4400, 5200, 4816, 1616};
  EXPECT_EQ(LivePerTick(timeline, heap), expected);
  EXPECT_EQ(heap.peak_bytes(), 5200u);
  EXPECT_EQ(timeline.Find(BufferStorage::kBackward, 4), -1);  // no conv weight gradient
  EXPECT_NE(timeline.Find(BufferStorage::kBackward, 5), -1);
}

TEST(TrainingTimeline, AdamStateIsPersistentAndSizedLikeTheGradients) {
  TS_REQUIRE_FIXTURES();
  const MemoryTimeline timeline =
      Training(SimpleMnist(), TrainabilityConfig{}, OptimizerKind::kAdam);
  const HeapAccounting heap = Account(timeline);
  // m and v for every weight gradient: 2 x 1712 = 3424 on every tick.
  EXPECT_EQ(heap.peak_bytes(), 6116u + 3424u);
  EXPECT_EQ(heap.current_bytes(0), 2084u + 3424u);
  int moments = 0;
  for (const TimelineBuffer& b : timeline.buffers) {
    if (b.category != MemoryCategory::kOptimizerState) continue;
    ++moments;
    EXPECT_TRUE(b.persistent);
    EXPECT_EQ(b.first_tick, 0u);
    EXPECT_EQ(b.last_tick, timeline.ticks.size() - 1);
  }
  EXPECT_EQ(moments, 8);
}

TEST(TrainingTimeline, LaterSamplesHoldGradientsNextToTheAccumulatedOnes) {
  TS_REQUIRE_FIXTURES();
  const MemoryTimeline timeline =
      Training(SimpleMnist(), TrainabilityConfig{}, OptimizerKind::kSgd, 8);
  EXPECT_EQ(timeline.modelled_samples, 2u);
  ASSERT_EQ(timeline.ticks.size(), 27u);  // 2 x (6 forward + loss + 6 backward) + optimizer
  const HeapAccounting heap = Account(timeline);
  // Sample 1 repeats sample 0 while sample 0's 1712 gradient bytes wait for the optimizer.
  EXPECT_EQ(heap.peak_bytes(), 6116u + 1712u);
  EXPECT_EQ(timeline.ticks[heap.peak_tick()].sample, 1u);
  const int32_t accumulated = timeline.Find(BufferStorage::kBackward, 2, 0);
  const int32_t per_sample = timeline.Find(BufferStorage::kBackward, 2, 1);
  ASSERT_GE(accumulated, 0);
  ASSERT_GE(per_sample, 0);
  EXPECT_EQ(timeline.buffers[static_cast<size_t>(accumulated)].last_tick, 26u);
  EXPECT_EQ(timeline.buffers[static_cast<size_t>(per_sample)].last_tick, 25u);
}

TEST(TrainingTimeline, CategoriesFollowWhatEachBufferHolds) {
  TS_REQUIRE_FIXTURES();
  const Subgraph mnist = SimpleMnist();
  const MemoryTimeline all = Training(mnist, TrainabilityConfig{});
  auto category = [](const MemoryTimeline& t, BufferStorage storage, int32_t tensor) {
    const int32_t id = t.Find(storage, tensor);
    EXPECT_GE(id, 0) << "tensor " << tensor;
    return id < 0 ? MemoryCategory::kTemporary : t.buffers[static_cast<size_t>(id)].category;
  };
  EXPECT_EQ(category(all, BufferStorage::kForward, 0), MemoryCategory::kInput);
  EXPECT_EQ(category(all, BufferStorage::kForward, 6), MemoryCategory::kActivationKept);
  EXPECT_EQ(category(all, BufferStorage::kBackward, 11), MemoryCategory::kLossGradient);
  EXPECT_EQ(category(all, BufferStorage::kBackward, 6), MemoryCategory::kActivationGradient);
  EXPECT_EQ(category(all, BufferStorage::kBackward, 2), MemoryCategory::kWeightGradient);
  const int32_t temporary = all.Find(BufferStorage::kKernel, 5);
  ASSERT_GE(temporary, 0);
  EXPECT_EQ(all.buffers[static_cast<size_t>(temporary)].bytes, 8u);
  EXPECT_EQ(all.buffers[static_cast<size_t>(temporary)].first_tick, 7u);  // backward step 0

  TrainabilityConfig last_two;
  last_two.num_train_layers = 2;
  const MemoryTimeline partial = Training(mnist, last_two);
  EXPECT_EQ(category(partial, BufferStorage::kForward, 6), MemoryCategory::kActivation);
  EXPECT_EQ(category(partial, BufferStorage::kForward, 9), MemoryCategory::kActivationKept);
}

TEST(TrainingTimeline, HalfRankHalvesTheWeightGradient) {
  TS_REQUIRE_FIXTURES();
  TrainabilityConfig config;
  config.op_ranks = {{3, TrainRank::kUpperHalf}};
  const MemoryTimeline timeline = Training(SimpleMnist(), config);
  const int32_t id = timeline.Find(BufferStorage::kBackward, 2);
  ASSERT_GE(id, 0);
  EXPECT_EQ(timeline.buffers[static_cast<size_t>(id)].bytes, 800u);  // [2, 100] of [4, 100]
}

TEST(InferenceTimeline, FreesActivationsAfterTheirConsumer) {
  TS_REQUIRE_FIXTURES();
  MemoryTimeline timeline;
  ASSERT_TRUE(BuildInferenceTimeline(SimpleMnist(), {}, &timeline).ok());
  const HeapAccounting heap = Account(timeline);
  // f0 484+1600, f1 1600+400, f2 400+400, f3 400+16, f4 16+8, f5 8+8.
  EXPECT_EQ(LivePerTick(timeline, heap), (std::vector<uint64_t>{2084, 2000, 800, 416, 24, 16}));
}

TEST(MemoryEvents, ReplayingTheEventsReproducesTheHeapCounter) {
  TS_REQUIRE_FIXTURES();
  const MemoryTimeline timeline =
      Training(SimpleMnist(), TrainabilityConfig{}, OptimizerKind::kAdam, 2);
  const HeapAccounting heap = Account(timeline);
  const std::vector<MemoryEvent> events = BuildMemoryEvents(timeline, nullptr);
  const std::vector<MemorySummaryEvent> summaries = BuildMemorySummaries(timeline, heap);
  ASSERT_EQ(summaries.size(), timeline.ticks.size());
  size_t persistent = 0;
  for (const TimelineBuffer& b : timeline.buffers) persistent += b.persistent ? 1 : 0;
  EXPECT_EQ(events.size(), 2 * timeline.buffers.size() - persistent);

  // Allocations of a tick precede its frees, ticks never go back, and the running sum after a
  // tick's allocations equals the heap's bytes for that tick.
  uint64_t current = 0, peak = 0;
  size_t e = 0;
  for (uint32_t tick = 0; tick < timeline.ticks.size(); ++tick) {
    while (e < events.size() && events[e].tick == tick && events[e].alloc) {
      current += events[e++].bytes;
    }
    peak = std::max(peak, current);
    EXPECT_EQ(current, summaries[tick].current_bytes) << "tick " << tick;
    EXPECT_EQ(peak, summaries[tick].peak_bytes) << "tick " << tick;
    while (e < events.size() && events[e].tick == tick && !events[e].alloc) {
      current -= events[e++].bytes;
    }
  }
  EXPECT_EQ(e, events.size());
}

class RecordingObserver : public TrainingObserver {
 public:
  void OnMemory(const MemoryEvent& event) override { events.push_back(event); }
  void OnMemorySummary(const MemorySummaryEvent& summary) override {
    summaries.push_back(summary);
    summary_positions.push_back(events.size());
  }
  std::vector<MemoryEvent> events;
  std::vector<MemorySummaryEvent> summaries;
  std::vector<size_t> summary_positions;  // events seen before each summary
};

TEST(MemoryEvents, ObserverGetsEachTicksEventsBeforeItsSummary) {
  TS_REQUIRE_FIXTURES();
  const MemoryTimeline timeline = Training(SimpleMnist(), TrainabilityConfig{});
  const HeapAccounting heap = Account(timeline);
  RecordingObserver observer;
  EmitMemoryEvents(timeline, nullptr, heap, &observer);
  const std::vector<MemoryEvent> events = BuildMemoryEvents(timeline, nullptr);
  ASSERT_EQ(observer.events.size(), events.size());
  ASSERT_EQ(observer.summaries.size(), timeline.ticks.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(observer.events[i].tick, events[i].tick);
    EXPECT_EQ(observer.events[i].tensor, events[i].tensor);
    EXPECT_EQ(observer.events[i].alloc, events[i].alloc);
  }
  for (size_t t = 0; t < observer.summaries.size(); ++t) {
    const size_t seen = observer.summary_positions[t];
    if (seen > 0) {
      EXPECT_LE(observer.events[seen - 1].tick, t);
    }
    if (seen < observer.events.size()) {
      EXPECT_GT(observer.events[seen].tick, t);
    }
  }
  // Backward step 4 (op 1, MAX_POOL_2D) is tick 11: the gradient of its input 6 is allocated
  // there and its output 7 (activation and gradient) freed.
  EXPECT_EQ(observer.summaries[11].phase, Phase::kBackward);
  EXPECT_EQ(observer.summaries[11].step, 4u);
  EXPECT_EQ(observer.summaries[11].current_bytes, 6116u);
  int freed_seven = 0;
  for (const MemoryEvent& e : events) {
    if (e.tick == 11 && !e.alloc && e.tensor == 7) ++freed_seven;
    if (e.tick == 11 && e.alloc) {
      EXPECT_EQ(e.tensor, 6);
    }
  }
  EXPECT_EQ(freed_seven, 2);
}

TEST(MemoryTimeline, RefusesZeroBatch) {
  TS_REQUIRE_FIXTURES();
  const Subgraph mnist = SimpleMnist();
  TimelineOptions options;
  options.batch_size = 0;
  MemoryTimeline timeline;
  EXPECT_EQ(BuildTrainingTimeline(mnist, SelectBackwardRange(mnist, {}), options, &timeline).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trainscope
