// SPDX-License-Identifier: Apache-2.0
//
// Training throughput (samples per second) with events off and on: simple_mnist from the
// fixtures, a 784-128-10 MLP and a 300-operator FULLY_CONNECTED + RELU chain generated here.
// "Events on" attaches an observer that receives every event the trainer emits (memory, backward
// steps, gradient statistics, update ratios, losses) and does as little as possible with them, so
// the numbers show the engine's own cost.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/core/clock.h"
#include "engine/core/detail_budget.h"
#include "engine/exec/trainer.h"
#include "engine/model/model_builder.h"
#include "engine/train/gradient_stats.h"
#include "engine/train/gradient_stats_paths.h"
#include "engine/train/optimizers.h"
#include "tests/common/chain_model.h"

namespace trainscope {
namespace {

class CountingObserver final : public TrainingObserver {
 public:
  void OnMemory(const MemoryEvent&) override { ++events; }
  void OnMemorySummary(const MemorySummaryEvent&) override { ++events; }
  void OnBackwardStep(const BackwardStepEvent&) override { ++events; }
  void OnForwardOp(const ForwardOpEvent&) override { ++events; }
  void OnGradientStats(const GradientStatsEvent& e) override { events += e.nan_count + 1; }
  void OnUpdateRatio(const UpdateRatioEvent&) override { ++events; }
  void OnLoss(const LossEvent&) override { ++events; }
  void OnSample(const SampleEvent&) override { ++events; }
  void OnOptimizerStep(const OptimizerStepEvent&) override {
    ++events;
    observed_ns_ += MonotonicNowNs() - step_started_ns_;
    detail.EndStep(observed_ns_);
  }
  uint32_t wanted_events() const override { return wanted; }
  // The budget runs on a clock of observed steps only: the event-overhead benchmark alternates
  // observed and unobserved steps, and the app observes every step.
  uint32_t StepDetail(uint32_t) override {
    step_started_ns_ = MonotonicNowNs();
    return detail.Take(observed_ns_) ? kDetailEvents : watched;
  }
  uint64_t events = 0;
  uint32_t wanted = kAllEvents;
  DetailBudget detail{0.0, 0.0};  // every step
  uint32_t watched = 0;           // detail every step carries anyway

 private:
  uint64_t step_started_ns_ = 0;
  uint64_t observed_ns_ = 0;
};

std::vector<float> Random(size_t count, float scale, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(rng);
  return values;
}

bool BuildMlp(Model* model) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 784});
  const int w1 = b.AddConstant("w1", {128, 784}, Random(128 * 784, 0.05f, 1));
  const int b1 = b.AddConstant("b1", {128}, std::vector<float>(128, 0.0f));
  const int h = b.AddTensor("h", {1, 128});
  OpOptions relu;
  relu.activation = Activation::kRelu;
  b.AddOperator(op::kFullyConnected, {x, w1, b1}, {h}, relu);
  const int w2 = b.AddConstant("w2", {10, 128}, Random(1280, 0.1f, 2));
  const int b2 = b.AddConstant("b2", {10}, std::vector<float>(10, 0.0f));
  const int logits = b.AddTensor("logits", {1, 10});
  b.AddOperator(op::kFullyConnected, {h, w2, b2}, {logits});
  const int p = b.AddTensor("p", {1, 10});
  b.AddOperator(op::kSoftmax, {logits}, {p});
  b.SetInputs({x});
  b.SetOutputs({p});
  std::vector<uint8_t> bytes;
  return b.Finish(&bytes).ok() && Model::FromBytes(std::move(bytes), model).ok();
}

// The benchmark argument "events": which events the observer asks for.
enum EventChoice : int64_t {
  kNoObserver = 0,
  kEveryEvent = 1,
  kAllButGradientStats = 2,
  kAllButUpdateRatios = 3
};

// The benchmark arguments "optimizer" and "batch" of the event-overhead cases.
enum OptimizerChoice : int64_t { kSgd = 0, kAdam = 1 };

// Sparse cross-entropy (or MSE for a model without a class output), every layer trained; false
// (the benchmark skipped) when the model cannot train.
bool InitTrainer(benchmark::State& state, Model* model, Trainer* trainer,
                 OptimizerKind optimizer = OptimizerKind::kAdam, uint32_t batch = 1,
                 LossKind loss = LossKind::kSparseCrossEntropy) {
  TrainingOptions options;
  options.optimizer = optimizer;
  options.loss = loss;
  options.beta2 = 0.999f;
  options.batch_size = batch;
  const Status status = trainer->Init(model, options, TrainabilityConfig());
  if (!status.ok()) state.SkipWithError(status.message());
  return status.ok();
}

// The first sample of the batch after the one at `sample`, wrapping to 0 before the data ends.
uint32_t NextBatch(uint32_t sample, uint32_t batch, const DataSet& data) {
  sample += batch;
  return sample + batch > data.sample_count ? 0 : sample;
}

void RunTraining(benchmark::State& state, Model* model, const DataSet& data) {
  Trainer trainer;
  if (!InitTrainer(state, model, &trainer)) return;
  Status status;
  CountingObserver observer;
  const int64_t choice = state.range(0);
  if (choice == kAllButGradientStats) observer.wanted = kAllEvents & ~kEventGradientStats;
  if (choice == kAllButUpdateRatios) observer.wanted = kAllEvents & ~kEventUpdateRatio;
  if (choice != kNoObserver) trainer.set_observer(&observer);
  uint32_t sample = 0;
  for (auto _ : state) {
    status = trainer.TrainStep(data, sample);
    if (!status.ok()) {
      state.SkipWithError(status.message());
      return;
    }
    sample = (sample + 1) % data.sample_count;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["samples_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["events_per_sample"] =
      static_cast<double>(observer.events) / static_cast<double>(state.iterations());
}

// The cost of every event as one number that holds still on a busy or throttled machine: steps
// alternate between no observer and an observer of every event, one trainer, so each pair runs
// under the same conditions, and the median of the pairs' ratios is reported (overhead_pct).
// Every other pair starts with the observed step, so both kinds see every sample. Arguments:
// optimizer (0 SGD, 1 Adam), batch size and detail: 0 every step carries its per-op detail (what
// stepping or a pace gets), 1 the desktop's DetailBudget at full speed, 2 that budget with the
// gradient statistics in every step (what a breakpoint on NaN/Inf or a gradient norm reads).
void MeasureEventOverhead(benchmark::State& state, Model* model, const DataSet& data,
                          LossKind loss = LossKind::kSparseCrossEntropy) {
  Trainer trainer;
  const uint32_t batch = static_cast<uint32_t>(state.range(1));
  const OptimizerKind optimizer =
      state.range(0) == kSgd ? OptimizerKind::kSgd : OptimizerKind::kAdam;
  if (!InitTrainer(state, model, &trainer, optimizer, batch, loss)) return;
  Status status;
  CountingObserver observer;
  if (state.range(2) >= 1)
    observer.detail.set_limits(kDefaultDetailStepsPerSecond, kDefaultDetailTimeShare);
  if (state.range(2) == 2) observer.watched = kEventGradientStats;
  std::vector<double> ratios;
  double off_seconds = 0.0, on_seconds = 0.0;
  uint32_t sample = 0;
  for (auto _ : state) {
    double seconds[2] = {};
    for (int turn = 0; turn < 2; ++turn) {
      const bool observed = (turn == 0) == (ratios.size() % 2 == 1);
      trainer.set_observer(observed ? &observer : nullptr);
      const auto start = std::chrono::steady_clock::now();
      status = trainer.TrainStep(data, sample);
      seconds[observed ? 1 : 0] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!status.ok()) {
        state.SkipWithError(status.message());
        return;
      }
      sample = NextBatch(sample, batch, data);
    }
    off_seconds += seconds[0];
    on_seconds += seconds[1];
    ratios.push_back(seconds[1] / seconds[0]);
  }
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  const double pairs = static_cast<double>(ratios.size());
  state.counters["events_off_us"] = off_seconds / pairs * 1e6;
  state.counters["events_on_us"] = on_seconds / pairs * 1e6;
  state.counters["overhead_pct"] = (ratios[ratios.size() / 2] - 1.0) * 100.0;
  // With detail on some steps only, the median pair is a plain one: the mean says what the
  // detailed ones add.
  state.counters["mean_overhead_pct"] = (on_seconds / off_seconds - 1.0) * 100.0;
  state.counters["detail_extra_us"] = observer.detail.detail_extra_ns() / 1e3;
  state.counters["detailed_pct"] =
      100.0 * (1.0 - static_cast<double>(observer.detail.skipped_steps()) / pairs);
}

bool BuildMlpData(Model* model, DataSet* data) {
  data->sample_count = 64;
  data->inputs = {Random(64 * 784, 1.0f, 3)};
  for (uint32_t s = 0; s < 64; ++s) data->targets.push_back(static_cast<float>(s % 10));
  return BuildMlp(model);
}

void BM_TrainMlp784(benchmark::State& state) {
  Model model;
  DataSet data;
  if (!BuildMlpData(&model, &data)) {
    state.SkipWithError("could not build the MLP");
    return;
  }
  RunTraining(state, &model, data);
}
BENCHMARK(BM_TrainMlp784)
    ->DenseRange(kNoObserver, kAllButUpdateRatios)
    ->ArgName("events")
    ->Unit(benchmark::kMicrosecond);

void BM_EventOverheadMlp784(benchmark::State& state) {
  Model model;
  DataSet data;
  if (!BuildMlpData(&model, &data)) {
    state.SkipWithError("could not build the MLP");
    return;
  }
  MeasureEventOverhead(state, &model, data);
}
BENCHMARK(BM_EventOverheadMlp784)
    ->ArgsProduct({{kSgd, kAdam}, {1, 16}, {0, 1, 2}})
    ->ArgNames({"optimizer", "batch", "detail"})
    ->Unit(benchmark::kMicrosecond);

// simple_mnist and its training data from the fixtures; false (and the benchmark skipped) when
// they are missing.
bool LoadSimpleMnist(benchmark::State& state, Model* model, DataSet* data) {
  const std::string dir = std::string(TRAINSCOPE_MODELS_DIR) + "/onert-micro/simple_mnist";
  std::vector<uint8_t> input, target;
  if (!ReadModelFile(dir + "/model.circle", model).ok() ||
      !ReadFileBytes(dir + "/train_input.bin", 1 << 20, &input).ok() ||
      !ReadFileBytes(dir + "/train_target.bin", 1 << 20, &target).ok()) {
    state.SkipWithError("simple_mnist fixtures not found");
    return false;
  }
  data->inputs.resize(1);
  data->inputs[0].resize(input.size() / 4);
  std::memcpy(data->inputs[0].data(), input.data(), input.size());
  data->targets.resize(target.size() / 4);
  std::memcpy(data->targets.data(), target.data(), target.size());
  data->sample_count = static_cast<uint32_t>(data->targets.size());
  return true;
}

void BM_TrainSimpleMnist(benchmark::State& state) {
  Model model;
  DataSet data;
  if (LoadSimpleMnist(state, &model, &data)) RunTraining(state, &model, data);
}
BENCHMARK(BM_TrainSimpleMnist)
    ->DenseRange(kNoObserver, kAllButUpdateRatios)
    ->ArgName("events")
    ->Unit(benchmark::kMicrosecond);

void BM_EventOverheadSimpleMnist(benchmark::State& state) {
  Model model;
  DataSet data;
  if (LoadSimpleMnist(state, &model, &data)) MeasureEventOverhead(state, &model, data);
}
BENCHMARK(BM_EventOverheadSimpleMnist)
    ->ArgsProduct({{kSgd, kAdam}, {1, 16}, {0, 1, 2}})
    ->ArgNames({"optimizer", "batch", "detail"})
    ->Unit(benchmark::kMicrosecond);

// The app's large-model case (tests/common/chain_model.h): 150 blocks of FULLY_CONNECTED 32->32 +
// RELU, 300 operators and 300 parameter tensors, trained towards zero with MSE; the step is small
// and the parameters many, so the per-parameter work of the optimizer and the events shows.
bool BuildChain300(Model* model, DataSet* data) {
  std::vector<uint8_t> bytes;
  if (!testing::FcReluChainBytes(150, &bytes).ok() ||
      !Model::FromBytes(std::move(bytes), model).ok()) {
    return false;
  }
  data->sample_count = 32;
  data->inputs = {Random(32 * 32, 1.0f, 7)};
  data->targets.assign(32 * 32, 0.0f);
  return true;
}

void BM_EventOverheadChain300(benchmark::State& state) {
  Model model;
  DataSet data;
  if (!BuildChain300(&model, &data)) {
    state.SkipWithError("could not build the chain");
    return;
  }
  MeasureEventOverhead(state, &model, data, LossKind::kMse);
}
BENCHMARK(BM_EventOverheadChain300)
    ->ArgsProduct({{kSgd, kAdam}, {1, 16}, {0, 1, 2}})
    ->ArgNames({"optimizer", "batch", "detail"})
    ->Unit(benchmark::kMicrosecond);

// The per-element cost of the statistics the debugger shows for every weight gradient, on each
// path (0 portable, 1 AVX2, 2 AVX-512; a path the CPU lacks is skipped).
void BM_GradientStats(benchmark::State& state) {
  const auto path = static_cast<GradientStatsPath>(state.range(1));
  if (static_cast<uint8_t>(path) > static_cast<uint8_t>(FastestGradientStatsPath())) {
    state.SkipWithError("this CPU lacks the path");
    return;
  }
  const std::vector<float> gradient = Random(static_cast<size_t>(state.range(0)), 1e-3f, 4);
  for (auto _ : state)
    benchmark::DoNotOptimize(ComputeGradientStatsOn(path, gradient.data(), gradient.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_GradientStats)
    ->ArgsProduct({{100352}, {0, 1, 2}})
    ->ArgNames({"values", "path"})
    ->Unit(benchmark::kMicrosecond);

// One Adam update of a 100k-element tensor, without and with the norms of UpdateRatioEvent, with
// onert-micro's formula (fast:0, the reference path's) and with the fast kernels' (fast:1).
void BM_AdamUpdate(benchmark::State& state) {
  const size_t count = 100352;
  std::vector<float> weights = Random(count, 0.05f, 5), gradient = Random(count, 1e-3f, 6);
  std::vector<float> m(count, 0.0f), v(count, 0.0f);
  const ParameterSlice slice{weights.data(),  count,    count,   0, 1,
                             gradient.data(), m.data(), v.data()};
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  UpdateNorms norms;
  uint32_t t = 0;
  for (auto _ : state) {
    OptimizerStep step;
    if (!PrepareOptimizerStep(options, ++t, &step).ok()) {
      state.SkipWithError("adam: the step was not prepared");
      return;
    }
    step.fast_adam = state.range(1) != 0;
    benchmark::DoNotOptimize(
        ApplyOptimizerStep(step, slice, state.range(0) != 0 ? &norms : nullptr));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(count));
}
BENCHMARK(BM_AdamUpdate)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"norms", "fast"})
    ->Unit(benchmark::kMicrosecond);

// The same for SGD.
void BM_SgdUpdate(benchmark::State& state) {
  const size_t count = 100352;
  std::vector<float> weights = Random(count, 0.05f, 5), gradient = Random(count, 1e-3f, 6);
  const ParameterSlice slice{weights.data(), count, count, 0, 1, gradient.data(), nullptr, nullptr};
  UpdateNorms norms;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        ApplySgd(SgdSettings{1e-3f}, 1, slice, state.range(0) != 0 ? &norms : nullptr));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(count));
}
BENCHMARK(BM_SgdUpdate)->Arg(0)->Arg(1)->ArgName("norms")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace trainscope

BENCHMARK_MAIN();
