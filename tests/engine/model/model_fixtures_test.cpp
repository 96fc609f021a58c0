// SPDX-License-Identifier: Apache-2.0
//
// Every third-party model under the fixtures folder loads, and its operator list and tensor count
// match the provenance data written next to it (README.md table, meta.json files).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "engine/model/model.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

namespace fs = std::filesystem;
using testing::ModelsDir;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> OperatorNames(const Subgraph& subgraph) {
  std::vector<std::string> names;
  for (const Operator& op : subgraph.operators) names.emplace_back(OpcodeName(op.opcode));
  return names;
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::regex item(R"([A-Z0-9_]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), item); it != std::sregex_iterator();
       ++it) {
    items.push_back(it->str());
  }
  return items;
}

TEST(ModelFixtures, EveryModelFileLoads) {
  TS_REQUIRE_FIXTURES();
  int loaded = 0;
  for (const auto& entry : fs::recursive_directory_iterator(ModelsDir())) {
    const std::string extension = entry.path().extension().string();
    if (extension != ".circle" && extension != ".tflite") continue;
    Model model;
    Status status = ReadModelFile(entry.path().string(), &model);
    EXPECT_TRUE(status.ok()) << status.message();
    ++loaded;
  }
  EXPECT_GE(loaded, 20) << "expected the 7 tflite models and the 14+ onert-micro circle models";
}

// The README's tflite table: | `file` | source | bytes | ops | inputs | outputs | types | float? |
TEST(ModelFixtures, TfliteOperatorsMatchProvenanceTable) {
  TS_REQUIRE_FIXTURES();
  const std::string readme = ReadText(fs::path(ModelsDir()) / "README.md");
  std::regex row(R"(\| `([a-z0-9_]+\.tflite)` \| [^|]+\| (\d+) \| ([^|]+) \|)");
  int rows = 0;
  for (auto it = std::sregex_iterator(readme.begin(), readme.end(), row);
       it != std::sregex_iterator(); ++it, ++rows) {
    const std::string file = (*it)[1];
    const size_t bytes = std::stoul((*it)[2]);
    const std::string ops = (*it)[3];
    SCOPED_TRACE(file);
    Model model;
    ASSERT_TRUE(ReadModelFile(ModelsDir() + "/tflite/" + file, &model).ok());
    EXPECT_EQ(model.graph().format, ModelFormat::kTflite);
    EXPECT_EQ(model.bytes().size(), bytes);
    const std::vector<std::string> actual = OperatorNames(model.graph().main());
    std::smatch counted;
    const std::string ops_text = ops;
    if (std::regex_search(ops_text, counted, std::regex(R"re((\d+) ops: (.*))re"))) {
      // Long models list their op count and the set of op types.
      EXPECT_EQ(actual.size(), std::stoul(counted[1]));
      const std::vector<std::string> listed = SplitList(counted[2]);
      EXPECT_EQ(std::set<std::string>(actual.begin(), actual.end()),
                std::set<std::string>(listed.begin(), listed.end()));
    } else {
      EXPECT_EQ(actual, SplitList(ops_text));
    }
  }
  EXPECT_EQ(rows, 7);
}

// Every onert-micro kernel folder has a meta.json with "operators" and "num_tensors".
TEST(ModelFixtures, CircleKernelModelsMatchMetaJson) {
  TS_REQUIRE_FIXTURES();
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(ModelsDir()) / "onert-micro/kernels")) {
    const fs::path meta = entry.path() / "meta.json";
    if (!fs::exists(meta)) continue;
    const std::string text = ReadText(meta);
    std::smatch model_file, operators, tensors;
    ASSERT_TRUE(std::regex_search(text, model_file, std::regex(R"re("model_file": "([^"]+)")re")));
    ASSERT_TRUE(std::regex_search(text, operators, std::regex(R"re("operators": \[([^\]]*)\])re")));
    ASSERT_TRUE(std::regex_search(text, tensors, std::regex(R"re("num_tensors": (\d+))re")));
    SCOPED_TRACE(entry.path().string());
    Model model;
    Status status = ReadModelFile((entry.path() / model_file[1].str()).string(), &model);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(OperatorNames(model.graph().main()), SplitList(operators[1]));
    EXPECT_EQ(model.graph().main().tensors.size(), std::stoul(tensors[1]));
    ++checked;
  }
  EXPECT_EQ(checked, 14);
}

TEST(ModelFixtures, SimpleMnistMatchesItsMetaJsonAndDescription) {
  TS_REQUIRE_FIXTURES();
  Model model;
  ASSERT_TRUE(ReadModelFile(ModelsDir() + "/onert-micro/simple_mnist/model.circle", &model).ok());
  const Subgraph& main = model.graph().main();
  EXPECT_EQ(model.graph().format, ModelFormat::kCircle);
  EXPECT_EQ(main.tensors.size(), 12u);
  EXPECT_EQ(OperatorNames(main),
            (std::vector<std::string>{"CONV_2D", "MAX_POOL_2D", "RESHAPE", "FULLY_CONNECTED",
                                      "FULLY_CONNECTED", "SOFTMAX"}));
  const Operator& conv = main.operators[0];
  EXPECT_EQ(conv.options.padding, Padding::kValid);
  EXPECT_EQ(conv.options.activation, Activation::kRelu);
  EXPECT_EQ(conv.options.stride_w, 1);
  const Operator& pool = main.operators[1];
  EXPECT_EQ(pool.options.filter_w, 2);
  EXPECT_EQ(pool.options.stride_h, 2);
  EXPECT_FLOAT_EQ(main.operators[5].options.beta, 1.0f);
  // Trainable parameters per the research brief: 16 + 4 + 400 + 8 = 428 floats.
  size_t float_params = 0;
  for (int op_index : {0, 3, 4}) {
    for (size_t i = 1; i < main.operators[op_index].inputs.size(); ++i) {
      const int32_t t = main.operators[op_index].inputs[i];
      if (t >= 0) float_params += main.tensors[t].element_count();
    }
  }
  EXPECT_EQ(float_params, 428u);
  EXPECT_EQ(main.tensors[main.inputs[0]].shape, (std::vector<int32_t>{1, 11, 11, 1}));
}

TEST(ModelFixtures, LeakyReluAlphaIsReadFromItsOptions) {
  TS_REQUIRE_FIXTURES();
  Model model;
  ASSERT_TRUE(
      ReadModelFile(ModelsDir() + "/onert-micro/kernels/leaky_relu/model.circle", &model).ok());
  const Operator& op = model.graph().main().operators[0];
  EXPECT_EQ(op.opcode, op::kLeakyRelu);
  EXPECT_EQ(op.options_type, 75);
  EXPECT_NE(op.options.alpha, 0.0f);
}

}  // namespace
}  // namespace trainscope
