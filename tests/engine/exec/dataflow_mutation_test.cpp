// SPDX-License-Identifier: Apache-2.0
//
// A mutation campaign over real models (tests/common/dataflow_mutator.h): every mutant is a valid
// flatbuffer with edited dataflow, shapes or options, and goes through what inspect, memory, run
// and train do. None may crash or hang; each is either refused with a message or runs.
//
// TRAINSCOPE_MUTANTS sets the number of mutants per seed model (default 200: with the shared
// models present, 3,400 mutants in all).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/model/model.h"
#include "tests/common/chain_model.h"
#include "tests/common/dataflow_mutator.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

int MutantsPerSeed() {
  const char* text = std::getenv("TRAINSCOPE_MUTANTS");
  const int count = text != nullptr ? std::atoi(text) : 0;
  return count > 0 ? count : 200;
}

struct Seed {
  std::string name;
  Model model;
};

std::vector<Seed> Seeds() {
  std::vector<Seed> seeds;
  const auto add = [&seeds](const std::string& name, std::vector<uint8_t> bytes) {
    Seed seed{name, Model()};
    if (Model::FromBytes(std::move(bytes), &seed.model).ok()) seeds.push_back(std::move(seed));
  };
  std::vector<uint8_t> chain;
  if (testing::FcReluChainBytes(3, &chain).ok()) add("fc-relu chain", chain);
  if (testing::FixturesPresent()) {
    const std::string dir = testing::ModelsDir();
    for (const char* path :
         {"onert-micro/simple_mnist/model.circle", "onert-micro/kernels/add/model.circle",
          "onert-micro/kernels/concatenation/model.circle",
          "onert-micro/kernels/conv2d/model.circle", "onert-micro/kernels/exp/model.circle",
          "onert-micro/kernels/fully_connected/model.circle",
          "onert-micro/kernels/leaky_relu/model.circle",
          "onert-micro/kernels/logistic/model.circle",
          "onert-micro/kernels/max_pool_2d/model.circle", "onert-micro/kernels/mean/model.circle",
          "onert-micro/kernels/pad/model.circle", "onert-micro/kernels/relu/model.circle",
          "onert-micro/kernels/reshape/model.circle", "onert-micro/kernels/sub/model.circle",
          "onert-micro/kernels/transpose/model.circle", "tflite/hello_world_float.tflite"}) {
      add(path, testing::ReadBytes(dir + "/" + path));
    }
  }
  return seeds;
}

struct Outcome {
  int unwritable = 0;  // the builder's own re-read refused it
  int refused = 0;
  int stopped = 0;
  int ran = 0;
};

TEST(DataflowMutation, NoMutantOfARealModelCrashesAndEveryRefusalSaysWhy) {
  const std::vector<Seed> seeds = Seeds();
  ASSERT_FALSE(seeds.empty());
  if (seeds.size() == 1) {
    std::printf("only the generated chain: model fixtures not found in %s\n",
                testing::ModelsDir().c_str());
  }
  Outcome all;
  for (size_t s = 0; s < seeds.size(); ++s) {
    std::mt19937 random(static_cast<uint32_t>(1000 + s));
    testing::DataflowMutator mutator([&random] { return static_cast<uint32_t>(random()); });
    for (int i = 0; i < MutantsPerSeed(); ++i) {
      testing::EditableGraph graph(seeds[s].model);
      const std::string what =
          seeds[s].name + " mutant " + std::to_string(i) + ": " + mutator.Mutate(&graph);
      std::vector<uint8_t> bytes;
      if (!graph.Write(&bytes).ok()) {
        ++all.unwritable;
        continue;
      }
      const auto says_why = [&what](const Status& status) {
        EXPECT_STRNE(status.message(), "") << what;
      };
      switch (testing::ConsumeMutant(bytes, says_why)) {
        case testing::MutantFate::kRefused:
          ++all.refused;
          break;
        case testing::MutantFate::kStopped:
          ++all.stopped;
          break;
        case testing::MutantFate::kRan:
          ++all.ran;
          break;
      }
    }
  }
  std::printf("%zu seeds: %d unwritable, %d refused on reading, %d stopped later, %d ran\n",
              seeds.size(), all.unwritable, all.refused, all.stopped, all.ran);
  // The campaign means something only when mutants reach every stage.
  EXPECT_GT(all.refused + all.stopped, 0);
  EXPECT_GT(all.ran, 0);
  EXPECT_GE(all.unwritable + all.refused + all.stopped + all.ran,
            static_cast<int>(seeds.size()) * MutantsPerSeed());
}

}  // namespace
}  // namespace trainscope
