// SPDX-License-Identifier: Apache-2.0
//
// Dataflow-aware model fuzzing: the input does not become model bytes (the flatbuffer verifier
// would refuse nearly all of them) but chooses edits to real models - which seed, which operand
// to rewire to which tensor, which operator to drop, double or move, which shape or option to
// change (tests/common/dataflow_mutator.h). Each mutant then goes through what inspect, memory,
// run and train do; a crash, a sanitizer report or a refusal without a message is a finding.
// Seeds: a generated FULLY_CONNECTED/RELU chain, one small model per family of forward-only
// operators (tests/common/op_seed_models.h), plus the shared models when present.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/common/chain_model.h"
#include "tests/common/dataflow_mutator.h"
#include "tests/common/op_seed_models.h"

namespace {

std::vector<trainscope::Model> LoadSeeds() {
  std::vector<trainscope::Model> seeds;
  const auto add = [&seeds](std::vector<uint8_t> bytes) {
    trainscope::Model model;
    if (trainscope::Model::FromBytes(std::move(bytes), &model).ok()) {
      seeds.push_back(std::move(model));
    }
  };
  std::vector<uint8_t> chain;
  if (trainscope::testing::FcReluChainBytes(2, &chain).ok()) add(chain);
  for (std::vector<uint8_t>& bytes : trainscope::testing::OpSeedModels()) add(std::move(bytes));
  for (const char* kernel : {"add", "concatenation", "conv2d", "fully_connected", "max_pool_2d",
                             "mean", "pad", "reshape", "transpose"}) {
    std::ifstream in(
        std::string(TRAINSCOPE_MODELS_DIR) + "/onert-micro/kernels/" + kernel + "/model.circle",
        std::ios::binary);
    if (in) add(std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {}));
  }
  return seeds;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<trainscope::Model> seeds = LoadSeeds();
  if (seeds.empty() || size == 0) return 0;
  size_t position = 0;
  const auto next = [&]() -> uint32_t {
    uint32_t value = 0;
    for (int i = 0; i < 2 && position < size; ++i) value |= uint32_t{data[position++]} << (8 * i);
    return value;
  };
  trainscope::testing::EditableGraph graph(seeds[next() % seeds.size()]);
  trainscope::testing::DataflowMutator mutator(next);
  mutator.Mutate(&graph);
  std::vector<uint8_t> bytes;
  if (!graph.Write(&bytes).ok()) return 0;
  trainscope::testing::ConsumeMutant(bytes, [](const trainscope::Status& status) {
    if (status.message()[0] == '\0') {
      std::fprintf(stderr, "a refusal without a message\n");
      std::abort();
    }
  });
  return 0;
}
