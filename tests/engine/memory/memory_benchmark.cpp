// SPDX-License-Identifier: Apache-2.0
//
// Planning time per shared model, for the inference timeline and the full training timeline
// (all layers, Adam, batch 4): building the timeline, heap accounting and arena planning.
// Counters: buffers, heap peak, arena size, lower bound and arena / lower bound. Also generated
// FULLY_CONNECTED + RELU chains of 300, 1000 and 4000 operators (300 is the app's large-model
// case), planned as onert-micro's step and as the Trainer's own (BuildTrainStepTimeline, what
// Trainer::Init plans), and random buffer sets up to 2000 buffers.
//
//   memory_benchmark [--benchmark_filter=simple_mnist]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/memory/greedy_arena_planner.h"
#include "engine/memory/heap_accounting.h"
#include "engine/memory/memory_events.h"
#include "engine/memory/memory_timeline.h"
#include "engine/memory/train_step_timeline.h"
#include "engine/model/model.h"
#include "tests/common/chain_model.h"

namespace trainscope {
namespace {

bool IsFloatModel(const Subgraph& subgraph) {
  for (const Tensor& t : subgraph.tensors) {
    if (!t.constant && t.type != ElementType::kFloat32) return false;
  }
  return true;
}

enum class Timeline { kInference, kOnertTraining, kTrainerStep };

Status BuildTimeline(Timeline kind, const Subgraph& subgraph, const BackwardSelection& selection,
                     const TimelineOptions& options, MemoryTimeline* timeline) {
  switch (kind) {
    case Timeline::kInference:
      return BuildInferenceTimeline(subgraph, options, timeline);
    case Timeline::kOnertTraining:
      return BuildTrainingTimeline(subgraph, selection, options, timeline);
    case Timeline::kTrainerStep: {
      TrainStepOptions step;
      step.optimizer = options.optimizer;
      step.batch_size = options.batch_size;
      return BuildTrainStepTimeline(subgraph, selection, step, timeline);
    }
  }
  return Status::Ok();
}

void PlanModel(benchmark::State& state, const Graph& graph, Timeline kind) {
  const Subgraph& subgraph = graph.main();
  TimelineOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.batch_size = 4;
  options.backward_temporary_bytes = &OnertBackwardTemporaryBytes;
  const BackwardSelection selection = SelectBackwardRange(subgraph, TrainabilityConfig{});
  uint64_t arena = 0, bound = 0, peak = 0, buffers = 0;
  for (auto _ : state) {
    MemoryTimeline timeline;
    const Status built = BuildTimeline(kind, subgraph, selection, options, &timeline);
    HeapAccounting heap;
    GreedyArenaPlanner planner;
    if (!built.ok() || !AddTimeline(timeline, &heap).ok() ||
        !AddTimeline(timeline, &planner).ok() || !heap.Plan().ok() || !planner.Plan().ok()) {
      state.SkipWithError("planning failed");
      return;
    }
    arena = planner.arena_bytes();
    bound = planner.lower_bound_bytes();
    peak = heap.peak_bytes();
    buffers = timeline.buffers.size();
    benchmark::DoNotOptimize(arena);
  }
  state.counters["buffers"] = static_cast<double>(buffers);
  state.counters["heap_peak"] = static_cast<double>(peak);
  state.counters["arena"] = static_cast<double>(arena);
  state.counters["lower_bound"] = static_cast<double>(bound);
  state.counters["ratio"] =
      bound == 0 ? 1.0 : static_cast<double>(arena) / static_cast<double>(bound);
}

// Random lifetimes, as a scale reference beyond the small shared models.
void PlanRandomBuffers(benchmark::State& state) {
  const uint32_t count = static_cast<uint32_t>(state.range(0));
  std::mt19937 random(42);
  std::vector<uint64_t> bytes(count);
  std::vector<uint32_t> first(count), last(count);
  for (uint32_t i = 0; i < count; ++i) {
    bytes[i] = random() % 8192 + 1;
    first[i] = static_cast<uint32_t>(random() % count);
    last[i] = first[i] + static_cast<uint32_t>(random() % 16);
  }
  uint64_t arena = 0, bound = 0;
  for (auto _ : state) {
    GreedyArenaPlanner planner;
    for (uint32_t i = 0; i < count; ++i) {
      if (!planner.AddBuffer(bytes[i], first[i], last[i]).ok()) state.SkipWithError("bad buffer");
    }
    if (!planner.Plan().ok()) state.SkipWithError("planning failed");
    arena = planner.arena_bytes();
    bound = planner.lower_bound_bytes();
  }
  state.counters["buffers"] = count;
  state.counters["ratio"] =
      bound == 0 ? 1.0 : static_cast<double>(arena) / static_cast<double>(bound);
}
BENCHMARK(PlanRandomBuffers)
    ->Name("synthetic/random")
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(2000)
    ->Unit(benchmark::kMicrosecond);

// Blocks of FULLY_CONNECTED 32->32 + RELU (the app's large-model case, 300 operators, is
// tests/benchmarks/ui_benchmark.cpp's), planned for inference and for a train step.
Graph ChainGraph(int blocks) {
  std::vector<uint8_t> bytes;
  Model model;
  if (!testing::FcReluChainBytes(blocks, &bytes).ok() ||
      !Model::FromBytes(std::move(bytes), &model).ok())
    return Graph();
  return model.graph();
}

void RegisterGeneratedModels() {
  for (int operators : {300, 1000, 4000}) {
    const Graph chain = ChainGraph(operators / 2);
    if (chain.subgraphs.empty()) return;
    const std::string name = "/generated/chain" + std::to_string(operators);
    const std::pair<const char*, Timeline> kinds[] = {{"inference", Timeline::kInference},
                                                      {"training", Timeline::kOnertTraining},
                                                      {"trainer-step", Timeline::kTrainerStep}};
    for (const auto& kind : kinds) {
      const Timeline timeline = kind.second;
      benchmark::RegisterBenchmark((kind.first + name).c_str(), [chain,
                                                                 timeline](benchmark::State& s) {
        PlanModel(s, chain, timeline);
      })->Unit(benchmark::kMillisecond);
    }
  }
}

void RegisterSharedModels() {
  namespace fs = std::filesystem;
  const fs::path root = TRAINSCOPE_MODELS_DIR;
  std::error_code error;
  if (!fs::exists(root, error)) return;
  std::vector<fs::path> paths;
  for (const auto& entry : fs::recursive_directory_iterator(root, error)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".circle" || ext == ".tflite") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& path : paths) {
    Model model;
    if (!ReadModelFile(path.string(), &model).ok()) continue;
    const std::string name = fs::relative(path, root).string();
    const Graph graph = model.graph();
    benchmark::RegisterBenchmark(("inference/" + name).c_str(), [graph](benchmark::State& s) {
      PlanModel(s, graph, Timeline::kInference);
    });
    if (IsFloatModel(graph.main())) {
      benchmark::RegisterBenchmark(("training/" + name).c_str(), [graph](benchmark::State& s) {
        PlanModel(s, graph, Timeline::kOnertTraining);
      });
    }
  }
}

}  // namespace
}  // namespace trainscope

int main(int argc, char** argv) {
  trainscope::RegisterSharedModels();
  trainscope::RegisterGeneratedModels();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
