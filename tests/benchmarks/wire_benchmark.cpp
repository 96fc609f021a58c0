// SPDX-License-Identifier: Apache-2.0
//
// The serial link's budget: how many wire bytes training simple_mnist produces with every event
// on (the board agent encoding into a counting sink), what share of a 115200 or 921600 baud
// line that needs, and how fast the desktop decodes such a stream (StreamDecoder plus
// MessageRouter). Results and the command are in docs/benchmarks.md, section "Serial link".
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/exec/trainer.h"
#include "engine/model/model.h"
#include "serial/agent/agent.h"
#include "serial/protocol/message_router.h"
#include "serial/protocol/stream_decoder.h"

namespace trainscope {
namespace {

constexpr double kBitsPerByte = 10.0;  // 8N1: start bit, 8 data bits, stop bit
constexpr double kSlowLineBytesPerSecond = 115200.0 / kBitsPerByte;
constexpr double kFastLineBytesPerSecond = 921600.0 / kBitsPerByte;
constexpr size_t kTxBytes = 8192;  // as the board simulator sizes the agent's TX ring

// CPU time of this thread: the full-speed rate should not depend on other load on the machine.
double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

struct Fixture {
  Model model;
  DataSet data;
};

bool LoadSimpleMnist(Fixture* fixture) {
  const std::string dir = std::string(TRAINSCOPE_MODELS_DIR) + "/onert-micro/simple_mnist";
  std::vector<uint8_t> input, target;
  if (!ReadModelFile(dir + "/model.circle", &fixture->model).ok() ||
      !ReadFileBytes(dir + "/train_input.bin", 1 << 20, &input).ok() ||
      !ReadFileBytes(dir + "/train_target.bin", 1 << 20, &target).ok()) {
    return false;
  }
  fixture->data.inputs.assign(1, std::vector<float>(input.size() / sizeof(float)));
  std::memcpy(fixture->data.inputs[0].data(), input.data(), input.size());
  fixture->data.targets.resize(target.size() / sizeof(float));
  std::memcpy(fixture->data.targets.data(), target.data(), target.size());
  fixture->data.sample_count = static_cast<uint32_t>(fixture->data.targets.size());
  return true;
}

TrainingOptions SimpleMnistOptions(uint32_t batch_size) {
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.loss = LossKind::kSparseCrossEntropy;
  options.beta2 = 0.999f;
  options.batch_size = batch_size;
  return options;
}

// Where the agent's UART bytes go: counted, and kept when a stream is being recorded.
struct ByteSink {
  uint64_t bytes = 0;
  std::vector<uint8_t>* recording = nullptr;

  static size_t Write(void* context, const uint8_t* data, size_t size) {
    auto* sink = static_cast<ByteSink*>(context);
    sink->bytes += size;
    if (sink->recording) sink->recording->insert(sink->recording->end(), data, data + size);
    return size;
  }
};

const char* NameOf(void* context, wire::NameKind kind, uint32_t id) {
  const Subgraph& main = static_cast<Model*>(context)->graph().main();
  if (kind == wire::NameKind::kTensor) {
    return id < main.tensors.size() && !main.tensors[id].name.empty()
               ? main.tensors[id].name.c_str()
               : nullptr;
  }
  return nullptr;
}

// Hands every event to the agent and counts finished backward steps on the way.
class CountingTee final : public TrainingObserver {
 public:
  explicit CountingTee(TrainingObserver* next) : next_(next) {}
  void OnSample(const SampleEvent& e) override { next_->OnSample(e); }
  void OnOptimizerStep(const OptimizerStepEvent& e) override { next_->OnOptimizerStep(e); }
  void OnForwardOp(const ForwardOpEvent& e) override { next_->OnForwardOp(e); }
  void OnBackwardStep(const BackwardStepEvent& e) override {
    if (!e.begin) ++backward_steps;
    next_->OnBackwardStep(e);
  }
  void OnMemory(const MemoryEvent& e) override { next_->OnMemory(e); }
  void OnMemorySummary(const MemorySummaryEvent& e) override { next_->OnMemorySummary(e); }
  void OnGradientStats(const GradientStatsEvent& e) override { next_->OnGradientStats(e); }
  void OnUpdateRatio(const UpdateRatioEvent& e) override { next_->OnUpdateRatio(e); }
  void OnLoss(const LossEvent& e) override { next_->OnLoss(e); }
  void OnMetric(const MetricEvent& e) override { next_->OnMetric(e); }
  uint64_t backward_steps = 0;

 private:
  TrainingObserver* next_;
};

// A trainer whose events go through the board agent into a ByteSink.
struct InstrumentedTrainer {
  std::vector<uint8_t> tx = std::vector<uint8_t>(kTxBytes);
  ByteSink sink;
  Trainer trainer;
  std::unique_ptr<Agent> agent;
  std::unique_ptr<CountingTee> tee;

  Status Init(Fixture* fixture, uint32_t batch_size) {
    TS_RETURN_IF_ERROR(
        trainer.Init(&fixture->model, SimpleMnistOptions(batch_size), TrainabilityConfig()));
    AgentConfig config;
    config.name = "wire-benchmark";
    config.capabilities = wire::capability::kAllDefined;
    config.tx_storage = tx.data();
    config.tx_storage_size = tx.size();
    config.write = &ByteSink::Write;
    config.write_context = &sink;
    config.lookup_name = &NameOf;
    config.lookup_context = &fixture->model;
    agent = std::make_unique<Agent>(config);
    agent->Start();
    tee = std::make_unique<CountingTee>(agent.get());
    trainer.set_observer(tee.get());
    return Status::Ok();
  }
};

// Wire bytes per message type in a recorded stream (frames under 254 bytes: payload + 10).
class BytesPerType final : public wire::FrameSink {
 public:
  void OnFrame(const wire::FrameView& frame) override {
    bytes[frame.type] += wire::WireFrameSize(frame.payload_size);
  }
  std::map<wire::MessageType, uint64_t> bytes;
};

// (a) Wire bytes per backward step and per optimizer step, and the line share they need.
void BM_WireBytesSimpleMnist(benchmark::State& state) {
  Fixture fixture;
  if (!LoadSimpleMnist(&fixture)) {
    state.SkipWithError("simple_mnist fixtures not found (TRAINSCOPE_MODELS_DIR)");
    return;
  }
  const uint32_t batch_size = static_cast<uint32_t>(state.range(0));
  InstrumentedTrainer run;
  Status status = run.Init(&fixture, batch_size);
  // The first step sends the names once per session; measure the steady state after it.
  if (status.ok()) status = run.trainer.TrainStep(fixture.data, 0);
  if (!status.ok()) {
    state.SkipWithError(status.message());
    return;
  }
  const uint64_t bytes_before = run.sink.bytes;
  const uint64_t backward_before = run.tee->backward_steps;
  const uint32_t steps_per_epoch = fixture.data.sample_count / batch_size;
  uint32_t step = 1;
  const double start = ThreadCpuSeconds();
  for (auto _ : state) {
    status = run.trainer.TrainStep(fixture.data, (step % steps_per_epoch) * batch_size);
    if (!status.ok()) {
      state.SkipWithError(status.message());
      return;
    }
    ++step;
  }
  const double seconds = ThreadCpuSeconds() - start;
  const double optimizer_steps = static_cast<double>(state.iterations());
  const double bytes = static_cast<double>(run.sink.bytes - bytes_before);
  const double backward_steps = static_cast<double>(run.tee->backward_steps - backward_before);
  const double per_step = bytes / optimizer_steps;
  const double full_speed_bytes_per_second = bytes / seconds;
  state.counters["bytes_per_backward_step"] = bytes / backward_steps;
  state.counters["bytes_per_optimizer_step"] = per_step;
  state.counters["optimizer_steps_per_s"] = optimizer_steps / seconds;
  // Shares in percent: one optimizer step per second, then training as fast as this CPU goes
  // (CPU time, so other load on the machine does not lower the rate).
  state.counters["pct_115200_at_1_step_per_s"] = 100.0 * per_step / kSlowLineBytesPerSecond;
  state.counters["pct_921600_at_1_step_per_s"] = 100.0 * per_step / kFastLineBytesPerSecond;
  state.counters["pct_115200_full_speed"] =
      100.0 * full_speed_bytes_per_second / kSlowLineBytesPerSecond;
  state.counters["pct_921600_full_speed"] =
      100.0 * full_speed_bytes_per_second / kFastLineBytesPerSecond;
  state.counters["agent_drops"] = static_cast<double>(run.agent->tx_ring().dropped_frames());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));

  // Untimed: which messages the bytes of one more optimizer step go to, in percent.
  std::vector<uint8_t> one_step;
  run.sink.recording = &one_step;
  if (!run.trainer.TrainStep(fixture.data, 0).ok()) return;
  wire::StreamDecoder decoder;
  BytesPerType split;
  decoder.Push(one_step.data(), one_step.size(), &split);
  const auto share = [&](std::initializer_list<wire::MessageType> types) {
    uint64_t sum = 0;
    for (wire::MessageType type : types) sum += split.bytes[type];
    return 100.0 * static_cast<double>(sum) / static_cast<double>(one_step.size());
  };
  using wire::MessageType;
  state.counters["pct_memory"] = share({MessageType::kMemory, MessageType::kMemorySummary});
  state.counters["pct_backward_step"] = share({MessageType::kBackwardStep});
  state.counters["pct_forward_op"] = share({MessageType::kForwardOp});
  state.counters["pct_gradient_stats"] = share({MessageType::kGradientStats});
  state.counters["pct_update_ratio"] = share({MessageType::kUpdateRatio});
}
BENCHMARK(BM_WireBytesSimpleMnist)->Arg(1)->Arg(4)->ArgName("batch")->Unit(benchmark::kMicrosecond);

// Counts what the router delivers, so the decode work cannot be optimised away.
class CountingEvents final : public TrainingObserver {
 public:
  void OnSample(const SampleEvent&) override { ++events; }
  void OnOptimizerStep(const OptimizerStepEvent&) override { ++events; }
  void OnForwardOp(const ForwardOpEvent&) override { ++events; }
  void OnBackwardStep(const BackwardStepEvent&) override { ++events; }
  void OnMemory(const MemoryEvent&) override { ++events; }
  void OnMemorySummary(const MemorySummaryEvent&) override { ++events; }
  void OnGradientStats(const GradientStatsEvent&) override { ++events; }
  void OnUpdateRatio(const UpdateRatioEvent&) override { ++events; }
  void OnLoss(const LossEvent&) override { ++events; }
  void OnMetric(const MetricEvent&) override { ++events; }
  uint64_t events = 0;
};

// (b) Decode throughput on a recorded stream of simple_mnist training (one epoch, batch 1),
// pushed in 4 KiB chunks as a transport read delivers them.
void BM_DecodeRecordedStream(benchmark::State& state) {
  Fixture fixture;
  if (!LoadSimpleMnist(&fixture)) {
    state.SkipWithError("simple_mnist fixtures not found (TRAINSCOPE_MODELS_DIR)");
    return;
  }
  std::vector<uint8_t> stream;
  InstrumentedTrainer run;
  run.sink.recording = &stream;
  Status status = run.Init(&fixture, 1);
  if (status.ok()) status = run.trainer.TrainEpoch(fixture.data);
  if (!status.ok()) {
    state.SkipWithError(status.message());
    return;
  }
  constexpr size_t kChunk = 4096;
  uint64_t frames = 0;
  for (auto _ : state) {
    wire::StreamDecoder decoder;
    CountingEvents events;
    wire::MessageRouter router(&events, nullptr);
    for (size_t offset = 0; offset < stream.size(); offset += kChunk) {
      decoder.Push(stream.data() + offset, std::min(kChunk, stream.size() - offset), &router);
    }
    if (decoder.counters().frames_bad != 0 || router.malformed_payloads() != 0) {
      state.SkipWithError("the recorded stream did not decode cleanly");
      return;
    }
    frames += decoder.counters().frames_ok;
    benchmark::DoNotOptimize(events.events);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * stream.size()));
  state.counters["frames_per_s"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  state.counters["stream_bytes"] = static_cast<double>(stream.size());
  state.counters["bytes_per_frame"] = static_cast<double>(stream.size()) *
                                      static_cast<double>(state.iterations()) /
                                      static_cast<double>(frames);
}
BENCHMARK(BM_DecodeRecordedStream)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace trainscope

BENCHMARK_MAIN();
