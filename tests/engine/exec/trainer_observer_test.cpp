// SPDX-License-Identifier: Apache-2.0
//
// Observing training must not change it: the weights come out bit for bit the same with every
// event on, with some, and with no observer; and events an observer leaves out of
// wanted_events() are not produced.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "engine/core/clock.h"
#include "engine/exec/trainer.h"
#include "tests/engine/exec/test_models.h"

namespace trainscope {
namespace {

class CountingObserver : public TrainingObserver {
 public:
  explicit CountingObserver(uint32_t wanted) : wanted_(wanted) {}
  uint32_t wanted_events() const override { return wanted_; }
  void OnSample(const SampleEvent&) override { ++samples; }
  void OnOptimizerStep(const OptimizerStepEvent&) override { ++optimizer_steps; }
  void OnForwardOp(const ForwardOpEvent&) override { ++forward_ops; }
  void OnBackwardStep(const BackwardStepEvent&) override { ++backward_steps; }
  void OnMemory(const MemoryEvent&) override { ++memory; }
  void OnMemorySummary(const MemorySummaryEvent&) override { ++summaries; }
  void OnGradientStats(const GradientStatsEvent&) override { ++gradient_stats; }
  void OnUpdateRatio(const UpdateRatioEvent&) override { ++update_ratios; }
  void OnLoss(const LossEvent&) override { ++losses; }
  int samples = 0, optimizer_steps = 0, forward_ops = 0, backward_steps = 0, memory = 0,
      summaries = 0, gradient_stats = 0, update_ratios = 0, losses = 0;

 private:
  uint32_t wanted_;
};

// Adam, sparse cross-entropy, batch 2: the ConvNet's training in these tests.
TrainingOptions ConvNetOptions() {
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.loss = LossKind::kSparseCrossEntropy;
  options.batch_size = 2;
  return options;
}

// Trains the ConvNet for three Adam steps of batch 2 and returns every trained parameter.
std::vector<std::vector<float>> TrainConvNet(TrainingObserver* observer) {
  Model model = testing::ConvNet();
  Trainer trainer;
  EXPECT_TRUE(trainer.Init(&model, ConvNetOptions(), TrainabilityConfig()).ok());
  trainer.set_observer(observer);
  const DataSet data = testing::ConvNetData(6);
  EXPECT_TRUE(trainer.TrainEpoch(data).ok());
  std::vector<std::vector<float>> parameters;
  for (const ParameterGradient& p : trainer.parameters()) {
    const float* values = trainer.parameter_data(p.tensor);
    parameters.emplace_back(values,
                            values + model.graph().main().tensors[p.tensor].element_count());
  }
  return parameters;
}

bool BitIdentical(const std::vector<std::vector<float>>& a,
                  const std::vector<std::vector<float>>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size() != b[i].size() ||
        std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(float)) != 0) {
      return false;
    }
  }
  return true;
}

TEST(TrainerObserver, WeightsAreBitIdenticalWithAllSomeOrNoEvents) {
  const auto unobserved = TrainConvNet(nullptr);
  ASSERT_FALSE(unobserved.empty());
  CountingObserver all(kAllEvents);
  EXPECT_TRUE(BitIdentical(TrainConvNet(&all), unobserved));
  EXPECT_GT(all.gradient_stats, 0);
  EXPECT_GT(all.update_ratios, 0);
  CountingObserver losses_only(kEventLoss);
  EXPECT_TRUE(BitIdentical(TrainConvNet(&losses_only), unobserved));
  // And the training really moved the weights, so the comparison means something.
  EXPECT_FALSE(BitIdentical(TrainConvNet(nullptr), [] {
    Model model = testing::ConvNet();
    Trainer trainer;
    TrainingOptions options;
    options.loss = LossKind::kSparseCrossEntropy;
    EXPECT_TRUE(trainer.Init(&model, options, TrainabilityConfig()).ok());
    std::vector<std::vector<float>> initial;
    for (const ParameterGradient& p : trainer.parameters()) {
      const float* values = trainer.parameter_data(p.tensor);
      initial.emplace_back(values, values + model.graph().main().tensors[p.tensor].element_count());
    }
    return initial;
  }()));
}

TEST(TrainerObserver, OnlyTheWantedEventsAreProduced) {
  CountingObserver all(kAllEvents);
  TrainConvNet(&all);
  CountingObserver some(kEventLoss | kEventGradientStats | kEventMemorySummary);
  TrainConvNet(&some);
  EXPECT_EQ(some.losses, all.losses);
  EXPECT_EQ(some.gradient_stats, all.gradient_stats);
  EXPECT_EQ(some.summaries, all.summaries);
  EXPECT_GT(all.memory, 0);
  EXPECT_GT(all.forward_ops, 0);
  EXPECT_GT(all.backward_steps, 0);
  EXPECT_EQ(some.memory, 0);
  EXPECT_EQ(some.forward_ops, 0);
  EXPECT_EQ(some.backward_steps, 0);
  EXPECT_EQ(some.update_ratios, 0);
  EXPECT_EQ(some.samples, 0);
  EXPECT_EQ(some.optimizer_steps, 0);
  EXPECT_EQ(all.optimizer_steps, 3);  // 6 samples, batch 2
}

// Wants every event, but the per-op detail only of the steps `detailed` says; counts each
// kind of event per optimizer step.
class StepDetailObserver : public CountingObserver {
 public:
  explicit StepDetailObserver(std::vector<bool> detailed)
      : CountingObserver(kAllEvents), detailed_(std::move(detailed)) {}
  uint32_t StepDetail(uint32_t optimizer_step) override {
    asked.push_back(optimizer_step);
    const bool detailed = optimizer_step - 1 < detailed_.size() && detailed_[optimizer_step - 1];
    return detailed ? kDetailEvents : partial;
  }
  uint32_t partial = 0;  // the detail of the other steps
  void OnOptimizerStep(const OptimizerStepEvent& event) override {
    CountingObserver::OnOptimizerStep(event);
    per_step.push_back(*this);  // the counts so far, as a plain CountingObserver copy
  }
  std::vector<uint32_t> asked;
  std::vector<CountingObserver> per_step;

 private:
  std::vector<bool> detailed_;
};

int DetailEventCount(const CountingObserver& c) {
  return c.forward_ops + c.backward_steps + c.memory + c.summaries + c.gradient_stats +
         c.update_ratios;
}

TEST(TrainerObserver, AStepWithoutDetailReportsItsSamplesLossesAndUpdateOnly) {
  CountingObserver all(kAllEvents);
  const auto unobserved = TrainConvNet(nullptr);
  EXPECT_TRUE(BitIdentical(TrainConvNet(&all), unobserved));
  StepDetailObserver middle_only({false, true, false});
  // Leaving detail out changes nothing in the training itself.
  EXPECT_TRUE(BitIdentical(TrainConvNet(&middle_only), unobserved));
  EXPECT_EQ(middle_only.asked, (std::vector<uint32_t>{1, 2, 3}));
  ASSERT_EQ(middle_only.per_step.size(), 3u);
  const CountingObserver& first = middle_only.per_step[0];
  const CountingObserver& second = middle_only.per_step[1];
  const CountingObserver& third = middle_only.per_step[2];
  // Steps 1 and 3: no detail, but both samples' markers and losses and the update.
  EXPECT_EQ(DetailEventCount(first), 0);
  EXPECT_EQ(first.samples, 4);  // begin and end of two samples
  EXPECT_EQ(first.losses, 2);
  EXPECT_EQ(DetailEventCount(third), DetailEventCount(second));
  // Step 2 carries exactly the detail one step of the fully observed run has.
  EXPECT_EQ(DetailEventCount(second) - DetailEventCount(first), DetailEventCount(all) / 3);
  EXPECT_EQ(second.gradient_stats, all.gradient_stats / 3);
  EXPECT_EQ(second.update_ratios, all.update_ratios / 3);
  EXPECT_EQ(second.memory, all.memory / 3);
  EXPECT_EQ(second.backward_steps, all.backward_steps / 3);
  EXPECT_GT(second.gradient_stats, 0);
  EXPECT_EQ(third.samples, all.samples);
  EXPECT_EQ(third.losses, all.losses);
  EXPECT_EQ(third.optimizer_steps, 3);
}

// A step can carry part of its detail: gradient statistics alone, as a breakpoint on gradients
// needs them, without the memory events, op events and update ratios.
TEST(TrainerObserver, AStepCanCarryOnlyPartOfItsDetail) {
  CountingObserver all(kAllEvents);
  TrainConvNet(&all);
  StepDetailObserver statistics_only({false, false, false});
  statistics_only.partial = kEventGradientStats;
  TrainConvNet(&statistics_only);
  EXPECT_EQ(statistics_only.gradient_stats, all.gradient_stats);
  EXPECT_GT(statistics_only.gradient_stats, 0);
  EXPECT_EQ(statistics_only.memory + statistics_only.summaries + statistics_only.forward_ops +
                statistics_only.backward_steps + statistics_only.update_ratios,
            0);
  EXPECT_EQ(statistics_only.losses, all.losses);
}

TEST(TrainerObserver, DetailIsNotAskedForWhenNoDetailEventIsWanted) {
  struct LossesOnly : StepDetailObserver {
    using StepDetailObserver::StepDetailObserver;
    uint32_t wanted_events() const override { return kEventLoss | kEventOptimizerStep; }
  } losses_only({true, true, true});
  TrainConvNet(&losses_only);
  EXPECT_TRUE(losses_only.asked.empty());
  EXPECT_EQ(losses_only.losses, 6);
}

// A gate that asks for the op events back from its `resume_at`-th call on.
class ResumingGate : public ExecutionGate {
 public:
  explicit ResumingGate(int resume_at) : resume_at_(resume_at) {}
  void BeforeBackwardStep(const BackwardStepEvent& event) override {
    ++calls;
    last_step = event.step;
  }
  bool ResumeOpEvents() override {
    ++asked;
    return resume && calls >= resume_at_;
  }
  bool resume = true;
  int calls = 0, asked = 0;
  uint32_t last_step = 0;

 private:
  int resume_at_;
};

TEST(TrainerObserver, AGateCanTurnTheOpEventsBackOnForTheRestOfAStepWithoutDetail) {
  Model model = testing::ConvNet();
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&model, ConvNetOptions(), TrainabilityConfig()).ok());
  const uint32_t ops = trainer.selection().num_train_layers;  // backward steps per sample
  ASSERT_GE(ops, 3u);
  StepDetailObserver observer({false, false});
  ResumingGate gate(3);  // from the third backward step of the first sample
  trainer.set_observer(&observer);
  trainer.set_gate(&gate);
  const DataSet data = testing::ConvNetData(4);
  ASSERT_TRUE(trainer.TrainStep(data, 0).ok());
  ASSERT_EQ(observer.per_step.size(), 1u);
  const CountingObserver first = observer.per_step[0];
  // The gate is asked while the op events are off, and not any more once they are back.
  EXPECT_EQ(gate.asked, 3);
  // Backward steps 2 .. ops-1 of sample 0 (begin and end), the second sample's forward pass and
  // all its backward steps.
  EXPECT_EQ(first.backward_steps, 2 * static_cast<int>(ops - 2 + ops));
  EXPECT_EQ(first.forward_ops, static_cast<int>(model.graph().main().operators.size()));
  EXPECT_EQ(first.memory + first.summaries + first.gradient_stats + first.update_ratios, 0);
  // The next step starts without detail again: a gate that does not ask gets no op events.
  gate.resume = false;
  ASSERT_TRUE(trainer.TrainStep(data, 2).ok());
  const CountingObserver second = observer.per_step[1];  // counts are cumulative
  EXPECT_EQ(second.backward_steps, first.backward_steps);
  EXPECT_EQ(second.forward_ops, first.forward_ops);
  EXPECT_EQ(gate.asked, 3 + 2 * static_cast<int>(ops));
}

class GradientStatsRecorder : public TrainingObserver {
 public:
  uint32_t wanted_events() const override { return kEventGradientStats | kEventOptimizerStep; }
  void OnGradientStats(const GradientStatsEvent& event) override { events.push_back(event); }
  void OnOptimizerStep(const OptimizerStepEvent&) override {
    stats_before_step.push_back(events.size());
  }
  std::vector<GradientStatsEvent> events;
  std::vector<size_t> stats_before_step;  // events received when each optimizer step ended
};

// With batch 4 the statistics describe the gradient the optimizer applies, the sum over the
// batch: one event per parameter per optimizer step, before that step's update. SGD's update is
// -lr * sum / batch, so the weights' change gives the sum back independently of the trainer's
// statistics.
TEST(TrainerObserver, GradientStatsDescribeTheBatchSumOncePerOptimizerStep) {
  Model model = testing::ConvNet();
  TrainingOptions options;
  options.optimizer = OptimizerKind::kSgd;
  options.loss = LossKind::kSparseCrossEntropy;
  options.learning_rate = 0.5f;
  options.batch_size = 4;
  Trainer trainer;
  ASSERT_TRUE(trainer.Init(&model, options, TrainabilityConfig()).ok());
  GradientStatsRecorder recorder;
  trainer.set_observer(&recorder);
  const Subgraph& sg = model.graph().main();
  std::map<int32_t, std::vector<float>> before;
  for (const ParameterGradient& p : trainer.parameters()) {
    const float* values = trainer.parameter_data(p.tensor);
    before[p.tensor].assign(values, values + sg.tensors[p.tensor].element_count());
  }
  const DataSet data = testing::ConvNetData(8);
  ASSERT_TRUE(trainer.TrainStep(data, 0).ok());
  ASSERT_EQ(recorder.events.size(), trainer.parameters().size());
  ASSERT_EQ(recorder.stats_before_step, std::vector<size_t>{recorder.events.size()});
  for (const GradientStatsEvent& event : recorder.events) {
    SCOPED_TRACE("tensor " + std::to_string(event.tensor));
    EXPECT_EQ(event.optimizer_step, 1u);
    const std::vector<float>& was = before.at(event.tensor);
    const float* now = trainer.parameter_data(event.tensor);
    double squares = 0.0, max_abs = 0.0;
    for (size_t i = 0; i < was.size(); ++i) {
      const double sum =
          (static_cast<double>(was[i]) - now[i]) * options.batch_size / options.learning_rate;
      squares += sum * sum;
      max_abs = std::max(max_abs, std::fabs(sum));
    }
    ASSERT_GT(squares, 0.0);
    // The weights' change is rounded to the weights' float steps: a few 1e-7 of |w| per element.
    EXPECT_NEAR(event.l2, std::sqrt(squares), 1e-3 * std::sqrt(squares) + 1e-5);
    EXPECT_NEAR(event.max_abs, max_abs, 1e-3 * max_abs + 1e-5);
  }
}

class DurationObserver : public TrainingObserver {
 public:
  uint32_t wanted_events() const override { return kEventForwardOp | kEventBackwardStep; }
  void OnForwardOp(const ForwardOpEvent& event) override { durations.push_back(event.duration_ns); }
  void OnBackwardStep(const BackwardStepEvent& event) override {
    if (!event.begin) durations.push_back(event.duration_ns);
  }
  std::vector<uint64_t> durations;
};

uint64_t g_fake_ns = 0;
uint64_t FakeNowNs() {
  g_fake_ns += 250;  // every reading: a quarter of a microsecond later
  return g_fake_ns;
}

TEST(TrainerObserver, DurationsComeFromTheInstalledClock) {
  // A board installs its timer; each op is then read twice, 250 ns apart.
  SetMonotonicClock(&FakeNowNs);
  DurationObserver board;
  TrainConvNet(&board);
  SetMonotonicClock(nullptr);
  ASSERT_FALSE(board.durations.empty());
  for (uint64_t duration : board.durations) EXPECT_EQ(duration, 250u);

  // The default clock is the host's again.
  DurationObserver host;
  TrainConvNet(&host);
  uint64_t total = 0;
  for (uint64_t duration : host.durations) total += duration;
  EXPECT_GT(total, 0u);
  EXPECT_NE(host.durations, board.durations);
}

}  // namespace
}  // namespace trainscope
