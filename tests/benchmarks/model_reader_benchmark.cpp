// SPDX-License-Identifier: Apache-2.0
//
// How long verifying and decoding a model takes. Reads the fixtures from TRAINSCOPE_MODELS_DIR;
// person_detect.tflite is the 300 KB, 31-operator case the reader is held to (well under 1 ms).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "engine/model/model.h"

namespace {

void BM_ReadGraph(benchmark::State& state, const std::string& relative_path) {
  std::vector<uint8_t> bytes;
  const std::string path = std::string(TRAINSCOPE_MODELS_DIR) + "/" + relative_path;
  if (!trainscope::ReadFileBytes(path, size_t{1} << 30, &bytes).ok()) {
    state.SkipWithError(("fixture not found: " + path).c_str());
    return;
  }
  for (auto _ : state) {
    trainscope::Graph graph;
    trainscope::Status status = trainscope::ReadGraph(bytes.data(), bytes.size(), &graph);
    benchmark::DoNotOptimize(status.ok());
    benchmark::DoNotOptimize(graph.subgraphs.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
  state.counters["file_bytes"] = static_cast<double>(bytes.size());
}

BENCHMARK_CAPTURE(BM_ReadGraph, person_detect_300KB_31ops,
                  std::string("tflite/person_detect.tflite"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReadGraph, keyword_scrambled, std::string("tflite/keyword_scrambled.tflite"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReadGraph, simple_mnist, std::string("onert-micro/simple_mnist/model.circle"))
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
