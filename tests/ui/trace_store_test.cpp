// SPDX-License-Identifier: Apache-2.0
#include "ui/session/session_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <map>
#include <thread>

#include "engine/model/opcodes.h"

namespace trainscope {
namespace {

MemoryEvent Alloc(uint32_t tick, int32_t tensor, MemoryCategory category, uint64_t bytes,
                  uint64_t offset = 0) {
  return MemoryEvent{tick, Phase::kForward, 0, tensor, category, bytes, offset, true};
}

MemoryEvent Free(uint32_t tick, int32_t tensor, MemoryCategory category, uint64_t bytes,
                 uint64_t offset = 0) {
  return MemoryEvent{tick, Phase::kBackward, 0, tensor, category, bytes, offset, false};
}

TEST(SessionStore, AppendsFromAnotherThreadAllArriveWhileTheGuiReads) {
  SessionStore store;
  constexpr int kBatches = 200;
  constexpr int kLossesPerBatch = 50;
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (int b = 0; b < kBatches; ++b) {
      EventBatch batch;
      for (int i = 0; i < kLossesPerBatch; ++i)
        batch.add(LossEvent{uint32_t(b), uint32_t(i), 1.0f});
      batch.add(GradientStatsEvent{uint32_t(b + 1), 0, 3, 0.5f, 0.1f, 0.0f, 0, 0, {}});
      store.append(batch);
    }
    done = true;
  });
  uint64_t last_count = 0;
  uint64_t last_generation = 0;
  while (!done) {
    std::shared_ptr<const SessionSnapshot> snapshot = store.snapshot();
    EXPECT_GE(snapshot->loss->sampleCount(), last_count);
    EXPECT_GE(snapshot->generation, last_generation);
    // A snapshot never shows half a batch.
    EXPECT_EQ(snapshot->loss->sampleCount() % kLossesPerBatch, 0u);
    last_count = snapshot->loss->sampleCount();
    last_generation = snapshot->generation;
  }
  producer.join();
  std::shared_ptr<const SessionSnapshot> final_snapshot = store.snapshot();
  EXPECT_EQ(final_snapshot->loss->sampleCount(), uint64_t{kBatches} * kLossesPerBatch);
  EXPECT_EQ(final_snapshot->generation, uint64_t{kBatches});
  EXPECT_EQ(final_snapshot->latest_gradient_step, uint32_t{kBatches});
}

TEST(SessionStore, SnapshotStaysUnchangedWhenTheStoreMovesOn) {
  SessionStore store;
  EventBatch first;
  first.add(SampleEvent{1, 1, 0, true});
  first.add(Alloc(0, 1, MemoryCategory::kInput, 64));
  first.add(LossEvent{1, 0, 0.5f});
  store.append(first);
  std::shared_ptr<const SessionSnapshot> before = store.snapshot();

  EventBatch second;
  second.add(Alloc(1, 2, MemoryCategory::kActivation, 128));
  second.add(LossEvent{1, 1, 0.25f});
  second.add(BackwardStepEvent{0, 3, op::kFullyConnected, true, TrainRank::kAll, false, true, 0});
  store.append(second);
  std::shared_ptr<const SessionSnapshot> after = store.snapshot();

  EXPECT_NE(before, after);
  EXPECT_LT(before->generation, after->generation);
  EXPECT_EQ(before->loss->sampleCount(), 1u);
  EXPECT_EQ(before->memory->events().size(), 1u);
  EXPECT_EQ(before->memory->currentBytes(), 64u);
  EXPECT_FALSE(before->progress.has_backward_step);
  EXPECT_EQ(after->loss->sampleCount(), 2u);
  EXPECT_EQ(after->memory->currentBytes(), 192u);
  EXPECT_TRUE(after->progress.has_backward_step);
}

TEST(SessionStore, SnapshotIsSharedUntilSomethingIsAppended) {
  SessionStore store;
  EXPECT_EQ(store.snapshot(), store.snapshot());
  EventBatch empty;
  store.append(empty);
  const uint64_t generation = store.generation();
  EXPECT_EQ(generation, 0u);  // an empty batch changes nothing
  std::shared_ptr<const SessionSnapshot> a = store.snapshot();
  EventBatch batch;
  batch.add(LossEvent{1, 0, 1.0f});
  store.append(batch);
  EXPECT_NE(a, store.snapshot());
}

TEST(SessionStore, LiveBytesPerCategoryFollowAllocationsAndFrees) {
  SessionStore store;
  EventBatch batch;
  batch.add(SampleEvent{1, 1, 0, true});
  batch.add(Alloc(0, 0, MemoryCategory::kInput, 100));
  batch.add(Alloc(1, 1, MemoryCategory::kActivationKept, 400, 112));
  batch.add(Alloc(2, 1, MemoryCategory::kActivationGradient, 400, 512));
  batch.add(Free(2, 1, MemoryCategory::kActivationKept, 400, 112));
  batch.add(Free(3, 1, MemoryCategory::kActivationGradient, 400, 512));
  store.append(batch);
  std::shared_ptr<const SessionSnapshot> snapshot = store.snapshot();
  const LiveMemoryTimeline& memory = *snapshot->memory;
  ASSERT_EQ(memory.ticks().size(), 4u);
  // Hand-computed: tick 1 holds 100 + 400; tick 2 peaks at 900 before the free, ends at 500.
  EXPECT_EQ(memory.ticks()[1].total(), 500u);
  EXPECT_EQ(memory.ticks()[2].highWaterTotal(), 900u);
  EXPECT_EQ(memory.ticks()[2].total(), 500u);
  EXPECT_EQ(memory.ticks()[2].live[size_t(MemoryCategory::kActivationGradient)], 400u);
  EXPECT_EQ(memory.ticks()[3].total(), 100u);
  EXPECT_EQ(memory.peakBytes(), 900u);
  EXPECT_EQ(snapshot->peakBytes(), 900u);
  EXPECT_EQ(snapshot->currentBytes(), 100u);
  EXPECT_EQ(memory.arenaExtent(), 912u);
  ASSERT_EQ(memory.buffers().size(), 3u);
  EXPECT_EQ(memory.buffers()[1].alloc_tick, 1u);
  EXPECT_EQ(memory.buffers()[1].free_tick, 2u);
  EXPECT_EQ(memory.buffers()[0].free_tick, kOpenLifetime);
}

TEST(SessionStore, EngineSummariesOverrideTheComputedBytes) {
  SessionStore store;
  EventBatch batch;
  batch.add(Alloc(0, 0, MemoryCategory::kInput, 100));
  batch.add(MemorySummaryEvent{0, Phase::kForward, 0, 4000, 5000});
  store.append(batch);
  EXPECT_EQ(store.snapshot()->currentBytes(), 4000u);
  EXPECT_EQ(store.snapshot()->peakBytes(), 5000u);
}

// A batch of three: sample 0 runs ticks 0-2, samples 1 and 2 both run ticks 3-4 (the plan's
// "every later sample"), then the optimizer tick 5. The picture spans the optimizer step: the
// accumulated gradient (from sample 0) and Adam's state (from tick 0) stay stacked while later
// samples rewind to tick 3, and each tick is drawn once.
TEST(SessionStore, ALaterSampleOfABatchRewindsToItsTicksAndKeepsWhatIsLive) {
  SessionStore store;
  EventBatch batch;
  batch.add(SampleEvent{1, 1, 0, true});
  batch.add(Alloc(0, 9, MemoryCategory::kOptimizerState, 40));
  batch.add(Alloc(0, 0, MemoryCategory::kInput, 100));
  batch.add(Alloc(2, 5, MemoryCategory::kWeightGradient, 20));
  batch.add(Free(2, 0, MemoryCategory::kInput, 100));
  for (uint32_t sample = 1; sample < 3; ++sample) {
    batch.add(SampleEvent{1, 1, sample, true});
    batch.add(Alloc(3, 0, MemoryCategory::kInput, 100));
    batch.add(Alloc(4, 5, MemoryCategory::kWeightGradient, 20));
    batch.add(Free(4, 0, MemoryCategory::kInput, 100));
    batch.add(Free(4, 5, MemoryCategory::kWeightGradient, 20));
  }
  batch.add(Free(5, 5, MemoryCategory::kWeightGradient, 20));
  batch.add(Free(5, 9, MemoryCategory::kOptimizerState, 40));
  store.append(batch);
  const auto snapshot = store.snapshot();
  const std::vector<TickSample>& ticks = snapshot->memory->ticks();
  std::vector<uint32_t> numbers;
  for (const TickSample& tick : ticks) numbers.push_back(tick.tick);
  EXPECT_EQ(numbers, (std::vector<uint32_t>{0, 2, 3, 4, 5}));
  // Tick 4 of the last sample: its input and its gradient beside the accumulated gradient and
  // the optimizer state.
  EXPECT_EQ(ticks[3].highWaterTotal(), 100u + 20u + 20u + 40u);
  EXPECT_EQ(snapshot->memory->peakBytes(), 180u);
  EXPECT_EQ(snapshot->memory->currentBytes(), 0u);
  EXPECT_EQ(snapshot->memory->unmatchedFrees(), 0u);
}

// The previous step's peak belongs to the session: a new session starts without one.
TEST(SessionStore, ClearingForANewSessionForgetsThePreviousStepPeak) {
  SessionStore store;
  EventBatch batch;
  batch.add(Alloc(0, 0, MemoryCategory::kInput, 300));
  batch.add(Free(1, 0, MemoryCategory::kInput, 300));
  batch.add(Alloc(0, 0, MemoryCategory::kInput, 300));
  store.append(batch);
  EXPECT_EQ(store.snapshot()->previous_step_peak_bytes, 300u);
  store.clear();
  EXPECT_EQ(store.snapshot()->previous_step_peak_bytes, 0u);
  EXPECT_EQ(store.snapshot()->peakBytes(), 0u);
}

TEST(SessionStore, ANewSampleStartsANewTimelineAndRemembersThePreviousPeak) {
  SessionStore store;
  EventBatch batch;
  batch.add(SampleEvent{1, 1, 0, true});
  batch.add(Alloc(0, 0, MemoryCategory::kInput, 300));
  batch.add(Free(1, 0, MemoryCategory::kInput, 300));
  batch.add(SampleEvent{1, 1, 0, false});
  batch.add(SampleEvent{1, 1, 1, true});
  batch.add(Alloc(0, 0, MemoryCategory::kInput, 50));
  store.append(batch);
  std::shared_ptr<const SessionSnapshot> snapshot = store.snapshot();
  EXPECT_EQ(snapshot->memory->events().size(), 1u);
  EXPECT_EQ(snapshot->previous_step_peak_bytes, 300u);
  EXPECT_EQ(snapshot->run_peak_bytes, 300u);
  EXPECT_EQ(snapshot->progress.sample, 1u);
}

TEST(SessionStore, TicksRunningBackwardsAlsoStartANewTimeline) {
  SessionStore store;
  EventBatch batch;
  batch.add(Alloc(0, 0, MemoryCategory::kInput, 300));
  batch.add(Alloc(5, 1, MemoryCategory::kActivation, 10));
  batch.add(Alloc(0, 0, MemoryCategory::kInput, 20));
  store.append(batch);
  EXPECT_EQ(store.snapshot()->memory->currentBytes(), 20u);
}

TEST(SessionStore, BackwardProgressTracksTheCurrentAndFinishedOps) {
  SessionStore store;
  EventBatch batch;
  batch.add(SampleEvent{2, 7, 1, true});
  batch.add(ForwardOpEvent{0, op::kFullyConnected, 10});
  batch.add(ForwardOpEvent{1, op::kRelu, 10});
  batch.add(ForwardOpEvent{2, op::kFullyConnected, 10});
  for (uint32_t i = 0; i < 2; ++i) {
    const uint32_t k = 2 - i;
    batch.add(BackwardStepEvent{i, k, 0, k == 2, TrainRank::kOnlyBias, false, true, 0});
    batch.add(BackwardStepEvent{i, k, 0, k == 2, TrainRank::kOnlyBias, false, false, 99});
  }
  batch.add(BackwardStepEvent{2, 0, op::kFullyConnected, true, TrainRank::kAll, true, true, 0});
  store.append(batch);
  std::shared_ptr<const SessionSnapshot> snapshot = store.snapshot();
  const BackwardProgress& progress = snapshot->progress;
  EXPECT_EQ(progress.epoch, 2u);
  EXPECT_EQ(progress.optimizer_step, 7u);
  EXPECT_EQ(progress.forward_ops_done, 3u);
  EXPECT_EQ(progress.phase, Phase::kBackward);
  EXPECT_TRUE(progress.backward_step_running);
  EXPECT_EQ(progress.backward_step, 2u);
  EXPECT_EQ(progress.op_index, 0u);
  EXPECT_EQ(progress.done_ops, (std::vector<uint32_t>{2, 1}));
  ASSERT_EQ(snapshot->ops.size(), 3u);
  EXPECT_TRUE(snapshot->ops[2].trainable);
  EXPECT_EQ(snapshot->ops[2].rank, TrainRank::kOnlyBias);
  EXPECT_EQ(snapshot->ops[2].backward_ns, 99u);
  EXPECT_TRUE(snapshot->ops[0].is_last_layer);

  // The next sample's picture starts with its first op, not with its begin: a sample reported
  // without per-op detail leaves this one on screen.
  EventBatch next_sample;
  next_sample.add(SampleEvent{2, 7, 2, true});
  store.append(next_sample);
  EXPECT_EQ(store.snapshot()->progress.sample, 2u);
  EXPECT_EQ(store.snapshot()->progress.done_ops, (std::vector<uint32_t>{2, 1}));
  EventBatch first_op;
  first_op.add(ForwardOpEvent{0, op::kFullyConnected, 10});
  store.append(first_op);
  EXPECT_TRUE(store.snapshot()->progress.done_ops.empty());
  EXPECT_EQ(store.snapshot()->progress.forward_ops_done, 1u);
}

// Steps at full speed come with or without their per-op detail (the local engine's DetailBudget,
// a thinned recording): the memory picture and the op progress stay those of the last step that
// had them, and op events alone (detail turned on half way through a step) do not blank memory.
TEST(SessionStore, AStepWithoutDetailKeepsTheLastDetailedPicture) {
  SessionStore store;
  EventBatch detailed;
  detailed.add(SampleEvent{1, 1, 0, true});
  detailed.add(Alloc(0, 0, MemoryCategory::kInput, 300));
  detailed.add(BackwardStepEvent{0, 1, op::kFullyConnected, true, TrainRank::kAll, false, true, 0});
  detailed.add(
      BackwardStepEvent{0, 1, op::kFullyConnected, true, TrainRank::kAll, false, false, 5});
  detailed.add(Free(1, 0, MemoryCategory::kInput, 300));
  detailed.add(SampleEvent{1, 1, 0, false});
  detailed.add(OptimizerStepEvent{1, 1, 1});
  store.append(detailed);
  ASSERT_EQ(store.snapshot()->memory->peakBytes(), 300u);

  EventBatch plain;  // step 2: markers, loss and update only
  plain.add(SampleEvent{1, 2, 0, true});
  plain.add(LossEvent{2, 0, 0.5f});
  plain.add(SampleEvent{1, 2, 0, false});
  plain.add(OptimizerStepEvent{1, 2, 1});
  store.append(plain);
  std::shared_ptr<const SessionSnapshot> snapshot = store.snapshot();
  EXPECT_EQ(snapshot->progress.last_optimizer_step, 2u);
  EXPECT_EQ(snapshot->memory->peakBytes(), 300u);
  EXPECT_EQ(snapshot->memory->events().size(), 2u);
  EXPECT_EQ(snapshot->progress.done_ops, std::vector<uint32_t>{1});

  EventBatch ops_only;  // step 3: a pause turned the op events on half way
  ops_only.add(SampleEvent{1, 3, 0, true});
  ops_only.add(BackwardStepEvent{1, 0, op::kRelu, false, TrainRank::kAll, true, true, 0});
  ops_only.add(BackwardStepEvent{1, 0, op::kRelu, false, TrainRank::kAll, true, false, 7});
  store.append(ops_only);
  snapshot = store.snapshot();
  EXPECT_EQ(snapshot->progress.done_ops, std::vector<uint32_t>{0});
  EXPECT_EQ(snapshot->memory->peakBytes(), 300u) << "op events alone leave the memory picture";

  EventBatch next_detailed;  // step 4: a new memory picture
  next_detailed.add(SampleEvent{1, 4, 0, true});
  next_detailed.add(Alloc(0, 0, MemoryCategory::kInput, 120));
  store.append(next_detailed);
  snapshot = store.snapshot();
  EXPECT_EQ(snapshot->memory->events().size(), 1u);
  EXPECT_EQ(snapshot->memory->currentBytes(), 120u);
  EXPECT_EQ(snapshot->previous_step_peak_bytes, 300u);
}

// A tensor is frozen when the latest finished step with statistics left it out, not when the
// latest step carried no statistics at all (a step without its per-op detail).
TEST(SessionStore, StepsWithoutStatisticsFreezeNoTensor) {
  SessionStore store;
  auto step = [&](uint32_t number, std::vector<int32_t> tensors_with_stats) {
    EventBatch batch;
    batch.add(SampleEvent{1, number, 0, true});
    for (int32_t tensor : tensors_with_stats) {
      GradientStatsEvent stats;
      stats.optimizer_step = number;
      stats.tensor = tensor;
      stats.op_index = static_cast<uint32_t>(tensor);
      stats.l2 = 1.0f;
      batch.add(stats);
    }
    batch.add(SampleEvent{1, number, 0, false});
    batch.add(OptimizerStepEvent{1, number, 1});
    store.append(batch);
  };
  auto frozen = [&] {
    std::map<int32_t, bool> by_tensor;
    for (const TensorGradient& t : store.snapshot()->tensors) by_tensor[t.tensor] = t.frozen;
    return by_tensor;
  };
  step(1, {3, 4});
  for (uint32_t plain = 2; plain <= 5; ++plain) step(plain, {});
  EXPECT_EQ(frozen(), (std::map<int32_t, bool>{{3, false}, {4, false}}));
  step(6, {4});  // tensor 3 frozen from step 6 on
  EXPECT_EQ(frozen(), (std::map<int32_t, bool>{{3, true}, {4, false}}));
  // Half way through a step, the tensors it has not reported yet are not frozen.
  EventBatch half;
  half.add(SampleEvent{1, 7, 0, true});
  GradientStatsEvent first;
  first.optimizer_step = 7;
  first.tensor = 4;
  half.add(first);
  store.append(half);
  EXPECT_EQ(frozen(), (std::map<int32_t, bool>{{3, true}, {4, false}}));
}

TEST(SessionStore, NanAndInfAreCountedAndLocated) {
  SessionStore store;
  EventBatch batch;
  for (uint32_t i = 0; i < 10; ++i) {
    batch.add(LossEvent{1, i, i == 4 ? std::nanf("") : 1.0f});
  }
  GradientStatsEvent bad{3, 1, 5, std::nanf(""), 1.0f, 0.0f, 4, 2, {}};
  batch.add(bad);
  bad.optimizer_step = 4;
  bad.nan_count = 1;
  bad.inf_count = 0;
  batch.add(bad);
  store.append(batch);
  std::shared_ptr<const SessionSnapshot> snapshot = store.snapshot();
  EXPECT_EQ(snapshot->loss->nanCount(), 1u);
  ASSERT_EQ(snapshot->loss->nonFinitePoints().size(), 1u);
  EXPECT_EQ(snapshot->loss->nonFinitePoints()[0].x, 5.0);  // the fifth sample
  EXPECT_EQ(snapshot->gradient_nan_total, 5u);
  EXPECT_EQ(snapshot->gradient_inf_total, 2u);
  const TensorGradient* tensor = snapshot->findTensor(5);
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(tensor->nan_total, 5u);
  EXPECT_EQ(tensor->stats.optimizer_step, 4u);
}

TEST(SessionStore, EverythingStaysWithinItsLimitsAndCountsWhatItDrops) {
  SessionStore::Limits limits;
  limits.series_points = 64;
  limits.gradient_columns = 8;
  limits.memory_events_per_step = 100;
  limits.messages = 5;
  limits.max_ops = 16;
  SessionStore store(limits);
  for (int round = 0; round < 50; ++round) {
    EventBatch batch;
    for (uint32_t i = 0; i < 1000; ++i) {
      const uint32_t tick = uint32_t(round) * 1000 + i;
      batch.add(LossEvent{tick, 0, float(i)});
      batch.add(Alloc(tick, int32_t(i), MemoryCategory::kActivation, 8));
    }
    batch.add(GradientStatsEvent{uint32_t(round + 1), 0, 1, 1.0f, 1.0f, 0.0f, 0, 0, {}});
    batch.add(StatusMessage{MessageLevel::kInfo, QStringLiteral("round %1").arg(round)});
    batch.add(BackwardStepEvent{0, 1000000, 0, false, TrainRank::kAll, false, false, 0});
    store.append(batch);
  }
  std::shared_ptr<const SessionSnapshot> snapshot = store.snapshot();
  EXPECT_LE(snapshot->loss->buckets().size(), 64u);
  EXPECT_EQ(snapshot->loss->sampleCount(), 50000u);
  EXPECT_LE(snapshot->gradients->columns().size(), 8u);
  EXPECT_LE(snapshot->memory->events().size(), 100u);
  EXPECT_LE(snapshot->memory->ticks().size(), 100u);
  EXPECT_EQ(snapshot->memory->droppedEvents(), 50000u - 100u);
  EXPECT_EQ(snapshot->memory->currentBytes(), 50000u * 8u);  // accounting stays exact
  ASSERT_EQ(snapshot->messages->size(), 5u);
  EXPECT_EQ(snapshot->messages->back().text, QStringLiteral("round 49"));
  EXPECT_EQ(snapshot->messages_dropped, 45u);
  EXPECT_TRUE(snapshot->ops.empty());  // op 1000000 is beyond max_ops
}

TEST(SessionStore, BatchesWithoutOrderApplyKindByKind) {
  SessionStore store;
  EventBatch batch;
  batch.samples.push_back(SampleEvent{1, 1, 0, true});
  batch.memory.push_back(Alloc(0, 0, MemoryCategory::kInput, 10));
  batch.losses.push_back(LossEvent{1, 0, 2.0f});
  store.append(batch);
  std::shared_ptr<const SessionSnapshot> snapshot = store.snapshot();
  EXPECT_EQ(snapshot->memory->currentBytes(), 10u);
  EXPECT_EQ(snapshot->loss->sampleCount(), 1u);
  EXPECT_TRUE(snapshot->progress.in_sample);
}

TEST(SessionStore, OrderEntriesPointingNowhereAreIgnored) {
  SessionStore store;
  EventBatch batch;
  batch.add(LossEvent{1, 0, 2.0f});
  batch.order.push_back(EventRef{EventKind::kMemory, 12345});
  batch.order.push_back(EventRef{EventKind::kLoss, 7});
  store.append(batch);
  EXPECT_EQ(store.snapshot()->loss->sampleCount(), 1u);
  EXPECT_TRUE(store.snapshot()->memory->events().empty());
}

TEST(SessionStore, ClearStartsOverButKeepsTheGenerationGrowing) {
  SessionStore store;
  EventBatch batch;
  batch.add(LossEvent{1, 0, 2.0f});
  store.append(batch);
  const uint64_t generation = store.generation();
  store.clear();
  EXPECT_GT(store.generation(), generation);
  EXPECT_EQ(store.snapshot()->loss->sampleCount(), 0u);
}

}  // namespace
}  // namespace trainscope
