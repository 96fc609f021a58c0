// SPDX-License-Identifier: Apache-2.0
//
// The arena planner never lets two buffers that are live on the same tick share a byte, on
// random buffer sets and on the timelines of every shared model, and stays within 5 % of the
// lower bound (the most aligned bytes live on any tick) on the shared models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>

#include "engine/memory/greedy_arena_planner.h"
#include "engine/memory/memory_events.h"
#include "engine/memory/planned_arena.h"
#include "engine/model/model.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

struct BufferSpec {
  uint64_t bytes;
  uint32_t first;
  uint32_t last;
};

// Independent checks of a plan: alignment, no overlap in space for buffers overlapping in time,
// arena = highest end, and the lower bound recomputed by brute force.
void ExpectValidPlan(const std::vector<BufferSpec>& specs, const GreedyArenaPlanner& planner) {
  ASSERT_TRUE(planner.planned());
  uint64_t top = 0;
  uint32_t ticks = 0;
  for (uint32_t i = 0; i < specs.size(); ++i) {
    const uint64_t size = (specs[i].bytes + 15) / 16 * 16;
    EXPECT_EQ(planner.offset(i) % 16, 0u);
    if (size > 0) top = std::max(top, planner.offset(i) + size);
    ticks = std::max(ticks, specs[i].last + 1);
    for (uint32_t j = 0; j < i; ++j) {
      const bool same_time = specs[i].first <= specs[j].last && specs[j].first <= specs[i].last;
      if (!same_time || specs[i].bytes == 0 || specs[j].bytes == 0) continue;
      const uint64_t a0 = planner.offset(i), a1 = a0 + specs[i].bytes;
      const uint64_t b0 = planner.offset(j), b1 = b0 + specs[j].bytes;
      EXPECT_TRUE(a1 <= b0 || b1 <= a0) << "buffers " << i << " and " << j << " overlap: [" << a0
                                        << "," << a1 << ") and [" << b0 << "," << b1 << ")";
    }
  }
  EXPECT_EQ(planner.arena_bytes(), top);
  uint64_t bound = 0;
  for (uint32_t t = 0; t < ticks; ++t) {
    uint64_t live = 0;
    for (const BufferSpec& s : specs) {
      if (s.first <= t && t <= s.last) live += (s.bytes + 15) / 16 * 16;
    }
    bound = std::max(bound, live);
  }
  EXPECT_EQ(planner.lower_bound_bytes(), bound);
  EXPECT_GE(planner.arena_bytes(), bound);
}

TEST(GreedyArenaPlanner, ReusesTheSpaceOfBuffersThatDied) {
  // A [0,1], B [1,2], C [2,3], 32 bytes each: A and C never meet, so 64 bytes suffice.
  GreedyArenaPlanner planner;
  uint32_t a = 0, b = 0, c = 0;
  ASSERT_TRUE(planner.AddBuffer(32, 0, 1, &a).ok());
  ASSERT_TRUE(planner.AddBuffer(32, 1, 2, &b).ok());
  ASSERT_TRUE(planner.AddBuffer(32, 2, 3, &c).ok());
  EXPECT_EQ(c, 2u);
  ASSERT_TRUE(planner.Plan().ok());
  EXPECT_EQ(planner.arena_bytes(), 64u);
  EXPECT_EQ(planner.lower_bound_bytes(), 64u);
  EXPECT_EQ(planner.offset(a), planner.offset(c));
  EXPECT_NE(planner.offset(a), planner.offset(b));
  EXPECT_DOUBLE_EQ(planner.fragmentation(), 0.0);

  planner.Clear();
  EXPECT_EQ(planner.buffer_count(), 0u);
  EXPECT_FALSE(planner.planned());
  EXPECT_EQ(planner.offset(b), 0u);
}

TEST(GreedyArenaPlanner, AlignsEveryBufferTo16Bytes) {
  GreedyArenaPlanner planner;
  const std::vector<BufferSpec> specs = {{1, 0, 0}, {17, 0, 0}, {3, 0, 0}, {0, 0, 0}};
  for (const BufferSpec& s : specs) ASSERT_TRUE(planner.AddBuffer(s.bytes, s.first, s.last).ok());
  ASSERT_TRUE(planner.Plan().ok());
  EXPECT_EQ(planner.lower_bound_bytes(), 16u + 32u + 16u);
  EXPECT_EQ(planner.arena_bytes(), 64u);
  ExpectValidPlan(specs, planner);
}

TEST(GreedyArenaPlanner, RandomBufferSetsNeverOverlap) {
  std::mt19937 random(1234);
  double worst_ratio = 1.0, ratio_sum = 0.0;
  const int rounds = 150;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE(round);
    std::uniform_int_distribution<int> count_of(1, 60), size_of(0, 6000), tick_of(0, 40),
        length_of(0, 12);
    std::vector<BufferSpec> specs(static_cast<size_t>(count_of(random)));
    GreedyArenaPlanner planner;
    for (BufferSpec& s : specs) {
      s.bytes = static_cast<uint64_t>(size_of(random));
      s.first = static_cast<uint32_t>(tick_of(random));
      s.last = s.first + static_cast<uint32_t>(length_of(random));
      ASSERT_TRUE(planner.AddBuffer(s.bytes, s.first, s.last).ok());
    }
    ASSERT_TRUE(planner.Plan().ok());
    ExpectValidPlan(specs, planner);
    const double ratio = planner.lower_bound_bytes() == 0
                             ? 1.0
                             : static_cast<double>(planner.arena_bytes()) /
                                   static_cast<double>(planner.lower_bound_bytes());
    worst_ratio = std::max(worst_ratio, ratio);
    ratio_sum += ratio;
  }
  // Random interval sets are harder than model timelines and their lower bound is often not
  // reachable; measured: worst 1.081, mean 1.002. The limits catch a planner gone degenerate.
  EXPECT_LT(worst_ratio, 1.2);
  EXPECT_LT(ratio_sum / rounds, 1.02);
}

TEST(GreedyArenaPlanner, RefusesBadLifetimes) {
  GreedyArenaPlanner planner;
  EXPECT_EQ(planner.AddBuffer(16, 5, 4).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(planner.AddBuffer(16, 0, kMaxPlannerTicks).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(planner.AddBuffer(kMaxPlannerBufferBytes + 1, 0, 1).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(planner.buffer_count(), 0u);
}

bool IsFloatModel(const Subgraph& subgraph) {
  for (const Tensor& t : subgraph.tensors) {
    if (!t.constant && t.type != ElementType::kFloat32) return false;
  }
  return true;
}

void PlanTimelineAndCheck(const MemoryTimeline& timeline, const std::string& label) {
  SCOPED_TRACE(label);
  GreedyArenaPlanner planner;
  ASSERT_TRUE(AddTimeline(timeline, &planner).ok());
  ASSERT_TRUE(planner.Plan().ok());
  std::vector<BufferSpec> specs;
  for (const TimelineBuffer& b : timeline.buffers)
    specs.push_back({b.bytes, b.first_tick, b.last_tick});
  ExpectValidPlan(specs, planner);
  const double ratio = planner.lower_bound_bytes() == 0
                           ? 1.0
                           : static_cast<double>(planner.arena_bytes()) /
                                 static_cast<double>(planner.lower_bound_bytes());
  EXPECT_LE(ratio, 1.05) << "arena " << planner.arena_bytes() << " lower bound "
                         << planner.lower_bound_bytes() << " (" << planner.strategy() << ")";
}

TEST(GreedyArenaPlanner, SharedModelsPlanWithoutOverlapNearTheLowerBound) {
  TS_REQUIRE_FIXTURES();
  namespace fs = std::filesystem;
  int models = 0, training_timelines = 0;
  for (const auto& entry : fs::recursive_directory_iterator(testing::ModelsDir())) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".circle" && ext != ".tflite") continue;
    Model model;
    const Status read = ReadModelFile(entry.path().string(), &model);
    ASSERT_TRUE(read.ok()) << read.message();
    const Subgraph& graph = model.graph().main();
    ++models;
    TimelineOptions options;
    options.backward_temporary_bytes = &OnertBackwardTemporaryBytes;
    MemoryTimeline inference;
    ASSERT_TRUE(BuildInferenceTimeline(graph, options, &inference).ok());
    PlanTimelineAndCheck(inference, entry.path().string() + " inference");
    if (!IsFloatModel(graph)) continue;
    for (OptimizerKind optimizer : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
      for (uint32_t batch : {1u, 4u}) {
        options.optimizer = optimizer;
        options.batch_size = batch;
        MemoryTimeline training;
        ASSERT_TRUE(
            BuildTrainingTimeline(graph, SelectBackwardRange(graph, {}), options, &training).ok());
        PlanTimelineAndCheck(training, entry.path().string() + " training " +
                                           OptimizerName(optimizer) + " batch " +
                                           std::to_string(batch));
        ++training_timelines;
      }
    }
  }
  EXPECT_GE(models, 20);
  EXPECT_GE(training_timelines, 4 * 15);
}

TEST(PlannedArena, HandsOutPointersThatKeepLiveBuffersIntact) {
  // Buffers fill their bytes with their id when allocated; on every tick every live buffer must
  // still hold its pattern, which fails if the planner let two live buffers share bytes.
  std::mt19937 random(77);
  std::vector<BufferSpec> specs;
  GreedyArenaPlanner planner;
  for (int i = 0; i < 80; ++i) {
    BufferSpec s{static_cast<uint64_t>(random() % 700 + 1), static_cast<uint32_t>(random() % 30),
                 0};
    s.last = s.first + static_cast<uint32_t>(random() % 6);
    specs.push_back(s);
    ASSERT_TRUE(planner.AddBuffer(s.bytes, s.first, s.last).ok());
  }
  ASSERT_TRUE(planner.Plan().ok());
  std::unique_ptr<uint64_t[]> storage(new uint64_t[planner.arena_bytes() / 8 + 2]);
  uint8_t* arena = reinterpret_cast<uint8_t*>(storage.get());
  if (reinterpret_cast<uintptr_t>(arena) % 16 != 0) arena += 8;
  PlannedArena allocator;
  ASSERT_TRUE(allocator.Bind(planner, arena, planner.arena_bytes()).ok());
  ASSERT_EQ(allocator.buffer_count(), specs.size());
  EXPECT_EQ(allocator.data(static_cast<uint32_t>(specs.size())), nullptr);
  for (uint32_t tick = 0; tick < 40; ++tick) {
    for (uint32_t id = 0; id < specs.size(); ++id) {
      if (specs[id].first == tick)
        std::memset(allocator.data(id), static_cast<int>(id), specs[id].bytes);
    }
    for (uint32_t id = 0; id < specs.size(); ++id) {
      if (specs[id].first > tick || tick > specs[id].last) continue;
      const uint8_t* data = allocator.data(id);
      EXPECT_EQ(data, arena + planner.offset(id));
      for (uint64_t i = 0; i < specs[id].bytes; ++i) {
        ASSERT_EQ(data[i], static_cast<uint8_t>(id)) << "buffer " << id << " tick " << tick;
      }
    }
  }
}

TEST(PlannedArena, RefusesUnplannedSmallOrMisalignedArenas) {
  GreedyArenaPlanner planner;
  ASSERT_TRUE(planner.AddBuffer(100, 0, 1).ok());
  alignas(16) static uint8_t arena[256];
  PlannedArena allocator;
  EXPECT_EQ(allocator.Bind(planner, arena, sizeof(arena)).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(planner.Plan().ok());
  EXPECT_EQ(allocator.Bind(planner, nullptr, sizeof(arena)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(allocator.Bind(planner, arena + 8, 200).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(allocator.Bind(planner, arena, 100).code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(allocator.data(0), nullptr);
  ASSERT_TRUE(allocator.Bind(planner, arena, 112).ok());
  EXPECT_EQ(allocator.data(0), arena);
}

}  // namespace
}  // namespace trainscope
