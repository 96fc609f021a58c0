// SPDX-License-Identifier: Apache-2.0
//
// "Does it fit?" search time: FindBestFit at a tight, a middle and a loose budget (25 %, 50 %
// and 90 % of the way from the smallest configuration's heap peak to the full one's), and the
// whole curve, for every shared model with float32 parameters, the demo (when its path is
// compiled in) and generated perceptrons: 8 layers (exact: 4^8 - 1 configurations, the most the
// default exhaustive limit allows) and 12 layers (beam search). Adam, batch 1.
// Counters: candidates, pruned space, configurations planned, trained parameters of the answer.
//
//   fit_benchmark [--benchmark_filter=demo]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/memory/fit_search.h"
#include "engine/model/model.h"
#include "engine/model/model_builder.h"

namespace trainscope {
namespace {

FitOptions Options() {
  FitOptions options;
  options.memory.optimizer = OptimizerKind::kAdam;
  return options;
}

void Fit(benchmark::State& state, const Graph& graph, double position) {
  FitResult bounds;  // nothing fits 0 bytes, so every configuration is planned for `smallest`
  if (!FindBestFit(graph, 0, Options(), &bounds).ok()) {
    state.SkipWithError("no candidates");
    return;
  }
  const double low = static_cast<double>(bounds.smallest.heap_peak_bytes);
  const double high = static_cast<double>(bounds.full.heap_peak_bytes);
  const uint64_t budget = static_cast<uint64_t>(low + position * (high - low));
  FitResult fit;
  for (auto _ : state) {
    if (!FindBestFit(graph, budget, Options(), &fit).ok()) state.SkipWithError("search failed");
    benchmark::DoNotOptimize(fit.best.trained_parameters);
  }
  state.counters["budget"] = static_cast<double>(budget);
  state.counters["candidates"] = static_cast<double>(fit.candidates.size());
  state.counters["space"] = static_cast<double>(fit.stats.pruned_space_size);
  state.counters["planned"] = static_cast<double>(fit.stats.evaluated);
  state.counters["trained"] = static_cast<double>(fit.best.trained_parameters);
  state.counters["exact"] = fit.stats.exact ? 1 : 0;
}

void Curve(benchmark::State& state, const Graph& graph) {
  FitCurve curve;
  for (auto _ : state) {
    if (!ComputeFitCurve(graph, Options(), &curve).ok()) state.SkipWithError("curve failed");
    benchmark::DoNotOptimize(curve.points.size());
  }
  state.counters["points"] = static_cast<double>(curve.points.size());
  state.counters["planned"] = static_cast<double>(curve.stats.evaluated);
  state.counters["exact"] = curve.stats.exact ? 1 : 0;
}

Graph Perceptron(int layers) {
  ModelBuilder b;
  int x = b.AddTensor("x", {1, 32});
  const int input = x;
  for (int l = 0; l < layers; ++l) {
    const int out = l + 1 == layers ? 10 : 32;
    const std::string name = "fc" + std::to_string(l);
    const int w = b.AddConstant(name + "/w", {out, 32},
                                std::vector<float>(static_cast<size_t>(out) * 32, 0.01f));
    const int bias =
        b.AddConstant(name + "/b", {out}, std::vector<float>(static_cast<size_t>(out), 0.0f));
    const int y = b.AddTensor(name + "/y", {1, out});
    OpOptions relu;
    relu.activation = l + 1 == layers ? Activation::kNone : Activation::kRelu;
    b.AddOperator(op::kFullyConnected, {x, w, bias}, {y}, relu);
    x = y;
  }
  const int p = b.AddTensor("p", {1, 10});
  b.AddOperator(op::kSoftmax, {x}, {p});
  b.SetInputs({input});
  b.SetOutputs({p});
  std::vector<uint8_t> bytes;
  Model model;
  if (!b.Finish(&bytes).ok() || !Model::FromBytes(std::move(bytes), &model).ok()) return Graph();
  return model.graph();
}

void Register(const std::string& name, const Graph& graph) {
  FitResult probe;
  if (graph.subgraphs.empty() || !FindBestFit(graph, 0, Options(), &probe).ok()) return;
  for (const auto& [label, position] :
       {std::pair<const char*, double>{"tight", 0.25}, {"middle", 0.5}, {"loose", 0.9}}) {
    const double where = position;
    benchmark::RegisterBenchmark(("fit/" + name + "/" + label).c_str(), [graph, where](
                                                                            benchmark::State& s) {
      Fit(s, graph, where);
    })->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark(("curve/" + name).c_str(), [graph](benchmark::State& s) {
    Curve(s, graph);
  })->Unit(benchmark::kMicrosecond);
}

void RegisterModels() {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, fs::path>> paths;
#ifdef TRAINSCOPE_DEMO_DIR
  paths.emplace_back("demo", fs::path(TRAINSCOPE_DEMO_DIR) / "demo.circle");
#endif
  const fs::path root = TRAINSCOPE_MODELS_DIR;
  std::error_code error;
  std::vector<fs::path> shared;
  if (fs::exists(root, error)) {
    for (const auto& entry : fs::recursive_directory_iterator(root, error)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".circle" || ext == ".tflite") shared.push_back(entry.path());
    }
  }
  std::sort(shared.begin(), shared.end());
  for (const fs::path& path : shared) paths.emplace_back(fs::relative(path, root).string(), path);
  for (const auto& [name, path] : paths) {
    Model model;
    if (ReadModelFile(path.string(), &model).ok()) Register(name, model.graph());
  }
  Register("synthetic/perceptron-8", Perceptron(8));
  Register("synthetic/perceptron-12", Perceptron(12));
}

}  // namespace
}  // namespace trainscope

int main(int argc, char** argv) {
  trainscope::RegisterModels();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
