// SPDX-License-Identifier: Apache-2.0
//
// The optimised GreedyArenaPlanner must produce exactly the plan of the straightforward
// algorithm it replaced: same offsets for every buffer, same arena size, same strategy name.
// ReferencePlan below is that original algorithm, kept here as the oracle: for every buffer it
// collects the placed buffers overlapping in time, sorts them by offset and walks the gaps. Small
// plans walk a list and large ones ask an OccupancyTree, so the sets span both, up to the train
// steps of generated 200- and 500-operator chains; the tree is also held to the walk directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/memory/greedy_arena_planner.h"
#include "engine/memory/occupancy_tree.h"
#include "engine/memory/train_step_timeline.h"
#include "engine/model/model.h"
#include "tests/common/chain_model.h"

namespace trainscope {
namespace {

struct RefBuffer {
  uint64_t size;  // aligned
  uint32_t first_tick;
  uint32_t last_tick;
};

struct RefPlan {
  std::vector<uint64_t> offsets;
  uint64_t arena = 0;
  uint64_t lower_bound = 0;
  std::string strategy;
};

uint64_t RefPlaceInOrder(const std::vector<RefBuffer>& buffers, const std::vector<uint32_t>& order,
                         bool best_fit, std::vector<uint64_t>* offsets) {
  struct Placed {
    uint64_t offset;
    uint64_t size;
  };
  offsets->assign(buffers.size(), 0);
  std::vector<uint32_t> placed;
  std::vector<Placed> conflicts;
  uint64_t arena = 0;
  for (uint32_t id : order) {
    const RefBuffer& buffer = buffers[id];
    if (buffer.size == 0) continue;
    conflicts.clear();
    for (uint32_t other : placed) {
      const RefBuffer& o = buffers[other];
      if (o.first_tick <= buffer.last_tick && buffer.first_tick <= o.last_tick) {
        conflicts.push_back(Placed{(*offsets)[other], o.size});
      }
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
    uint64_t cursor = 0, chosen = 0, chosen_gap = 0;
    bool found = false;
    for (const Placed& c : conflicts) {
      if (c.offset >= cursor) {
        const uint64_t gap = c.offset - cursor;
        if (gap >= buffer.size && (!found || (best_fit && gap < chosen_gap))) {
          chosen = cursor;
          chosen_gap = gap;
          found = true;
          if (!best_fit) break;
        }
      }
      cursor = std::max(cursor, c.offset + c.size);
    }
    if (!found) chosen = cursor;
    (*offsets)[id] = chosen;
    arena = std::max(arena, chosen + buffer.size);
    placed.push_back(id);
  }
  return arena;
}

class RefXorShift {
 public:
  uint32_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return static_cast<uint32_t>(state_ >> 32);
  }
  uint32_t Below(uint32_t bound) { return bound == 0 ? 0 : Next() % bound; }

 private:
  uint64_t state_ = 0x9e3779b97f4a7c15ull;
};

RefPlan ReferencePlan(const std::vector<RefBuffer>& buffers) {
  RefPlan plan;
  const uint32_t m = static_cast<uint32_t>(buffers.size());
  uint32_t ticks = 0;
  for (const RefBuffer& b : buffers) ticks = std::max(ticks, b.last_tick + 1);
  std::vector<uint64_t> live(ticks, 0);
  for (const RefBuffer& b : buffers) {
    for (uint32_t t = b.first_tick; t <= b.last_tick; ++t) live[t] += b.size;
  }
  plan.lower_bound = live.empty() ? 0 : *std::max_element(live.begin(), live.end());
  std::vector<uint64_t> pressure(m, 0);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t t = buffers[i].first_tick; t <= buffers[i].last_tick; ++t) {
      pressure[i] = std::max(pressure[i], live[t]);
    }
  }
  auto length = [&](uint32_t i) {
    return static_cast<uint64_t>(buffers[i].last_tick - buffers[i].first_tick) + 1;
  };
  using Less = std::function<bool(uint32_t, uint32_t)>;
  const std::pair<const char*, Less> orderings[] = {
      {"size",
       [&](uint32_t a, uint32_t b) {
         return std::make_tuple(buffers[b].size, buffers[a].first_tick, a) <
                std::make_tuple(buffers[a].size, buffers[b].first_tick, b);
       }},
      {"pressure",
       [&](uint32_t a, uint32_t b) {
         return std::make_tuple(pressure[b], buffers[b].size, a) <
                std::make_tuple(pressure[a], buffers[a].size, b);
       }},
      {"area",
       [&](uint32_t a, uint32_t b) {
         return std::make_tuple(buffers[b].size * length(b), a) <
                std::make_tuple(buffers[a].size * length(a), b);
       }},
      {"lifetime",
       [&](uint32_t a, uint32_t b) {
         return std::make_tuple(length(b), buffers[b].size, a) <
                std::make_tuple(length(a), buffers[a].size, b);
       }},
      {"start",
       [&](uint32_t a, uint32_t b) {
         return std::make_tuple(buffers[a].first_tick, buffers[b].size, a) <
                std::make_tuple(buffers[b].first_tick, buffers[a].size, b);
       }},
  };
  std::vector<uint32_t> identity(m);
  for (uint32_t i = 0; i < m; ++i) identity[i] = i;
  std::vector<uint32_t> best_order;
  bool best_fit_mode = true;
  uint64_t best = 0;
  std::vector<uint64_t> offsets, best_offsets;
  bool first_try = true;
  for (const auto& ordering : orderings) {
    std::vector<uint32_t> order = identity;
    std::stable_sort(order.begin(), order.end(), ordering.second);
    for (bool best_fit : {true, false}) {
      const uint64_t arena = RefPlaceInOrder(buffers, order, best_fit, &offsets);
      if (first_try || arena < best) {
        first_try = false;
        best = arena;
        best_order = order;
        best_fit_mode = best_fit;
        best_offsets = offsets;
        plan.strategy = std::string(ordering.first) + (best_fit ? "/best-fit" : "/first-fit");
      }
    }
  }
  RefXorShift random;
  bool improved = false;
  std::vector<uint32_t> order = best_order;
  uint64_t current = best;
  for (uint32_t iteration = 0; iteration < 256 && best > plan.lower_bound && m > 1; ++iteration) {
    const uint32_t a = random.Below(m);
    const uint32_t b = random.Below(m);
    if (a == b) continue;
    std::swap(order[a], order[b]);
    const uint64_t arena = RefPlaceInOrder(buffers, order, best_fit_mode, &offsets);
    if (arena <= current) {
      current = arena;
      if (arena < best) {
        best = arena;
        best_offsets = offsets;
        improved = true;
      }
    } else {
      std::swap(order[a], order[b]);
    }
  }
  if (improved) plan.strategy += "+search";
  plan.offsets = std::move(best_offsets);
  plan.arena = best;
  return plan;
}

// Sizes from a small menu (so many ties in size, area and pressure), zero-byte buffers, and
// lifetimes that often share start and end ticks.
struct Shape {
  uint32_t buffers;
  uint32_t ticks;
  uint32_t max_length;
  bool few_sizes;
};

std::vector<RefBuffer> RandomBuffers(const Shape& shape, std::mt19937* random) {
  static const uint64_t kMenu[] = {0, 16, 32, 48, 64, 128, 256, 1024};
  std::vector<RefBuffer> buffers(shape.buffers);
  for (RefBuffer& b : buffers) {
    const uint64_t raw = shape.few_sizes ? kMenu[(*random)() % 8] : (*random)() % 5000;
    b.size = (raw + 15) / 16 * 16;
    b.first_tick = static_cast<uint32_t>((*random)() % shape.ticks);
    b.last_tick = b.first_tick + static_cast<uint32_t>((*random)() % shape.max_length);
  }
  return buffers;
}

// Returns the reference strategy, so callers can see which paths were exercised.
std::string ExpectSamePlan(const std::vector<RefBuffer>& buffers, const std::string& label) {
  // The planner aligns sizes itself; feed it unaligned byte counts that round to the same size.
  GreedyArenaPlanner planner;
  for (const RefBuffer& b : buffers) {
    const uint64_t bytes = b.size == 0 ? 0 : b.size - (b.first_tick % 16);
    EXPECT_TRUE(planner.AddBuffer(bytes, b.first_tick, b.last_tick).ok());
  }
  EXPECT_TRUE(planner.Plan().ok());
  const RefPlan expected = ReferencePlan(buffers);
  EXPECT_EQ(planner.arena_bytes(), expected.arena) << label;
  EXPECT_EQ(planner.lower_bound_bytes(), expected.lower_bound) << label;
  EXPECT_EQ(planner.strategy(), expected.strategy) << label;
  uint32_t mismatches = 0;
  for (uint32_t i = 0; i < buffers.size() && mismatches < 5; ++i) {
    if (planner.offset(i) == expected.offsets[i]) continue;
    ++mismatches;
    ADD_FAILURE() << label << ", buffer " << i << ": offset " << planner.offset(i) << ", reference "
                  << expected.offsets[i];
  }
  return expected.strategy;
}

TEST(GreedyArenaPlannerEquivalence, SmallRandomSetsPlanExactlyLikeTheReference) {
  std::mt19937 random(7);
  int searched = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Shape shape{10 + static_cast<uint32_t>(random() % 90),
                      4 + static_cast<uint32_t>(random() % 60),
                      1 + static_cast<uint32_t>(random() % 20), trial % 2 == 0};
    const std::vector<RefBuffer> buffers = RandomBuffers(shape, &random);
    const std::string strategy = ExpectSamePlan(buffers, "trial " + std::to_string(trial));
    if (HasFailure()) return;
    if (strategy.find("+search") != std::string::npos) ++searched;
  }
  // The local search path must be exercised too, not only the greedy orders.
  EXPECT_GT(searched, 10);
}

// 2000-buffer sets with the search would take the reference seconds; 1000 covers that path.
TEST(GreedyArenaPlannerEquivalence, LargeRandomSetsPlanExactlyLikeTheReference) {
  std::mt19937 random(11);
  const Shape shapes[] = {
      {300, 600, 40, false},
      {600, 100, 60, true},
      {1000, 2000, 16, false},
      {2000, 4000, 8, false},
      {2000, 4000, 8, true},
      // Sparse ticks: the tree renumbers the few that matter.
      {520, 200000, 5000, false},
  };
  bool searched = false;
  for (const Shape& shape : shapes) {
    const std::string strategy =
        ExpectSamePlan(RandomBuffers(shape, &random), std::to_string(shape.buffers) + " buffers");
    if (HasFailure()) return;
    searched = searched || strategy.find("+search") != std::string::npos;
  }
  EXPECT_TRUE(searched);
}

TEST(GreedyArenaPlannerEquivalence, TrainStepShapedLifetimesPlanExactlyLikeTheReference) {
  // Forward activations live until their backward op; gradients and temporaries are short.
  std::vector<RefBuffer> buffers;
  const uint32_t ops = 300;
  for (uint32_t op = 0; op < ops; ++op) {
    buffers.push_back(RefBuffer{128, op, 2 * ops - op});
    buffers.push_back(RefBuffer{128, 2 * ops - op, 2 * ops - op + 1});
    buffers.push_back(RefBuffer{op % 3 == 0 ? 4096u : 0u, 2 * ops - op, 2 * ops - op});
    buffers.push_back(RefBuffer{(op % 7 + 1) * 64u, op, op + 1});
  }
  ExpectSamePlan(buffers, "train step");
}

TEST(GreedyArenaPlannerEquivalence, IdenticalBuffersPlanExactlyLikeTheReference) {
  // All ties: same size, same lifetime, so only the ids break them.
  ExpectSamePlan(std::vector<RefBuffer>(50, RefBuffer{64, 3, 9}), "identical");
  std::vector<RefBuffer> staircase;
  for (uint32_t i = 0; i < 64; ++i)
    staircase.push_back(RefBuffer{16u * (i % 4 + 1), i / 2, i / 2 + 3});
  ExpectSamePlan(staircase, "staircase");
  ExpectSamePlan({}, "empty");
  ExpectSamePlan({RefBuffer{0, 0, 0}}, "one empty buffer");
}

// The buffers of a generated chain's train step (as the Trainer plans it): tens of thousands of
// buffers, long-lived activations and Adam state beside short gradients and scratch.
std::vector<RefBuffer> ChainTrainStep(int blocks, OptimizerKind optimizer, uint32_t batch) {
  std::vector<uint8_t> bytes;
  Model model;
  EXPECT_TRUE(testing::FcReluChainBytes(blocks, &bytes).ok());
  EXPECT_TRUE(Model::FromBytes(std::move(bytes), &model).ok());
  const Subgraph& sg = model.graph().main();
  TrainStepOptions options;
  options.optimizer = optimizer;
  options.batch_size = batch;
  MemoryTimeline timeline;
  EXPECT_TRUE(
      BuildTrainStepTimeline(sg, SelectBackwardRange(sg, TrainabilityConfig{}), options, &timeline)
          .ok());
  std::vector<RefBuffer> buffers;
  for (const TimelineBuffer& b : timeline.buffers) {
    buffers.push_back(RefBuffer{(b.bytes + 15) / 16 * 16, b.first_tick, b.last_tick});
  }
  return buffers;
}

TEST(GreedyArenaPlannerEquivalence, GeneratedChainTrainStepsPlanExactlyLikeTheReference) {
  // Sizes that keep the reference (quadratic, with a sort per buffer) quick in a sanitizer build.
  const std::vector<RefBuffer> adam = ChainTrainStep(100, OptimizerKind::kAdam, 4);
  ASSERT_GT(adam.size(), 1500u);
  ExpectSamePlan(adam, "200 operators, Adam, batch 4");
  const std::vector<RefBuffer> sgd = ChainTrainStep(250, OptimizerKind::kSgd, 1);
  ASSERT_GT(sgd.size(), 1000u);
  ExpectSamePlan(sgd, "500 operators, SGD, batch 1");
}

// Random placements straight into the tree against the walk over the same placed buffers: many
// gaps of every size (no packing order), both fits, lifetimes from one tick to all of them.
TEST(OccupancyTree, FindsTheGapsOfAWalkOverTheOverlappingBuffers) {
  std::mt19937 random(23);
  OccupancyTree tree;
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t ticks = 1 + static_cast<uint32_t>(random() % 200);
    tree.Reset(ticks);
    std::vector<RefBuffer> placed;
    std::vector<uint64_t> offsets;
    for (int i = 0; i < 300; ++i) {
      RefBuffer b;
      b.size = 16 * (1 + random() % 12);
      b.first_tick = static_cast<uint32_t>(random() % ticks);
      b.last_tick = b.first_tick + static_cast<uint32_t>(random() % (ticks - b.first_tick));
      const bool best_fit = random() % 2 == 0;
      // The oracle: RefPlaceInOrder's walk over the placed buffers that meet this one.
      std::vector<std::pair<uint64_t, uint64_t>> conflicts;
      for (size_t j = 0; j < placed.size(); ++j) {
        if (placed[j].first_tick <= b.last_tick && b.first_tick <= placed[j].last_tick) {
          conflicts.emplace_back(offsets[j], offsets[j] + placed[j].size);
        }
      }
      std::sort(conflicts.begin(), conflicts.end());
      uint64_t cursor = 0, want = 0, want_gap = 0;
      bool found = false;
      for (const auto& c : conflicts) {
        if (c.first >= cursor) {
          const uint64_t gap = c.first - cursor;
          if (gap >= b.size && (!found || (best_fit && gap < want_gap))) {
            want = cursor;
            want_gap = gap;
            found = true;
            if (!best_fit) break;
          }
        }
        cursor = std::max(cursor, c.second);
      }
      if (!found) want = cursor;
      // Place it at the gap, or (every third buffer) near the cursor, over others or not: the
      // gaps stay the complement of what the buffers take, which both must see alike.
      const uint64_t got = tree.FindGap(b.first_tick, b.last_tick, b.size, best_fit);
      ASSERT_EQ(got, want) << "trial " << trial << ", buffer " << i;
      const uint64_t offset = i % 3 == 0 ? cursor + 16 * (random() % 4) : got;
      tree.Add(b.first_tick, b.last_tick, offset, offset + b.size);
      placed.push_back(b);
      offsets.push_back(offset);
    }
  }
}

}  // namespace
}  // namespace trainscope
